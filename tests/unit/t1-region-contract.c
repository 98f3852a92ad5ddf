/*
 * t1-region-contract.c — unit test of the preload/engine contract headers:
 * preload/layout/cmc_region.h and share/include/cmc_emit.h agree (both are
 * included; a differing macro would not compile), the header layout is the
 * documented one, cmc_region_hdr_invalid() rejects each broken field, and
 * cmc_emit.h encodes records in the documented wire format (through a real
 * pipe) and stays silent when CMC_CANON_FD is unset.  Prints TAP.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmc_region.h"
#include "cmc_emit.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

static struct cmc_region_hdr good(uint64_t at)
{
	struct cmc_region_hdr h;
	memset(&h, 0, sizeof h);
	h.magic = CMC_REGION_MAGIC;
	h.version = CMC_REGION_VERSION;
	h.hdr_size = sizeof h;
	h.base = at;
	h.size = 1 << 20;
	h.data_off = 4096;
	h.used = 4096;
	h.alloc_kind = CMC_ALLOC_BUMP;
	return h;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(void)
{
	/* The magic numbers spell what the comments say, in memory order. */
	uint64_t m = CMC_REGION_MAGIC;
	ok(memcmp(&m, "CMCHEAP1", 8) == 0, "region magic is \"CMCHEAP1\" in memory");
	uint32_t c = CMC_CANON_MAGIC, k = CMC_CTL_MAGIC;
	ok(memcmp(&c, "CMCR", 4) == 0 && memcmp(&k, "CMCC", 4) == 0, "record magics spell CMCR/CMCC");
	ok(CMC_FAULT_EXIT_BASE + CMC_FAULT_MAX <= 125, "fault exit codes stay below the shell's 126");

	/* Layout: naturally aligned fields, no padding, reserved tail. */
	ok(offsetof(struct cmc_region_hdr, used) == 40 &&
	   offsetof(struct cmc_region_hdr, fault) == 52 &&
	   offsetof(struct cmc_region_hdr, wait_ms) == 104 &&
	   offsetof(struct cmc_region_hdr, timeouts) == 108 &&
	   offsetof(struct cmc_region_hdr, advances) == 112 &&
	   offsetof(struct cmc_region_hdr, alarm_ms) == 116 &&
	   offsetof(struct cmc_region_hdr, alarm_every_ms) == 120 &&
	   offsetof(struct cmc_region_hdr, reserved) == 128 && sizeof(struct cmc_region_hdr) == 168,
	   "header layout: used@40 fault@52 wait_ms@104 timeouts@108 advances@112 alarm_ms@116 "
	   "alarm_every_ms@120 reserved@128 size 168");

	uint64_t at = 0x600000000000ULL;
	struct cmc_region_hdr h = good(at);
	ok(cmc_region_hdr_invalid(&h, at) == NULL, "a well-formed header is valid");
	h.used = h.size;
	ok(cmc_region_hdr_invalid(&h, at) == NULL, "used == size is valid (full region)");
	/* One broken field at a time. */
	h = good(at); h.magic ^= 1;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "bad magic rejected");
	h = good(at); h.version = 2;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "unknown version rejected");
	h = good(at); h.hdr_size = 8;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "short hdr_size rejected");
	h = good(at);
	ok(cmc_region_hdr_invalid(&h, at + 4096) != NULL, "base not matching the read address rejected");
	h = good(at); h.size = 4097;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "unaligned size rejected");
	h = good(at); h.data_off = 8;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "data_off inside the header rejected");
	h = good(at); h.used = 16;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "used below data_off rejected");
	h = good(at); h.used = h.size + 16;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "used beyond size rejected");
	h = good(at); h.alloc_kind = 9;
	ok(cmc_region_hdr_invalid(&h, at) != NULL, "unknown allocator kind rejected");

	/* The builder. */
	unsigned char space[32];
	struct cmc_emit_buf b;
	cmc_emit_begin(&b, space, sizeof space);
	cmc_emit_u64(&b, 0x0102030405060708ULL);
	cmc_emit_str(&b, "hi");
	ok(b.len == 18 && !b.overflow && space[0] == 8 && space[7] == 1 && space[8] == 2 &&
	   memcmp(space + 16, "hi", 2) == 0, "u64 little-endian, str as length + bytes");
	cmc_emit_u64(&b, 1);
	cmc_emit_u64(&b, 2); /* 18 + 16 > 32 */
	ok(b.overflow, "overflowing the storage marks the record bad");

	/* Silent without CMC_CANON_FD (the first call caches the answer, so
	 * this test runs in a child before the parent sets the variable). */
	int pfd[2];
	if (pipe(pfd) < 0)
		return 1;
	unsetenv(CMC_ENV_CANON_FD);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 3);
		_exit(cmc_emit("x", 1) == 0 ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	close(pfd[1]);
	char tmp[16];
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && read(pfd[0], tmp, sizeof tmp) == 0,
	   "no CMC_CANON_FD: cmc_emit writes nothing and succeeds");
	close(pfd[0]);

	/* With it: a record through a real pipe. */
	if (pipe(pfd) < 0)
		return 1;
	char fdname[16];
	snprintf(fdname, sizeof fdname, "%d", pfd[1]);
	setenv(CMC_ENV_CANON_FD, fdname, 1);
	cmc_emit_begin(&b, space, sizeof space);
	cmc_emit_u64(&b, 3);
	ok(cmc_emit_end(&b) == 0, "cmc_emit_end succeeds");
	ok(cmc_emit("", 0) == 0, "an empty record is allowed");
	unsigned char rec[64];
	ssize_t r = read(pfd[0], rec, sizeof rec);
	ok(r == 8 + 8 + 8 && le32(rec) == CMC_CANON_MAGIC && le32(rec + 4) == 8 && rec[8] == 3 &&
	   le32(rec + 16) == CMC_CANON_MAGIC && le32(rec + 20) == 0,
	   "records on the wire: magic, LE length, payload; then the empty one");
	ok(cmc_emit(space, (size_t)CMC_CANON_MAX + 1) == -1, "a record over CMC_CANON_MAX is refused");
	close(pfd[0]);
	close(pfd[1]);

	printf("1..%d\n", n);
	return failed != 0;
}
