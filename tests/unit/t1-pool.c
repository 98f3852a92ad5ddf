/*
 * t1-pool.c — unit test of the pool allocator core (preload/layout/pool.c)
 * and its validators (pool_check.c there), linked from libcmc.a and run on
 * an ordinary buffer, so ASan watches the allocator's own code.
 *
 * Covers determinism, alignment, lowest-free-first reuse, the quarantine's
 * order and the poison check as slots and units are handed out again,
 * poisoning,
 * realloc in place, the dedicated and huge paths, faults, and, for every
 * validator, a healthy heap where it holds and a copy corrupted in its own
 * way where it fires.  Markers for `cmc invariants`:
 * @inv INV-1 INV-2 INV-3 INV-4 INV-5 INV-6 INV-7 INV-8 INV-9 INV-10 INV-11
 * @inv INV-12 INV-13 INV-14 INV-15 INV-16 INV-17 INV-18 INV-22 INV-24
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tap.h"

static jmp_buf fail_jmp;
static uint32_t fail_code;

/* The allocator's way out (pool.h): this test is the embedder. */
_Noreturn void pool_fail(struct cmc_region_hdr *h, uint32_t code, const char *what, uint64_t size,
			 uint64_t align)
{
	fail_code = code;
	longjmp(fail_jmp, 1);
}

#define SHIFT 12 /* 4 KiB units keep the buffers small */

static struct cmc_region_hdr *region(size_t size, unsigned shift)
{
	struct cmc_region_hdr *h = aligned_alloc(4096, size);
	memset(h, 0, size);
	h->magic = CMC_REGION_MAGIC;
	h->version = CMC_REGION_VERSION;
	h->hdr_size = sizeof *h;
	h->base = (uint64_t)(uintptr_t)h;
	h->size = size;
	pool_init(h, shift, POOL_QUARANTINE);
	return h;
}

static struct pool_view view(const struct cmc_region_hdr *h, const void *bytes)
{
	struct pool_view v;
	v.hdr = *h;
	v.win = (const uint8_t *)bytes + h->data_off;
	v.len = h->used - h->data_off;
	return v;
}

static uint32_t failing(const struct cmc_region_hdr *h, const void *bytes, char *first, size_t n)
{
	struct pool_view v = view(h, bytes);
	struct pool_msg m;
	uint32_t checked;
	uint32_t f = pool_check_all(&v, &checked, &m);
	if (first)
		snprintf(first, n, "%s", m.text);
	return f;
}

static uint64_t off(const struct cmc_region_hdr *h, const void *p)
{
	return (uint64_t)((const uint8_t *)p - (const uint8_t *)h);
}

static unsigned inv_bit(const char *id)
{
	for (unsigned i = 0; i < pool_n_invariants; i++)
		if (!strcmp(pool_invariants[i].id, id))
			return i;
	return 31;
}

/* Corrupt a copy of h with `how`, and expect invariant `id` to fire. */
typedef void (*corrupt_fn)(struct cmc_region_hdr *copy, void *ctx);
static void expect_fires(const char *id, const struct cmc_region_hdr *h, corrupt_fn how, void *ctx)
{
	size_t size = h->size;
	struct cmc_region_hdr *c = aligned_alloc(4096, size);
	memcpy(c, h, size);
	uint32_t f0 = failing(c, c, NULL, 0);
	how(c, ctx);
	uint32_t f1 = failing(c, c, NULL, 0);
	struct pool_view v = view(c, c);
	struct pool_msg m = {.len = 0};
	m.text[0] = 0;
	int r = pool_invariants[inv_bit(id)].holds(&v, &m);
	ok(f0 == 0 && (f1 >> inv_bit(id) & 1) && r == 0, "%s fires on its corruption (%s)", id, m.text);
	free(c);
}

static struct pool_meta *M(struct cmc_region_hdr *h)
{
	return pool_meta_of(h);
}

/* Re-seal a corrupted header, so its checksum (INV-3) does not fire first. */
static void seal(struct pool_chunk *c)
{
	c->sum = pool_chunk_sum(c);
}

static void c_meta_magic(struct cmc_region_hdr *h, void *x) { M(h)->magic ^= 1; }
static void c_used(struct cmc_region_hdr *h, void *x) { h->used += 1ULL << SHIFT; }
static void c_owner(struct cmc_region_hdr *h, void *x) { pool_chunk_at(h, M(h), 0)->owner = 7; }
static void c_nslots(struct cmc_region_hdr *h, void *x)
{
	struct pool_chunk *c = pool_chunk_at(h, M(h), 0);
	c->n_slots--;
	seal(c);
}
static void c_sizes_off(struct cmc_region_hdr *h, void *x)
{
	struct pool_chunk *c = pool_chunk_at(h, M(h), 0);
	c->sizes_off = c->bitmap_off;
	seal(c);
}
static void c_live(struct cmc_region_hdr *h, void *x) { pool_chunk_at(h, M(h), 0)->live++; }
static void c_free_unit(struct cmc_region_hdr *h, void *x)
{
	((uint8_t *)h)[pool_unit_off(M(h), *(uint32_t *)x) + 100] = 0x5a;
}
static void c_size_of_free(struct cmc_region_hdr *h, void *x)
{
	struct pool_chunk *c = pool_chunk_at(h, M(h), 0);
	pool_sizes_of(c)[c->n_slots - 1] = 3;
}
static void c_backoff(struct cmc_region_hdr *h, void *x)
{
	pool_table_of(h, M(h))[*(uint32_t *)x + 1] = POOL_U_DEDICATED | 3;
}
static void c_kind_entry(struct cmc_region_hdr *h, void *x)
{
	pool_table_of(h, M(h))[*(uint32_t *)x + 1] = POOL_U_HUGE_TAIL;
}
static void c_full_mark(struct cmc_region_hdr *h, void *x)
{
	pool_table_of(h, M(h))[0] = POOL_U_CLASS_FULL(1); /* class 32, not full */
}
static void c_overlap(struct cmc_region_hdr *h, void *x)
{
	pool_table_of(h, M(h))[*(uint32_t *)x + 1] = POOL_U_CLASS_SPACE(0);
}
static void c_write_freed(struct cmc_region_hdr *h, void *x)
{
	struct pool_chunk *c = pool_chunk_at(h, M(h), 0);
	((uint8_t *)c)[c->payload_off + (uint64_t)(c->n_slots - 1) * c->slot_size] = 1;
}
static void c_overflow(struct cmc_region_hdr *h, void *x)
{
	uint8_t *p = (uint8_t *)h + *(uint64_t *)x;
	p[20] = 0x41; /* a 20-byte block in a 32-byte slot */
}
static void c_hint(struct cmc_region_hdr *h, void *x) { M(h)->hint[1] = POOL_HINT_NONE; }
static void c_quarantine_live(struct cmc_region_hdr *h, void *x)
{
	M(h)->quarantine[M(h)->n_quarantine++] = *(uint64_t *)x;
}
static void c_quarantine_tail(struct cmc_region_hdr *h, void *x)
{
	M(h)->quarantine[POOL_QUARANTINE - 1] = 8;
}
static void c_foreign(struct cmc_region_hdr *h, void *x) { h->n_foreign++; }

int main(void)
{
	size_t size = 1 << 20;

	/* Determinism: the same history gives the same offsets and bytes. */
	struct cmc_region_hdr *a = region(size, SHIFT), *b = region(size, SHIFT);
	uint64_t offs[2][64];
	for (int r = 0; r < 2; r++) {
		struct cmc_region_hdr *h = r ? b : a;
		void *p[64];
		for (int i = 0; i < 64; i++) {
			p[i] = pool_alloc(h, (size_t)(i * 37 % 300), 16);
			memset(p[i], i + 1, (size_t)(i * 37 % 300));
			offs[r][i] = off(h, p[i]);
			if (i % 3 == 2)
				pool_free(h, p[i - 1]);
			if (i % 5 == 4)
				p[i] = pool_realloc(h, p[i], (size_t)(i * 53 % 500) + 1);
		}
	}
	ok(!memcmp(offs[0], offs[1], sizeof offs[0]), "same history, same offsets");
	ok(a->used == b->used && !memcmp((uint8_t *)a + a->data_off, (uint8_t *)b + b->data_off,
					 a->used - a->data_off),
	   "same history, same window bytes");
	char why[200];
	ok(failing(a, a, why, sizeof why) == 0, "every invariant holds after a mixed history (%s)", why);
	free(a);
	free(b);

	/* Alignment: 16 for plain requests, any power of two on request. */
	struct cmc_region_hdr *h = region(size, SHIFT);
	int al = 1;
	for (size_t s = 0; s < 3000; s += 97)
		al &= off(h, pool_alloc(h, s, 16)) % 16 == 0;
	ok(al, "plain blocks are 16-byte aligned");
	size_t aligns[] = {32, 64, 256, 4096, 16384};
	al = 1;
	for (unsigned i = 0; i < sizeof aligns / sizeof *aligns; i++)
		al &= (uintptr_t)pool_alloc(h, 40, aligns[i]) % aligns[i] == 0;
	ok(al, "aligned requests honour 32..16384");
	ok(failing(h, h, why, sizeof why) == 0, "invariants hold with aligned blocks (%s)", why);
	free(h);

	/* Lowest free slot first, but a freed slot only after the quarantine. */
	h = region(size, SHIFT);
	void *p1 = pool_alloc(h, 20, 16), *p2 = pool_alloc(h, 20, 16), *p3 = pool_alloc(h, 20, 16);
	ok(off(h, p2) - off(h, p1) == 32 && off(h, p3) - off(h, p2) == 32,
	   "20-byte blocks (plus redzone) take consecutive 32-byte slots");
	pool_free(h, p2);
	void *p4 = pool_alloc(h, 24, 16);
	ok(off(h, p4) - off(h, p3) == 32, "a freed slot is not the next one handed out (quarantine)");
	ok(pool_alloc(h, 1, 16) != p2, "a 1-byte block goes to class 16, not the 32s");

	/* Poison: what is freed reads as POOL_POISON again. */
	memset(p1, 0xab, 20);
	pool_free(h, p1);
	int clean = 1;
	for (int i = 0; i < 32; i++)
		clean &= ((uint8_t *)p1)[i] == POOL_POISON;
	ok(clean, "a freed slot is poisoned");
	ok(failing(h, h, why, sizeof why) == 0, "invariants hold with slots in quarantine (%s)", why);
	free(h);

	/* The quarantine: freed class slots come back in the order they were
	 * freed, each once POOL_QUARANTINE later frees have pushed it out.
	 * qb[Q + 1] stays live, so the chunk is never released. */
	enum { Q = POOL_QUARANTINE };
	h = region(size, SHIFT);
	void *qb[Q + 2];
	for (int i = 0; i < Q + 2; i++)
		qb[i] = pool_alloc(h, 20, 16);
	pool_free(h, qb[2]);
	pool_free(h, qb[0]);
	void *x = pool_alloc(h, 20, 16);
	ok(off(h, x) == off(h, qb[Q + 1]) + 32, "the lowest slot not in quarantine is handed out");
	for (int i = 3; i <= Q; i++)
		pool_free(h, qb[i]);
	ok(M(h)->n_quarantine == Q && M(h)->quarantine[0] == off(h, qb[2]),
	   "the quarantine is full, the first freed slot oldest");
	ok(failing(h, h, why, sizeof why) == 0, "invariants hold with a full quarantine (%s)", why);
	pool_free(h, qb[1]);
	ok(pool_alloc(h, 20, 16) == qb[2], "a full quarantine lets its oldest go: freed first, reused first");
	pool_free(h, x);
	ok(pool_alloc(h, 20, 16) == qb[0], "then the second freed (first in free order, not address)");
	ok(M(h)->n_quarantine == Q && failing(h, h, why, sizeof why) == 0,
	   "invariants hold as slots leave the quarantine (%s)", why);

	/* A chunk whose only free slot is quarantined is passed over: the
	 * next slot comes from a new chunk, the hint (INV-14) still names the
	 * lowest chunk with a free slot. */
	struct cmc_region_hdr *h2 = region(size, SHIFT);
	void *first = pool_alloc(h2, 500, 16); /* class 512: a handful per unit */
	uint32_t n5 = pool_chunk_at(h2, M(h2), 0)->n_slots, c5 = pool_chunk_at(h2, M(h2), 0)->cls;
	for (uint32_t i = 1; i < n5; i++)
		(void)pool_alloc(h2, 500, 16);
	ok(M(h2)->hint[c5] == POOL_HINT_NONE, "%u class-512 slots fill unit 0", n5);
	pool_free(h2, first);
	void *z = pool_alloc(h2, 500, 16);
	ok(off(h2, z) >= M(h2)->units_off + (1u << SHIFT) && M(h2)->hint[c5] == 0,
	   "a chunk with only a quarantined slot free is passed over, and stays the hint");
	ok(failing(h2, h2, why, sizeof why) == 0, "invariants hold (%s)", why);
	free(h2);

	/* Verified as handed out again: a slot written after its free. */
	pool_free(h, qb[Q + 1]);       /* pushes qb[3] out: free, reusable, next */
	((uint8_t *)qb[3])[5] = 0x77;  /* a write through a dangling pointer */
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-12"),
	   "the write to a free slot fails INV-12 (%s)", why);
	void *y = pool_alloc(h, 20, 16);
	ok(y == qb[3] && M(h)->n_reuse_written == 1 && M(h)->first_reuse_written == off(h, qb[3]) + 5,
	   "the allocator records the written slot as it hands it out");
	ok(((uint8_t *)y)[5] == POOL_POISON, "and hands it out re-poisoned");
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-12") && strstr(why, "handed out again"),
	   "the slot is live now, INV-12 still fails alone (%s)", why);
	free(h);

	/* A chunk's last block: the chunk is released (no quarantine), and the
	 * unit is verified when it is made a chunk again; the same for a
	 * dedicated chunk's units. */
	h = region(size, SHIFT);
	void *lone = pool_alloc(h, 100, 16);
	(void)pool_alloc(h, 20, 16); /* unit 1: the window keeps unit 0 */
	pool_free(h, lone);
	ok(M(h)->n_quarantine == 0, "a released chunk leaves nothing in the quarantine");
	((uint8_t *)lone)[3] = 0x55;
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-7"),
	   "a write to the released unit fails INV-7 (%s)", why);
	ok(pool_alloc(h, 100, 16) == lone && M(h)->n_reuse_written == 1,
	   "the unit is verified as a new chunk takes it");
	void *dd = pool_alloc(h, 3 << SHIFT, 16);
	pool_free(h, dd);
	((uint8_t *)dd)[100] = 1;
	ok(pool_alloc(h, 3 << SHIFT, 16) == dd && M(h)->n_reuse_written == 2,
	   "a dedicated chunk's units are verified too, even trimmed off the window");
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-12"), "both are INV-12 (%s)", why);
	free(h);

	/* Releasing: a malloc/free pair returns the window to its bytes. */
	h = region(size, SHIFT);
	struct cmc_region_hdr *snap = aligned_alloc(4096, size);
	memcpy(snap, h, size);
	void *q = pool_alloc(h, 100, 16);
	void *big = pool_alloc(h, 3 << SHIFT, 16);
	pool_free(h, q);
	pool_free(h, big);
	ok(h->used == snap->used && !memcmp((uint8_t *)h + h->data_off, (uint8_t *)snap + h->data_off,
					    h->used - h->data_off),
	   "alloc + free of a small and a large block leaves the window as it was");
	free(snap);

	/* Realloc in place while the block and its redzone fit. */
	p1 = pool_alloc(h, 20, 16);
	memset(p1, 7, 20);
	ok(pool_realloc(h, p1, 31) == p1, "realloc within the 32-byte slot stays");
	p2 = pool_realloc(h, p1, 32);
	ok(p2 != p1 && ((uint8_t *)p2)[19] == 7, "realloc past it moves and keeps the bytes");
	ok(pool_usable(h, p2) == 32 && pool_usable(h, p1) == 0, "usable size is the requested size");
	big = pool_alloc(h, 2 << SHIFT, 16);
	ok(pool_realloc(h, big, (2 << SHIFT) + 100) == big, "a dedicated block grows in place");
	ok(failing(h, h, why, sizeof why) == 0, "invariants hold after reallocs (%s)", why);
	free(h);

	/* Dedicated and huge paths; the unit table; faults. */
	size_t hsize = (size_t)(POOL_DEDICATED_MAX_UNITS + 40) << SHIFT;
	h = region(hsize, SHIFT);
	void *d = pool_alloc(h, 5 << SHIFT, 16);
	uint32_t du = (uint32_t)((off(h, d) - M(h)->units_off) >> SHIFT);
	ok(pool_table_of(h, M(h))[du] == (POOL_U_DEDICATED | 1) &&
	   pool_table_of(h, M(h))[du + 5] == (POOL_U_DEDICATED | 6),
	   "a 5-unit request gets a 6-unit dedicated chunk with back offsets");
	void *g = pool_alloc(h, (size_t)(POOL_DEDICATED_MAX_UNITS + 1) << SHIFT, 16);
	uint32_t gu = (uint32_t)((off(h, g) - M(h)->units_off) >> SHIFT);
	ok(pool_table_of(h, M(h))[gu] == POOL_U_HUGE_HEAD && pool_table_of(h, M(h))[gu + 1] == POOL_U_HUGE_TAIL,
	   "a request beyond the dedicated bound takes the huge path");
	ok(failing(h, h, why, sizeof why) == 0, "invariants hold with dedicated and huge chunks (%s)",
	   why);
	fail_code = 0;
	if (!setjmp(fail_jmp))
		pool_alloc(h, hsize, 16);
	ok(fail_code == CMC_FAULT_TOO_LARGE, "a request larger than the pool is a too-large fault");
	fail_code = 0;
	if (!setjmp(fail_jmp))
		pool_alloc(h, 40 << SHIFT, 16);
	ok(fail_code == CMC_FAULT_HEAP_EXHAUSTED, "a request that fits the pool but not what is left "
						  "is an exhaustion fault");
	pool_free(h, g);
	pool_free(h, d);
	ok(M(h)->units_hw == 0 && h->used == M(h)->units_off, "freeing everything trims the window");
	free(h);

	/* Each validator fires on a copy corrupted its own way. */
	h = region(size, SHIFT);
	void *s20 = pool_alloc(h, 20, 16);     /* unit 0: class 32, slot 0 */
	(void)pool_alloc(h, 20, 16);           /* slot 1 */
	void *gap = pool_alloc(h, 2000, 16);   /* dedicated chunk, freed: free unit */
	void *ded = pool_alloc(h, 3 << SHIFT, 16);
	uint32_t gap_u = (uint32_t)((off(h, gap) - M(h)->units_off - 64) >> SHIFT);
	uint32_t ded_u = (uint32_t)((off(h, ded) - M(h)->units_off - 64) >> SHIFT);
	pool_free(h, gap);
	uint64_t s20_off = off(h, s20);
	ok(failing(h, h, why, sizeof why) == 0, "the corruption base heap is healthy (%s)", why);
	expect_fires("INV-1", h, c_meta_magic, NULL);
	expect_fires("INV-2", h, c_used, NULL);
	expect_fires("INV-3", h, c_owner, NULL);
	expect_fires("INV-4", h, c_nslots, NULL);
	expect_fires("INV-5", h, c_sizes_off, NULL);
	expect_fires("INV-6", h, c_live, NULL);
	expect_fires("INV-7", h, c_free_unit, &gap_u);
	expect_fires("INV-8", h, c_size_of_free, NULL);
	expect_fires("INV-9", h, c_backoff, &ded_u);
	expect_fires("INV-10", h, c_kind_entry, &ded_u);
	expect_fires("INV-10", h, c_full_mark, NULL);
	expect_fires("INV-11", h, c_overlap, &ded_u);
	expect_fires("INV-12", h, c_write_freed, NULL);
	expect_fires("INV-13", h, c_overflow, &s20_off);
	expect_fires("INV-14", h, c_hint, NULL);
	expect_fires("INV-16", h, c_foreign, NULL);
	expect_fires("INV-24", h, c_quarantine_live, &s20_off);
	expect_fires("INV-24", h, c_quarantine_tail, NULL);

	/* Misuse through the real entry points is recorded, not a crash. */
	pool_free(h, s20);
	pool_free(h, s20);
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-15"), "a double free fails INV-15 alone (%s)",
	   why);
	M(h)->n_double_free = 0;
	M(h)->first_misuse = 0;
	pool_free(h, (uint8_t *)ded + 8);
	ok(failing(h, h, why, sizeof why) == 1u << inv_bit("INV-16"),
	   "freeing an interior pointer fails INV-16 alone (%s)", why);
	free(h);
	return tap_done();
}
