/*
 * region.c — the heap region: parses CMC_HEAP_BASE / CMC_HEAP_SIZE, maps the
 * region at exactly that base (MAP_FIXED_NOREPLACE: a base that is taken is a
 * fault, never a silent move), writes the header of cmc_region.h and hands
 * the rest to the allocator (pl_alloc_init).  Owns pl_region.
 *
 * The region asks for transparent huge pages (MADV_HUGEPAGE; a kernel with
 * them off ignores it).  A fork snapshot's cost is mostly its page tables:
 * fork copies one entry per 4 KiB page of heap and exit tears them down,
 * so a 32 MiB heap cost 2.7x a 64 KiB one per transition; with 2 MiB pages
 * fork copies one entry per 2 MiB and it costs 1.8-1.9x (issue 21,
 * tests/bench/heapsize.sh).  What an operation writes is still copied 4 KiB
 * at a time: the kernel splits a shared huge page on a write fault and
 * copies only the page written, so pages.c's clean pages (same frame, not
 * exclusive) stay clean.  The cost: a target touches heap 2 MiB at a time
 * (RSS, not the address space RLIMIT_AS bounds).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pl.h"
#include "pl_alloc.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE 4096ULL

struct cmc_region_hdr *pl_region;

static _Noreturn void bad_env(const char *name, const char *value, const char *expected)
{
	struct pl_msg m = { .len = 0 };
	pl_msg_str(&m, "bad ");
	pl_msg_str(&m, name);
	pl_msg_str(&m, "='");
	pl_msg_str(&m, value);
	pl_msg_str(&m, "': expected ");
	pl_msg_str(&m, expected);
	pl_fault(CMC_FAULT_BAD_ENV, &m);
}

/* Parse digits in `radix` (10 or 16) from *s; advances *s.  -1 on overflow
 * or no digits. */
static int parse_digits(const char **s, unsigned radix, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (radix == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (radix == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / radix)
			return -1;
		x = x * radix + d;
	}
	if (p == *s)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

static uint64_t env_base(void)
{
	char v[64];
	int r = pl_env(CMC_ENV_HEAP_BASE, v, sizeof v);
	if (r == 0)
		return CMC_HEAP_BASE_DEFAULT;
	const char *expected = "a page-aligned hex address such as 0x600000000000";
	if (r < 0)
		bad_env(CMC_ENV_HEAP_BASE, "(too long)", expected);
	const char *p = v;
	uint64_t x;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (parse_digits(&p, 16, &x) < 0 || *p || x == 0 || x % PAGE)
		bad_env(CMC_ENV_HEAP_BASE, v, expected);
	return x;
}

static uint64_t env_size(void)
{
	char v[64];
	int r = pl_env(CMC_ENV_HEAP_SIZE, v, sizeof v);
	if (r == 0)
		return CMC_HEAP_SIZE_DEFAULT;
	const char *expected = "a size in bytes (decimal or 0x-hex, optional K/M/G), at least 64K";
	if (r < 0)
		bad_env(CMC_ENV_HEAP_SIZE, "(too long)", expected);
	const char *p = v;
	uint64_t x, mult = 1;
	unsigned radix = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2, radix = 16;
	if (parse_digits(&p, radix, &x) < 0)
		bad_env(CMC_ENV_HEAP_SIZE, v, expected);
	switch (*p) {
	case 'k': case 'K': mult = 1ULL << 10; p++; break;
	case 'm': case 'M': mult = 1ULL << 20; p++; break;
	case 'g': case 'G': mult = 1ULL << 30; p++; break;
	}
	/* 2^46 keeps every offset sum below 2^63 without further checks. */
	if (*p || x > (1ULL << 46) / mult || x * mult < CMC_HEAP_SIZE_MIN)
		bad_env(CMC_ENV_HEAP_SIZE, v, expected);
	return (x * mult + PAGE - 1) & ~(PAGE - 1);
}

struct cmc_region_hdr *pl_region_map(void)
{
	if (pl_region)
		return pl_region;
	int saved = errno;
	uint64_t base = env_base(), size = env_size();
	void *p = mmap((void *)(uintptr_t)base, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (uintptr_t)p != base) {
		int e = errno;
		struct pl_msg m = { .len = 0 };
		uint32_t code = CMC_FAULT_BASE_TAKEN;
		if (p != MAP_FAILED) {
			munmap(p, size); /* an old kernel took the base as a hint */
		} else if (e != EEXIST) {
			code = CMC_FAULT_MAP_FAILED;
		}
		pl_msg_str(&m, code == CMC_FAULT_BASE_TAKEN ? "base taken: cannot map the heap region at "
							    : "cannot map the heap region at ");
		pl_msg_hex(&m, base);
		pl_msg_str(&m, " size ");
		pl_msg_u64(&m, size);
		if (code == CMC_FAULT_BASE_TAKEN) {
			pl_msg_str(&m, " (something is already mapped there; set " CMC_ENV_HEAP_BASE ")");
		} else {
			pl_msg_str(&m, " (errno ");
			pl_msg_u64(&m, (uint64_t)e);
			pl_msg_str(&m, ")");
		}
		pl_fault(code, &m);
	}
	madvise(p, size, MADV_HUGEPAGE); /* a hint: failure changes nothing */
	struct cmc_region_hdr *h = p;
	h->magic = CMC_REGION_MAGIC;
	h->version = CMC_REGION_VERSION;
	h->hdr_size = sizeof *h;
	h->base = base;
	h->size = size;
	h->pid = (uint64_t)getpid();
	pl_alloc_init(h);
	pl_region = h;
	errno = saved;
	return h;
}
