/*
 * leak.c — what is still live when the target exits (INVARIANTS.md INV-23).
 *
 * With CMC_EXIT_LIVE=1 the preload's destructor, which runs inside exit()
 * after the target's atexit handlers and its own destructors, walks the
 * pool's live blocks and sends one CMC_CTL_EXIT_LIVE record (cmc_region.h
 * section 3).  A block counts as
 *   libc's    reachable from the C runtime's writable data (libc.so and the
 *             dynamic loader: stdio buffers, locale data, dlerror strings);
 *   lost      reachable from no root at all: the target dropped its last
 *             pointer to it (a leak valgrind would call "definitely lost");
 *   the rest  the target's, still reachable from its globals or the stack.
 * Roots are the writable PT_LOAD segments of every loaded object but this
 * one, and the stack above this function's frame.  The scan is
 * conservative: every aligned 8-byte word is a candidate pointer, and a
 * pointer into a block's interior keeps it reachable.  Registers and TLS
 * are not roots (at exit no target frame is live; a target keeping its
 * only pointer in a thread-local is reported as losing it).
 *
 * Never calls malloc: its scratch arrays are mmap'd and unmapped again,
 * and it reads the pool only through the read-only walk of pool_check.c.
 */
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "pl.h"
#include "layout/pool.h"

extern void *__libc_stack_end; /* ld.so: the stack pointer main was entered with */

/* One live block; blocks[] is sorted by start (pool_chunks walks in address
 * order, slots in a chunk ascend).  mark: bit 0 reached from the C
 * runtime's roots, bit 1 from any root. */
struct block {
	uint64_t start, len;    /* absolute address; requested bytes */
	uint8_t mark;
};

struct scan {
	struct cmc_region_hdr *h;
	struct block *b;
	uint64_t n, cap;
	uint32_t *work;         /* indices of marked blocks still to scan */
	uint64_t nwork;
	uint64_t lo, hi;        /* [lo, hi): absolute addresses any block may hold */
	int incomplete;         /* a chunk could not be walked: counts are a floor */
};

static void *scratch(uint64_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void add_block(struct scan *s, uint64_t start, uint64_t len)
{
	if (s->n < s->cap)
		s->b[s->n++] = (struct block){start, len, 0};
	else
		s->incomplete = 1;
}

/* pool_chunks callback: count (s->b == NULL) or record each live block. */
static void each_chunk(void *ctx, const struct pool_chunk_info *ci)
{
	struct scan *s = ctx;
	uint64_t base = s->h->base;
	if (!ci->header_ok || !ci->bytes) {
		s->incomplete = 1;
		return;
	}
	if (ci->kind != POOL_K_CLASS) {
		if (ci->c.live == 1) {
			if (s->b)
				add_block(s, base + ci->off + ci->payload_off, ci->c.req);
			else
				s->cap++;
		}
		return;
	}
	const uint16_t *sizes = (const uint16_t *)(ci->bytes + ci->sizes_off);
	for (uint32_t i = 0; i < ci->n_slots; i++) {
		uint64_t bad;
		int st = pool_slot(ci, i, &bad);
		if (st != POOL_SLOT_LIVE && st != POOL_SLOT_OVERRUN)
			continue;
		if (s->b)
			add_block(s, base + ci->off + ci->payload_off + (uint64_t)i * ci->slot_size,
				  sizes[i] ? sizes[i] - 1u : 0);
		else
			s->cap++;
	}
}

/* The block holding address a (its start or interior), or -1. */
static int64_t find(const struct scan *s, uint64_t a)
{
	if (a < s->lo || a >= s->hi)
		return -1;
	uint64_t l = 0, r = s->n;
	while (l < r) { /* first block starting after a */
		uint64_t m = l + (r - l) / 2;
		if (s->b[m].start <= a)
			l = m + 1;
		else
			r = m;
	}
	if (!l)
		return -1;
	const struct block *b = &s->b[l - 1];
	return a < b->start + (b->len ? b->len : 1) ? (int64_t)(l - 1) : -1;
}

static void scan_words(struct scan *s, uint64_t from, uint64_t to, uint8_t mark)
{
	from = (from + 7) & ~7ULL;
	for (uint64_t a = from; a + 8 <= to; a += 8) {
		uint64_t v;
		memcpy(&v, (const void *)(uintptr_t)a, 8);
		int64_t i = find(s, v);
		if (i < 0 || (s->b[i].mark & mark) == mark)
			continue;
		s->b[i].mark |= mark;
		s->work[s->nwork++] = (uint32_t)i;
	}
}

/* Scan [from, to) and everything reachable from it. */
static void reach(struct scan *s, uint64_t from, uint64_t to, uint8_t mark)
{
	uint64_t rb = s->h->base, re = rb + s->h->size;
	if (from < re && to > rb)
		return; /* never a root inside the heap region itself */
	scan_words(s, from, to, mark);
	while (s->nwork) {
		const struct block *b = &s->b[s->work[--s->nwork]];
		scan_words(s, b->start, b->start + b->len, mark);
	}
}

struct roots {
	struct scan *s;
	int runtime;            /* 1: the C runtime's objects only; 0: all others */
};

static int is_runtime(const char *name)
{
	const char *base = name;
	for (const char *p = name; *p; p++)
		if (*p == '/')
			base = p + 1;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
	       !strncmp(base, "libpthread.so", 13) || !strncmp(base, "libdl.so", 8);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct roots *r = ctx;
	(void)size;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	if (is_runtime(name) != r->runtime)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uint64_t from = info->dlpi_addr + ph->p_vaddr, to = from + ph->p_memsz;
		uint64_t self = (uint64_t)(uintptr_t)&pl_region;
		if (self >= from && self < to)
			continue; /* this object: its own pointers are not the target's */
		reach(r->s, from, to, r->runtime ? 1 : 2);
	}
	return 0;
}

static void report(struct scan *s)
{
	uint8_t rec[CMC_EXIT_LIVE_FIXED + CMC_EXIT_LIVE_LIST * CMC_EXIT_LIVE_ENTRY];
	uint64_t nb = 0, bytes = 0, nl = 0, lbytes = 0, nc = 0, cbytes = 0;
	uint32_t listed = 0;
	memset(rec, 0, sizeof rec);
	for (uint64_t i = 0; i < s->n; i++) {
		const struct block *b = &s->b[i];
		if (b->mark & 1) {
			nc++;
			cbytes += b->len;
			continue;
		}
		nb++;
		bytes += b->len;
		int lost = !(b->mark & 2);
		if (lost) {
			nl++;
			lbytes += b->len;
		}
		if (listed < CMC_EXIT_LIVE_LIST) {
			uint8_t *e = rec + CMC_EXIT_LIVE_FIXED + listed * CMC_EXIT_LIVE_ENTRY;
			pl_put_le64(e, b->start);
			pl_put_le64(e + 8, b->len);
			pl_put_le64(e + 16, lost ? CMC_EXIT_LIVE_LOST : 0);
			listed++;
		}
	}
	pl_put_le32(rec, CMC_CTL_EXIT_LIVE);
	pl_put_le32(rec + 4, s->incomplete ? 0 : CMC_EXIT_LIVE_COMPLETE);
	pl_put_le64(rec + 8, nb);
	pl_put_le64(rec + 16, bytes);
	pl_put_le64(rec + 24, nl);
	pl_put_le64(rec + 32, lbytes);
	pl_put_le64(rec + 40, nc);
	pl_put_le64(rec + 48, cbytes);
	pl_put_le32(rec + 56, listed);
	pl_ctl_send(rec, CMC_EXIT_LIVE_FIXED + listed * CMC_EXIT_LIVE_ENTRY);
}

__attribute__((destructor, noinline)) static void pl_exit_live(void)
{
	char on[4];
	struct cmc_region_hdr *h = pl_region;
	if (pl_env(CMC_ENV_EXIT_LIVE, on, sizeof on) != 1 || strcmp(on, "1") || !h ||
	    h->alloc_kind != CMC_ALLOC_POOL || h->fault != CMC_FAULT_NONE)
		return;
	struct scan s = {.h = h};
	struct pool_view v = {.hdr = *h, .win = (const uint8_t *)h + h->data_off,
			      .len = h->used - h->data_off};
	if (pool_chunks(&v, each_chunk, &s) < 0)
		return; /* the pool's own metadata is broken: INV-1 says so */
	if (s.cap > UINT32_MAX)
		s.cap = UINT32_MAX;
	uint64_t bbytes = s.cap * sizeof *s.b, wbytes = s.cap * sizeof *s.work;
	s.b = scratch(bbytes);
	s.work = scratch(wbytes);
	if (s.b && s.work && pool_chunks(&v, each_chunk, &s) >= 0) {
		if (s.n) {
			s.lo = s.b[0].start;
			s.hi = s.b[s.n - 1].start + s.b[s.n - 1].len + 1;
		}
		struct roots r = {&s, 1};
		dl_iterate_phdr(each_object, &r);
		r.runtime = 0;
		dl_iterate_phdr(each_object, &r);
		/* The stack above this frame: exit()'s callers, main's caller. */
		uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
		uint64_t top = (uint64_t)(uintptr_t)__libc_stack_end;
		if (top > sp)
			reach(&s, sp, top, 2);
		report(&s);
	}
	if (s.b)
		munmap(s.b, bbytes ? bbytes : 1);
	if (s.work)
		munmap(s.work, wbytes ? wbytes : 1);
}
