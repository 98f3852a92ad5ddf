/*
 * record.c — the binary encoding of states and their outgoing transitions
 * inside state and edge blocks (see SCHEMA.md, "Blocks").  A block packs
 * the records of many consecutive states into one row, because a row per
 * state and per transition costs SQLite about a microsecond each, more
 * than the search spends finding the state.  Integers are LEB128 varints,
 * fingerprints 16 bytes big-endian (hi, lo).  Decoding is bounded by the
 * block's end: a damaged block yields an error, never a read past it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

void store_buf_reserve(struct store_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	b->p = eng_xrealloc(b->p, cap);
	b->cap = cap;
}

static inline void put_u(struct store_buf *b, uint64_t v)
{
	uint8_t *p = b->p + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->p);
}

static inline void put_fp(struct store_buf *b, eng_fp fp)
{
	store_fp_put(b->p + b->len, fp);
	b->len += 16;
}

static inline bool get_u(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	for (int shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t c = *p++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			*pp = p;
			return true;
		}
	}
	return false;
}

static inline bool get_u32(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
	uint64_t x;
	if (!get_u(pp, end, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static inline bool get_fp(const uint8_t **pp, const uint8_t *end, eng_fp *fp)
{
	if (end - *pp < 16)
		return false;
	fp->hi = fp->lo = 0;
	for (int i = 0; i < 8; i++) {
		fp->hi = fp->hi << 8 | (*pp)[i];
		fp->lo = fp->lo << 8 | (*pp)[8 + i];
	}
	*pp += 16;
	return true;
}

static inline uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzz(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* R_FILES: the observation ends with the state files' summary address
 * (process mode's state-file/state-dir); records without it read as
 * before. */
enum { R_STATUS = 3, R_OBS = 4, R_STATE = 8, R_FILES = 16 };

void store_rec_put(struct store_buf *b, const struct store_rec *r)
{
	bool files = r->has_obs && !eng_fp_zero(r->files_blob);
	store_buf_reserve(b, 64 + (r->has_obs ? 6 * 16 + 64 + r->fault_len : 0) + r->state_len);
	put_u(b, r->parent == ENG_NO_STATE ? 0 : (uint64_t)r->parent + 1);
	put_u(b, r->label);
	put_u(b, r->depth);
	put_fp(b, r->fp);
	b->p[b->len++] = (uint8_t)((r->status & R_STATUS) | (r->has_obs ? R_OBS : 0) |
				   (r->state ? R_STATE : 0) | (files ? R_FILES : 0));
	if (r->has_obs) {
		put_fp(b, r->raw_fp);
		put_fp(b, r->canon_fp);
		put_fp(b, r->raw_blob);
		put_fp(b, r->canon_blob);
		put_fp(b, r->reply_blob);
		put_u(b, r->obs_flags);
		put_u(b, zz(r->exit_status));
		put_u(b, zz(r->term_signal));
		put_u(b, r->alloc_checked);
		put_u(b, r->alloc_failed);
		put_u(b, r->fault_len);
		if (r->fault_len) /* fault may be NULL when empty */
			memcpy(b->p + b->len, r->fault, r->fault_len);
		b->len += r->fault_len;
		if (files)
			put_fp(b, r->files_blob);
	}
	if (r->state) {
		put_u(b, r->state_len);
		memcpy(b->p + b->len, r->state, r->state_len);
		b->len += r->state_len;
	}
}

const uint8_t *store_rec_get(const uint8_t *p, const uint8_t *end, struct store_rec *r)
{
	memset(r, 0, sizeof *r);
	uint64_t parent, v;
	if (!get_u(&p, end, &parent) || parent > UINT32_MAX || !get_u32(&p, end, &r->label) ||
	    !get_u32(&p, end, &r->depth) || !get_fp(&p, end, &r->fp) || p >= end)
		return NULL;
	r->parent = parent ? (uint32_t)(parent - 1) : ENG_NO_STATE;
	uint8_t flags = *p++;
	r->status = flags & R_STATUS;
	r->has_obs = flags & R_OBS;
	if (r->has_obs) {
		if (!get_fp(&p, end, &r->raw_fp) || !get_fp(&p, end, &r->canon_fp) ||
		    !get_fp(&p, end, &r->raw_blob) || !get_fp(&p, end, &r->canon_blob) ||
		    !get_fp(&p, end, &r->reply_blob) || !get_u(&p, end, &v))
			return NULL;
		r->obs_flags = (unsigned)v;
		if (!get_u(&p, end, &v))
			return NULL;
		r->exit_status = (int)unzz(v);
		if (!get_u(&p, end, &v))
			return NULL;
		r->term_signal = (int)unzz(v);
		if (!get_u32(&p, end, &r->alloc_checked) || !get_u32(&p, end, &r->alloc_failed) ||
		    !get_u(&p, end, &v) || v > (uint64_t)(end - p))
			return NULL;
		r->fault = (const char *)p;
		r->fault_len = (size_t)v;
		p += v;
		if ((flags & R_FILES) && !get_fp(&p, end, &r->files_blob))
			return NULL;
	}
	if (flags & R_STATE) {
		if (!get_u(&p, end, &v) || v > (uint64_t)(end - p))
			return NULL;
		r->state = p;
		r->state_len = (size_t)v;
		p += v;
	}
	return p;
}

/* Edge record: src, count, has-reply byte, then per edge (label << 1 | new),
 * dst and, with replies, the reply's content address. */
void store_erec_put(struct store_buf *b, uint32_t src, const struct store_edge_raw *e, size_t n)
{
	bool reply = false;
	for (size_t i = 0; i < n && !reply; i++)
		reply = !eng_fp_zero(e[i].reply);
	store_buf_reserve(b, 16 + n * (reply ? 36 : 20));
	put_u(b, src);
	put_u(b, n);
	b->p[b->len++] = reply;
	for (size_t i = 0; i < n; i++) {
		put_u(b, (uint64_t)e[i].label << 1 | e[i].new_state);
		put_u(b, e[i].dst);
		if (reply)
			put_fp(b, e[i].reply);
	}
}

const uint8_t *store_erec_head(const uint8_t *p, const uint8_t *end, uint32_t *src, uint32_t *n,
			       bool *reply)
{
	if (!get_u32(&p, end, src) || !get_u32(&p, end, n) || p >= end)
		return NULL;
	*reply = *p++ != 0;
	return p;
}

const uint8_t *store_erec_edge(const uint8_t *p, const uint8_t *end, bool reply,
			       struct store_edge_raw *e)
{
	uint64_t l;
	if (!get_u(&p, end, &l) || (l >> 1) > INT64_MAX || !get_u32(&p, end, &e->dst))
		return NULL;
	e->label = (int64_t)(l >> 1);
	e->new_state = l & 1;
	e->reply = (eng_fp){0, 0};
	if (reply && !get_fp(&p, end, &e->reply))
		return NULL;
	return p;
}
