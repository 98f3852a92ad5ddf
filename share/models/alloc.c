/*
 * alloc.c — the pool allocator checked by cmc itself: a step-function model
 * whose state is a small heap region (an ordinary buffer) plus three
 * handles, and whose actions call the allocator's own code
 * (preload/layout/pool.c, linked from libcmc, or into the .so) — malloc,
 * free and realloc of a few sizes in every order.  Every state is checked
 * against every runtime validator of preload/layout/pool_check.c (model
 * invariants named by their INV id) and two
 * model-only invariants: INV-18 (blocks aligned) and INV-19 (live blocks
 * are disjoint and keep their bytes).  The analogue of the seed's TLA+ and
 * GenMC checks, on our own engine.
 *
 *   alloc        3 handles, sizes 8, 20, 40 (class 16, class 32, dedicated),
 *                malloc/free/realloc, a quarantine of 1: the full check.
 *   alloc-small  3 handles, sizes 8 and 12 (both class 16), malloc/free,
 *                no quarantine: small enough to count by hand
 *                (tests/t1500-alloc-model.sh).
 *   alloc-bug    alloc-small over a planted bug: free forgets to clear the
 *                slot's bitmap bit (free_keep_bit below).
 *
 * Region: 2048 bytes, 256-byte units (5 of them), so the state is about
 * 2 KiB.  The header's history counters (n_malloc, n_free, n_realloc) are
 * zeroed after each step: they are history, not state (raw hashing in
 * process mode leaves the header out for the same reason), and base is 0
 * (the pool stores offsets only).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmc_model.h"
#include "layout/pool.h"

static jmp_buf am_fail_jmp;

/* The allocator's way out when a request cannot be met (pool.h).  In a
 * model .so it stays the .so's own: cmc exports its built-in copy
 * (-rdynamic), whose jmp_buf is not this one. */
#ifdef CMC_MODEL_SO
__attribute__((visibility("hidden")))
#endif
_Noreturn void pool_fail(struct cmc_region_hdr *h, uint32_t code, const char *what, uint64_t size,
			 uint64_t align)
{
	longjmp(am_fail_jmp, 1);
}

#define AM_REGION 2048
#define AM_SHIFT 8
#define AM_H 3

/* off[i] == 0: handle i is null; else the region offset of its block of
 * req[i] bytes, every byte 0x10 + i.  No padding: hashed as bytes. */
struct am_state {
	uint8_t region[AM_REGION];
	uint16_t off[AM_H];
	uint16_t req[AM_H];
};

/* The allocator needs its region 16-aligned; engine states are not. */
struct am_work {
	_Alignas(64) struct am_state s;
};

struct am_variant {
	const uint16_t *sizes;
	unsigned nsizes;
};

static struct cmc_region_hdr *hdr_of(struct am_work *w)
{
	return (struct cmc_region_hdr *)w->s.region;
}

static void normalise(struct am_work *w)
{
	struct cmc_region_hdr *h = hdr_of(w);
	h->n_malloc = h->n_free = h->n_realloc = 0;
}

static void am_init(cmc_out *out, uint32_t quarantine)
{
	struct am_work w;
	memset(&w, 0, sizeof w);
	struct cmc_region_hdr *h = hdr_of(&w);
	h->magic = CMC_REGION_MAGIC;
	h->version = CMC_REGION_VERSION;
	h->hdr_size = sizeof *h;
	h->base = 0;
	h->size = AM_REGION;
	pool_init(h, AM_SHIFT, quarantine);
	normalise(&w);
	cmc_yield(out, &w.s, NULL);
}

/* The quarantine (INV-24) the models run with.  Its order is state, and
 * multiplies the space: alloc has 16564 states with none, 109249 with 1,
 * 874792 with 2 (7.5 s); 1 already exercises every path that depends on it
 * (a freed slot skipped, the oldest let go, entries dropped as a chunk is
 * released, realloc moving), the FIFO's order beyond one entry is the unit
 * test's (tests/unit/t1-pool.c).  alloc-small and alloc-bug run without
 * one: their counts are derived by hand with immediate reuse. */
#ifndef AM_QUARANTINE
#define AM_QUARANTINE 1
#endif
static void full_init(cmc_out *out) { am_init(out, AM_QUARANTINE); }
static void small_init(cmc_out *out) { am_init(out, 0); }

/* The allocator's call, or NULL when it faulted (exhaustion: the step is
 * not enabled).  setjmp lives here, away from the callers' loop variables. */
static void *guarded(struct cmc_region_hdr *h, void *p, size_t size)
{
	if (setjmp(am_fail_jmp))
		return NULL;
	return p ? pool_realloc(h, p, size) : pool_alloc(h, size, 16);
}

static void do_malloc(const struct am_variant *v, const void *s, cmc_out *out)
{
	for (unsigned i = 0; i < AM_H; i++) {
		for (unsigned k = 0; k < v->nsizes; k++) {
			struct am_work w;
			memcpy(&w.s, s, sizeof w.s);
			if (w.s.off[i])
				break;
			uint8_t *p = guarded(hdr_of(&w), NULL, v->sizes[k]);
			if (!p)
				continue;
			memset(p, 0x10 + i, v->sizes[k]);
			w.s.off[i] = (uint16_t)(p - w.s.region);
			w.s.req[i] = v->sizes[k];
			normalise(&w);
			char label[32];
			snprintf(label, sizeof label, "malloc h%u %u", i, v->sizes[k]);
			cmc_yield(out, &w.s, label);
		}
	}
}

/*
 * alloc-bug's planted bug: free forgets to clear the slot's bitmap bit.
 * Planted right after the allocator's own free, which is the same as
 * planting it inside: nothing after the bit is cleared there reads it.
 * When the free emptied the chunk, its release wiped the bitmap and the
 * bug stays hidden; otherwise the bit is set again.
 */
static void keep_bit(struct cmc_region_hdr *h, uint64_t off)
{
	struct pool_meta *m = pool_meta_of(h);
	uint32_t u = (uint32_t)((off - m->units_off) >> m->unit_shift);
	if (!POOL_U_IS_CLASS(pool_table_of(h, m)[u]))
		return;
	struct pool_chunk *c = pool_chunk_at(h, m, u);
	uint64_t i = (off - pool_unit_off(m, u) - c->payload_off) / c->slot_size;
	pool_bitmap_of(c)[i / 64] |= 1ULL << (i % 64);
}

static void do_free(const void *s, cmc_out *out, bool plant_keep_bit)
{
	for (unsigned i = 0; i < AM_H; i++) {
		struct am_work w;
		memcpy(&w.s, s, sizeof w.s);
		if (!w.s.off[i])
			continue;
		pool_free(hdr_of(&w), w.s.region + w.s.off[i]);
		if (plant_keep_bit)
			keep_bit(hdr_of(&w), w.s.off[i]);
		w.s.off[i] = w.s.req[i] = 0;
		normalise(&w);
		char label[32];
		snprintf(label, sizeof label, "free h%u", i);
		cmc_yield(out, &w.s, label);
	}
}

static void do_realloc(const struct am_variant *v, const void *s, cmc_out *out)
{
	for (unsigned i = 0; i < AM_H; i++) {
		for (unsigned k = 0; k < v->nsizes; k++) {
			struct am_work w;
			memcpy(&w.s, s, sizeof w.s);
			if (!w.s.off[i])
				break;
			uint16_t old = w.s.req[i], sz = v->sizes[k];
			uint8_t *q = guarded(hdr_of(&w), w.s.region + w.s.off[i], sz);
			if (!q)
				continue;
			if (sz > old)
				memset(q + old, 0x10 + i, sz - old);
			w.s.off[i] = (uint16_t)(q - w.s.region);
			w.s.req[i] = sz;
			normalise(&w);
			char label[32];
			snprintf(label, sizeof label, "realloc h%u %u", i, sz);
			cmc_yield(out, &w.s, label);
		}
	}
}

static const uint16_t full_sizes[] = {8, 20, 40}, small_sizes[] = {8, 12};
static const struct am_variant full = {full_sizes, 3}, small = {small_sizes, 2};

static void full_malloc(const void *s, cmc_out *out) { do_malloc(&full, s, out); }
static void full_realloc(const void *s, cmc_out *out) { do_realloc(&full, s, out); }
static void small_malloc(const void *s, cmc_out *out) { do_malloc(&small, s, out); }
static void good_free(const void *s, cmc_out *out) { do_free(s, out, false); }
static void free_keep_bit(const void *s, cmc_out *out) { do_free(s, out, true); }

/* ---- invariants --------------------------------------------------------- */

/* Engine states may sit at any address: copy before reading fields. */
static void load(struct am_work *w, const void *s)
{
	memcpy(&w->s, s, sizeof w->s);
}

static bool holds_id(const void *s, const char *id)
{
	struct am_work w;
	load(&w, s);
	const struct am_state *st = &w.s;
	struct pool_view v;
	memcpy(&v.hdr, st->region, sizeof v.hdr);
	v.win = st->region + v.hdr.data_off;
	v.len = v.hdr.used - v.hdr.data_off;
	if (v.hdr.data_off > AM_REGION || v.hdr.used > AM_REGION || v.hdr.used < v.hdr.data_off)
		return false;
	for (unsigned i = 0; i < pool_n_invariants; i++) {
		if (strcmp(pool_invariants[i].id, id))
			continue;
		struct pool_msg m = {.len = 0};
		return pool_invariants[i].holds(&v, &m) != 0;
	}
	return false; /* a model invariant naming no validator */
}

#define AM_INV(n) \
	static bool inv_##n(const void *s) { return holds_id(s, "INV-" #n); }
AM_INV(1) AM_INV(2) AM_INV(3) AM_INV(4) AM_INV(5) AM_INV(6) AM_INV(7) AM_INV(8)
AM_INV(9) AM_INV(10) AM_INV(11) AM_INV(12) AM_INV(13) AM_INV(14) AM_INV(15) AM_INV(16)
AM_INV(24)

/* INV-18 (model part): every live block is 16-byte aligned in the region. */
static bool inv_aligned(const void *s)
{
	struct am_work w;
	load(&w, s);
	const struct am_state *st = &w.s;
	for (unsigned i = 0; i < AM_H; i++)
		if (st->off[i] % 16)
			return false;
	return true;
}

/* INV-19: live blocks lie in the units, do not overlap, and keep their
 * bytes (the allocator never hands out or poisons memory that is live). */
static bool inv_disjoint(const void *s)
{
	struct am_work w;
	load(&w, s);
	const struct am_state *st = &w.s;
	struct cmc_region_hdr h;
	memcpy(&h, st->region, sizeof h);
	for (unsigned i = 0; i < AM_H; i++) {
		if (!st->off[i])
			continue;
		if (st->off[i] + (uint64_t)st->req[i] > h.used)
			return false;
		for (unsigned j = 0; j < st->req[i]; j++)
			if (st->region[st->off[i] + j] != 0x10 + i)
				return false;
		for (unsigned k = i + 1; k < AM_H; k++)
			if (st->off[k] && st->off[k] < st->off[i] + st->req[i] + POOL_REDZONE &&
			    st->off[i] < st->off[k] + st->req[k] + POOL_REDZONE)
				return false;
	}
	return true;
}

#define AM_ENTRY(n) {"INV-" #n, inv_##n}
static const struct cmc_invariant am_invariants[] = {
	AM_ENTRY(1), AM_ENTRY(2), AM_ENTRY(3), AM_ENTRY(4), AM_ENTRY(5), AM_ENTRY(6),
	AM_ENTRY(7), AM_ENTRY(8), AM_ENTRY(9), AM_ENTRY(10), AM_ENTRY(11), AM_ENTRY(12),
	AM_ENTRY(13), AM_ENTRY(14), AM_ENTRY(15), AM_ENTRY(16), AM_ENTRY(24),
	{"INV-18 blocks aligned", inv_aligned},
	{"INV-19 live blocks disjoint and intact", inv_disjoint},
};

static void am_print(const void *s, FILE *out)
{
	struct am_work w;
	load(&w, s);
	const struct am_state *st = &w.s;
	struct cmc_region_hdr h;
	memcpy(&h, st->region, sizeof h);
	fprintf(out, "used %llu live_bytes %llu;", (unsigned long long)h.used,
		(unsigned long long)h.live_bytes);
	for (unsigned i = 0; i < AM_H; i++)
		if (st->off[i])
			fprintf(out, " h%u@%u:%u", i, st->off[i], st->req[i]);
		else
			fprintf(out, " h%u=null", i);
	fputc('\n', out);
}

static const struct cmc_action full_actions[] = {
	{"malloc", full_malloc},
	{"free", good_free},
	{"realloc", full_realloc},
};
static const struct cmc_action small_actions[] = {
	{"malloc", small_malloc},
	{"free", good_free},
};
static const struct cmc_action bug_actions[] = {
	{"malloc", small_malloc},
	{"free", free_keep_bit},
};

#define AM_MODEL(var, nm, sum, ini, acts)                                              \
	const struct cmc_model var = {                                                 \
		.abi = CMC_MODEL_ABI,                                                  \
		.name = nm,                                                            \
		.summary = sum,                                                        \
		.state_size = sizeof(struct am_state),                                 \
		.init = ini,                                                           \
		.actions = acts,                                                       \
		.n_actions = sizeof acts / sizeof acts[0],                             \
		.invariants = am_invariants,                                           \
		.n_invariants = sizeof am_invariants / sizeof am_invariants[0],        \
		.deadlock_ok = true,                                                   \
		.print = am_print,                                                     \
	}

AM_MODEL(cmc_model_alloc, "alloc",
	 "the pool allocator's own code: malloc/free/realloc of 3 sizes, 3 handles (preload/layout/pool.c)",
	 full_init, full_actions);
AM_MODEL(cmc_model_alloc_small, "alloc-small",
	 "the pool allocator: malloc/free of 2 sizes in one class, 3 handles (counted by hand)",
	 small_init, small_actions);
AM_MODEL(cmc_model_alloc_bug, "alloc-bug",
	 "the pool allocator with a planted bug: free keeps the bitmap bit (share/models/alloc.c)",
	 small_init, bug_actions);
#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_alloc; }
#endif
