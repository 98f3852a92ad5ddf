/*
 * heapgraph.c — `hash heap-graph` (heapgraph.h): the target's heap walked
 * as a graph from the executable's writable segments, and hashed in a form
 * that does not depend on where the allocator put the blocks.  Owns the
 * walk's scratch (struct proc_hg, one per observation buffer) and the run's
 * totals (how many words were taken as pointers, how many blocks reached).
 *
 * Everything read is untrusted target memory: the blocks come from the
 * pool's metadata through pool_chunks() (bounds-checked against the copy
 * of the window), every block found is checked to lie inside the window
 * and after the one before it, and the walk visits each block once (its
 * number is its visited mark), so a cycle, a pointer into a freed slot
 * (not a live block: left as bytes) or a corrupt chunk cannot make it loop
 * or read outside what was copied.  Its work is bounded by
 * PROC_HG_MAX_BLOCKS and PROC_HG_MAX_BYTES.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "layout/pool.h"
#include "heapgraph.h"
#include "proc.h"
#include "util.h"

/* One live block, by its address in the target. */
struct hg_block {
	uint64_t addr;
	uint64_t len;           /* requested size */
	uint32_t num;           /* 0: not reached yet; else its place in the walk (1-based) */
};

/*
 * The walk's scratch, reused from one observation to the next.
 * Invariants: b[0 .. n) are sorted by addr and disjoint with a byte between
 * them (b[i].addr + b[i].len < b[i + 1].addr: the pool's redzone), so the
 * word values that name b[i] — [addr, addr + len], one past the end
 * included — name no other block; n <= PROC_HG_MAX_BLOCKS; during a walk,
 * order[0 .. nq) are the indexes of the blocks reached so far, b[order[k]].num
 * == k + 1, and every other block has num == 0.
 */
struct proc_hg {
	struct hg_block *b;
	size_t n, cap;
	uint32_t *order;
	size_t nq, ocap;
	uint8_t *buf;           /* one region's bytes, pointers replaced */
	size_t bufcap;
	uint64_t *ptrs;         /* that region's pointers: (word offset, offset into target) */
	size_t pcap;
	bool over;              /* a bound was passed while indexing */
};

/* proc_hg_record(): where walks write their graph, or NULL (the usual:
 * searches record nothing).  One thread at a time walks while it is set
 * (a replay of one trace), so the pointer and the table need no lock. */
static proc_hg_table *rec;

void proc_hg_record(proc_hg_table *t) { rec = t; }

void proc_hg_table_clear(proc_hg_table *t)
{
	free(t->roots);
	free(t->blocks);
	free(t->edges);
	memset(t, 0, sizeof *t);
}

static void rec_edge(uint32_t from, uint32_t root, uint64_t off, uint32_t to, uint64_t to_off)
{
	if (rec->n_edges == rec->edge_cap) {
		rec->edge_cap = rec->edge_cap ? 2 * rec->edge_cap : 64;
		rec->edges = eng_xrealloc(rec->edges, rec->edge_cap * sizeof *rec->edges);
	}
	rec->edges[rec->n_edges++] = (proc_hg_edge){from, root, off, to, to_off};
}

static _Atomic uint64_t tot_walks, tot_over, tot_live, tot_reached, tot_pointers, tot_words,
	tot_bytes, tot_ns;

void proc_hg_totals(struct proc_hg_stats *out)
{
	out->walks = atomic_load(&tot_walks);
	out->over = atomic_load(&tot_over);
	out->live = atomic_load(&tot_live);
	out->reached = atomic_load(&tot_reached);
	out->pointers = atomic_load(&tot_pointers);
	out->words = atomic_load(&tot_words);
	out->bytes = atomic_load(&tot_bytes);
	out->ns = atomic_load(&tot_ns);
}

void proc_hg_free(struct proc_hg *g)
{
	if (!g)
		return;
	free(g->b);
	free(g->order);
	free(g->buf);
	free(g->ptrs);
	free(g);
}

/* ---- the live blocks -------------------------------------------------- */

struct index_ctx {
	struct proc_hg *g;
	uint64_t base;          /* the region's address in the target */
};

static void add_block(struct proc_hg *g, uint64_t addr, uint64_t len)
{
	if (g->over)
		return;
	if (g->n && addr <= g->b[g->n - 1].addr + g->b[g->n - 1].len)
		return; /* out of order or overlapping: corrupt metadata, not a block */
	if (g->n == PROC_HG_MAX_BLOCKS) {
		g->over = true;
		return;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->b = eng_xrealloc(g->b, g->cap * sizeof *g->b);
	}
	g->b[g->n++] = (struct hg_block){addr, len, 0};
}

/* pool_chunks() callback: the live blocks of one chunk, in address order.
 * Only a chunk whose bytes are all in the copied window is used, and only
 * geometry that fits inside it. */
static void index_chunk(void *ctx, const struct pool_chunk_info *ci)
{
	struct index_ctx *x = ctx;
	if (!ci->bytes || !ci->n_slots)
		return;
	uint64_t at = x->base + ci->off + ci->payload_off;
	if (ci->kind != POOL_K_CLASS) {
		add_block(x->g, at, ci->c.req); /* pool_chunks() checked req fits the span */
		return;
	}
	uint64_t n = ci->n_slots;
	if (ci->bitmap_off + (n + 7) / 8 > ci->span || ci->sizes_off + 2 * n > ci->span ||
	    ci->payload_off + n * ci->slot_size > ci->span)
		return;
	const uint8_t *bm = ci->bytes + ci->bitmap_off, *sz = ci->bytes + ci->sizes_off;
	for (uint32_t i = 0; i < n; i++) {
		if (!((bm[i / 8] >> (i % 8)) & 1))
			continue;
		uint32_t s = (uint32_t)sz[2 * i] | (uint32_t)sz[2 * i + 1] << 8;
		if (s && s - 1 < ci->slot_size) /* requested + 1, with room for the redzone */
			add_block(x->g, at + (uint64_t)i * ci->slot_size, s - 1);
	}
}

/* The block word value v names (its start to one past its end), or -1. */
static int64_t find_block(const struct proc_hg *g, uint64_t v)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) { /* the first block starting above v */
		size_t mid = lo + (hi - lo) / 2;
		if (g->b[mid].addr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct hg_block *b = &g->b[lo - 1];
	return v - b->addr <= b->len ? (int64_t)(lo - 1) : -1;
}

/* ---- the walk --------------------------------------------------------- */

static void *room(void *p, size_t *cap, size_t want, size_t elem)
{
	if (want <= *cap)
		return p;
	size_t c = *cap ? *cap : 64;
	while (c < want)
		c *= 2;
	*cap = c;
	return eng_xrealloc(p, c * elem);
}

/*
 * Hash one region (a root or a block) whose len bytes, at addr in the
 * target, are in g->buf: every aligned word that names a live block is
 * replaced by that block's number (numbering and queueing it when first
 * reached) and listed with its offset into the block, and the bytes, then
 * the list, go into the hash.  The list is what tells a pointer from an
 * integer that equals a block number.
 */
static void hash_region(struct proc_hg *g, XXH3_state_t *st, uint64_t tag, uint32_t src,
			uint64_t addr, uint64_t len, struct proc_hg_stats *s)
{
	size_t np = 0;
	uint64_t lo = g->n ? g->b[0].addr : 1, hi = g->n ? g->b[g->n - 1].addr + g->b[g->n - 1].len : 0;
	for (uint64_t off = (8 - addr % 8) % 8; off + 8 <= len; off += 8) {
		uint64_t v;
		memcpy(&v, g->buf + off, 8);
		s->words++;
		if (v < lo || v > hi)
			continue;
		int64_t j = find_block(g, v);
		if (j < 0)
			continue;
		struct hg_block *b = &g->b[j];
		if (!b->num) {
			g->order[g->nq++] = (uint32_t)j; /* nq < n: each block is queued once */
			b->num = (uint32_t)g->nq;
		}
		uint64_t num = b->num;
		if (rec) /* src: a root's index (tag 1) or a block's number */
			rec_edge(tag == 1 ? 0 : src, tag == 1 ? src : 0, off, b->num, v - b->addr);
		memcpy(g->buf + off, &num, 8);
		g->ptrs = room(g->ptrs, &g->pcap, 2 * np + 2, sizeof *g->ptrs);
		g->ptrs[2 * np] = off;
		g->ptrs[2 * np + 1] = v - b->addr;
		np++;
		s->pointers++;
	}
	uint64_t hdr[3] = {tag, len, np};
	XXH3_128bits_update(st, hdr, sizeof hdr);
	XXH3_128bits_update(st, g->buf, (size_t)len);
	if (np)
		XXH3_128bits_update(st, g->ptrs, np * 2 * sizeof *g->ptrs);
	s->bytes += len;
}

static int read_mem(int fd, uint8_t *dst, uint64_t addr, uint64_t len)
{
	uint64_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, dst + got, (size_t)(len - got), (off_t)(addr + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (uint64_t)r;
	}
	return 0;
}

/* No form for this state: why, in obs->hg_msg; counted as a walk past a bound. */
static int fail(struct proc_obs *obs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct proc_obs *obs, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(obs->hg_msg, sizeof obs->hg_msg, fmt, ap);
	va_end(ap);
	if (rec) {
		rec->have = false;
		snprintf(rec->why, sizeof rec->why, "%s", obs->hg_msg);
	}
	atomic_fetch_add(&tot_walks, 1);
	atomic_fetch_add(&tot_over, 1);
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int walk(struct proc_target *t, const struct proc_image *img,
		const struct cmc_region_hdr *h, const uint8_t *win, struct proc_obs *obs);

int proc_hg_observe(struct proc_target *t, const struct proc_image *img,
		    const struct cmc_region_hdr *h, const uint8_t *win, struct proc_obs *obs)
{
	uint64_t t0 = now_ns();
	int r = walk(t, img, h, win, obs);
	atomic_fetch_add(&tot_ns, now_ns() - t0);
	return r;
}

static int walk(struct proc_target *t, const struct proc_image *img,
		const struct cmc_region_hdr *h, const uint8_t *win, struct proc_obs *obs)
{
	struct proc_hg_stats s = {0};
	obs->hg_msg[0] = 0;
	if (h->alloc_kind != CMC_ALLOC_POOL)
		return fail(obs, "heap-graph: the heap is not the preload's pool (kind %u)",
			    h->alloc_kind);
	uint64_t wlen = h->used - h->data_off;
	if (!win) {
		if (wlen > PROC_HG_MAX_BYTES)
			return fail(obs, "heap-graph: heap window of %llu bytes, over the bound",
				    (unsigned long long)wlen);
		obs->win.len = 0;
		uint8_t *w = proc_buf_room(&obs->win, (size_t)wlen + 1);
		if (read_mem(t->mem_fd, w, h->base + h->data_off, wlen) < 0)
			return fail(obs, "heap-graph: heap window unreadable (%llu bytes)",
				    (unsigned long long)wlen);
		win = w;
	}
	if (!obs->hg)
		obs->hg = eng_xcalloc(1, sizeof *obs->hg);
	struct proc_hg *g = obs->hg;
	g->n = g->nq = 0;
	g->over = false;
	struct pool_view v = {.hdr = *h, .win = win, .len = wlen};
	struct index_ctx x = {g, h->base};
	if (pool_chunks(&v, index_chunk, &x) < 0)
		return fail(obs, "heap-graph: the pool's metadata is unreadable (INV-1)");
	if (g->over)
		return fail(obs, "heap-graph: more than %llu live blocks",
			    (unsigned long long)PROC_HG_MAX_BLOCKS);
	g->order = room(g->order, &g->ocap, g->n + 1, sizeof *g->order);

	if (rec) {
		rec->have = false;
		rec->n_roots = rec->n_blocks = rec->n_edges = 0;
		rec->live = g->n;
		rec->roots = eng_xrealloc(rec->roots, (img->nroots + 1) * sizeof *rec->roots);
	}
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	uint64_t roots = 0;
	for (size_t i = 0; i < img->nroots; i++) {
		const struct proc_range *r = &img->roots[i];
		uint64_t a = r->addr + (img->pie ? t->load_base : 0);
		roots += r->len;
		if (roots > PROC_HG_MAX_BYTES)
			return fail(obs, "heap-graph: roots of more than %llu bytes",
				    (unsigned long long)PROC_HG_MAX_BYTES);
		g->buf = room(g->buf, &g->bufcap, (size_t)r->len + 8, 1);
		if (read_mem(t->mem_fd, g->buf, a, r->len) < 0)
			return fail(obs, "heap-graph: a root at 0x%llx is unreadable",
				    (unsigned long long)a);
		if (rec)
			rec->roots[rec->n_roots++] = (proc_hg_region){a, r->len};
		hash_region(g, &st, 1, (uint32_t)i, a, r->len, &s);
	}
	/* Breadth first: the queue grows as hash_region() numbers blocks. */
	uint64_t wlo = h->base + h->data_off;
	for (size_t k = 0; k < g->nq; k++) {
		const struct hg_block *b = &g->b[g->order[k]];
		/* inside the window: index_chunk() took only chunks within it */
		g->buf = room(g->buf, &g->bufcap, (size_t)b->len + 8, 1);
		memcpy(g->buf, win + (b->addr - wlo), (size_t)b->len);
		hash_region(g, &st, 2, (uint32_t)(k + 1), b->addr, b->len, &s);
	}
	if (rec) {
		rec->blocks = eng_xrealloc(rec->blocks, (g->nq + 1) * sizeof *rec->blocks);
		for (size_t k = 0; k < g->nq; k++)
			rec->blocks[k] = (proc_hg_region){g->b[g->order[k]].addr, g->b[g->order[k]].len};
		rec->n_blocks = g->nq;
		rec->have = true;
		rec->why[0] = 0;
	}
	XXH128_hash_t d = XXH3_128bits_digest(&st);
	obs->e.canon = (eng_fp){d.high64, d.low64};
	if (eng_fp_zero(obs->e.canon))
		obs->e.canon.lo = 1;
	atomic_fetch_add(&tot_walks, 1);
	atomic_fetch_add(&tot_live, g->n);
	atomic_fetch_add(&tot_reached, g->nq);
	atomic_fetch_add(&tot_pointers, s.pointers);
	atomic_fetch_add(&tot_words, s.words);
	atomic_fetch_add(&tot_bytes, s.bytes);
	return 0;
}
