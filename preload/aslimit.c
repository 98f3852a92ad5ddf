/*
 * aslimit.c — the target's own mmap/mmap64/mremap, so that a mapping the
 * kernel refuses because of the address-space limit cmc set (RLIMIT_AS,
 * scenario `limit as`) is reported to cmc as a CMC_CTL_LIMIT record
 * (cmc_region.h section 3) instead of surfacing later as an unexplained
 * crash.  The calls go straight to the kernel and fail exactly as they
 * would have; only the report is added.  An ENOMEM is the limit's when
 * what is mapped (/proc/self/statm) plus the request exceeds it.
 * Allocation-free: raw syscalls only, errno preserved.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

/* Bytes mapped now: the first field of /proc/self/statm, in pages. */
static uint64_t mapped_bytes(void)
{
	char b[64];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	long n = syscall(SYS_read, fd, b, sizeof b - 1);
	syscall(SYS_close, fd);
	uint64_t pages = 0;
	for (long i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++)
		pages = pages * 10 + (uint64_t)(b[i] - '0');
	return pages * 4096;
}

static void refused(size_t len)
{
	int e = errno;
	struct rlimit r;
	if (syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
		uint64_t have = mapped_bytes();
		if (have + len > r.rlim_cur) {
			uint8_t rec[CMC_CTL_LIMIT_LEN];
			pl_put_le32(rec, CMC_CTL_LIMIT);
			pl_put_le32(rec + 4, CMC_LIMIT_AS);
			pl_put_le64(rec + 8, r.rlim_cur);
			pl_put_le64(rec + 16, len);
			pl_put_le64(rec + 24, have);
			pl_ctl_send(rec, sizeof rec);
		}
	}
	errno = e;
}

PL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (r == -1 && errno == ENOMEM)
		refused(len);
	return (void *)r;
}

PL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

PL_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	if (flags & MREMAP_FIXED) {
		__builtin_va_list ap;
		__builtin_va_start(ap, flags);
		new_addr = __builtin_va_arg(ap, void *);
		__builtin_va_end(ap);
	}
	long r = syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	if (r == -1 && errno == ENOMEM && new_len > old_len)
		refused(new_len - old_len);
	return (void *)r;
}
