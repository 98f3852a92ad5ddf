/*
 * handoff.h — the entries the listener hands the writer thread (handoff.c
 * says why).  Native byte order, never stored.  Each is a tag byte, then
 *   'S' struct handoff_state [struct handoff_obs, fault bytes] [state bytes]
 *   'E' struct handoff_edges, n struct handoff_edge [n reply addresses]
 *       (transitions out of one state, in generation order)
 *   'F' the expansion the 'E' entries since the last 'F' belong to is over
 *   'B' struct handoff_blob, then len bytes (npages 0) or npages page hashes:
 *       an observation's content, new to the run (put_blob() in write.c),
 *       before the entry that names it
 *   'P' struct handoff_page, len bytes: a page of a paged 'B', new to the
 *       run, before the 'B' naming it
 * The writers are inline: they run once per state and per transition.
 */
#ifndef CMC_STORE_HANDOFF_H
#define CMC_STORE_HANDOFF_H

#include <string.h>

#include "internal.h"

/* packed: every byte handed over is a cache line the writer's core pulls
 * from ours (entries are only ever memcpy'd, never accessed in place) */
struct __attribute__((packed)) handoff_state {
	uint32_t parent, label, depth, state_len;
	eng_fp fp;
	uint8_t status, has_obs, has_state;
};

struct handoff_obs {
	eng_fp raw_fp, canon_fp, raw_blob, canon_blob, reply_blob, files_blob;
	uint32_t obs_flags, alloc_checked, alloc_failed, fault_len;
	int32_t exit_status, term_signal;
};

struct __attribute__((packed)) handoff_edges {
	uint32_t src, n;
	uint8_t reply;
};

struct handoff_blob {
	eng_fp hash;
	uint64_t full_len;
	uint32_t len;              /* bytes kept: at most the store's cap */
	uint32_t npages;           /* 0: the bytes follow; else their page hashes */
};

struct handoff_page {
	eng_fp hash;
	uint32_t len;              /* at most STORE_PAGE */
};

/* labels.id < 2^31 (label_id() refuses more); the top bit: a new state */
struct handoff_edge {
	uint32_t label_new, dst;
};
#define HANDOFF_NEW 0x80000000u

static inline void handoff_reserve(struct store_buf *b, size_t n)
{
	if (b->len + n > b->cap)
		store_buf_reserve(b, n);
}

static inline void handoff_put(struct store_buf *b, const void *p, size_t n)
{
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* An 'E' entry's head; the caller reserved room for it and its n edges
 * (and replies). */
static inline void handoff_edges_head(struct store_buf *b, uint32_t src, uint32_t n, bool reply)
{
	struct handoff_edges h = {src, n, reply};
	b->p[b->len++] = 'E';
	handoff_put(b, &h, sizeof h);
}

static inline void handoff_edge(struct store_buf *b, uint32_t label, uint32_t dst, bool fresh)
{
	struct handoff_edge x = {label | (fresh ? HANDOFF_NEW : 0), dst};
	handoff_put(b, &x, sizeof x);
}

static inline void handoff_blob(struct store_buf *b, eng_fp hash, size_t full_len, const void *p,
				size_t len)
{
	handoff_reserve(b, 1 + sizeof(struct handoff_blob) + len);
	struct handoff_blob x = {hash, full_len, (uint32_t)len, 0};
	b->p[b->len++] = 'B';
	handoff_put(b, &x, sizeof x);
	handoff_put(b, p, len);
}

/* pages: npages hashes of 16 bytes each, as stored (big-endian). */
static inline void handoff_blob_paged(struct store_buf *b, eng_fp hash, size_t full_len, size_t len,
				      const uint8_t *pages, size_t npages)
{
	handoff_reserve(b, 1 + sizeof(struct handoff_blob) + npages * 16);
	struct handoff_blob x = {hash, full_len, (uint32_t)len, (uint32_t)npages};
	b->p[b->len++] = 'B';
	handoff_put(b, &x, sizeof x);
	handoff_put(b, pages, npages * 16);
}

static inline void handoff_page(struct store_buf *b, eng_fp hash, const void *p, size_t len)
{
	handoff_reserve(b, 1 + sizeof(struct handoff_page) + len);
	struct handoff_page x = {hash, (uint32_t)len};
	b->p[b->len++] = 'P';
	handoff_put(b, &x, sizeof x);
	handoff_put(b, p, len);
}

static inline size_t handoff_edges_size(size_t n, bool reply)
{
	return 1 + sizeof(struct handoff_edges) + n * (sizeof(struct handoff_edge) + (reply ? 16 : 0));
}

void store_handoff_state_obs(struct store_buf *b, const struct store_rec *r);

/* An 'S' entry without an observation (a model's state; inline, as it
 * runs once per state). */
static inline void handoff_state_plain(struct store_buf *b, uint32_t parent, uint32_t label,
				       uint32_t depth, eng_fp fp, int status, const void *state,
				       size_t state_len)
{
	handoff_reserve(b, 1 + sizeof(struct handoff_state) + state_len);
	struct handoff_state s = {parent, label, depth, (uint32_t)state_len, fp, (uint8_t)status,
			      false, state != NULL};
	b->p[b->len++] = 'S';
	handoff_put(b, &s, sizeof s);
	if (state)
		handoff_put(b, state, state_len);
}

static inline void store_handoff_finish(struct store_buf *b)
{
	handoff_reserve(b, 1);
	b->p[b->len++] = 'F';
}

/* Writer thread: apply a buffer of entries; false on a damaged entry or a
 * failed insert (store failed). */
bool store_handoff_apply(store *st, const uint8_t *p, size_t len);
/* Writer thread: finish the expansion gathered and insert both blocks. */
bool store_handoff_flush(store *st);
/* Transitions written so far (the taken counts summed). */
uint64_t store_handoff_transitions(const store *st);
/* The writer's counters (also set while no writer thread runs). */
void store_count_level(store *st, uint32_t depth, uint32_t id);
void store_count_taken(store *st, int64_t label);

#endif
