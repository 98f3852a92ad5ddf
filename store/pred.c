/*
 * pred.c — the reverse index that answers "which transitions lead into
 * state X" without scanning the run (schema version 3, table pred_blocks).
 *
 * Writing: the writer thread decodes every edge block it inserts and
 * appends (dst, src) pairs to a buffer per bucket of STORE_PRED_SPAN
 * destination ids; at each commit point the non-empty buffers become rows
 * (run, bucket, data) in the same transaction as the edge blocks they
 * index, so a committed database has a pred row for every committed edge
 * block and no other.  The search thread never sees any of it.
 *
 * Reading: the rows of X's bucket give the sources with an edge into X;
 * their own edge records (store_edges_raw) give the labels and replies.
 * Runs written before version 3 (runs.pred_index = 0) are scanned instead.
 *
 * Row data: repeated (varint dst - bucket * STORE_PRED_SPAN, varint src).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

static inline void put_u(struct store_buf *b, uint64_t v)
{
	if (b->len + 10 > b->cap)
		store_buf_reserve(b, 10);
	uint8_t *p = b->p + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->p);
}

static bool get_u32(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	for (int shift = 0; p < end && shift < 35; shift += 7) {
		uint8_t c = *p++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			if (r > UINT32_MAX)
				return false;
			*v = (uint32_t)r;
			*pp = p;
			return true;
		}
	}
	return false;
}

/* ---- writer thread -------------------------------------------------------- */

void store_pred_add_block(store *st, const uint8_t *p, size_t len)
{
	if (!st->pred_on)
		return;
	const uint8_t *end = p + len;
	while (p && p < end) {
		uint32_t src, n;
		bool reply;
		p = store_erec_head(p, end, &src, &n, &reply);
		for (uint32_t i = 0; p && i < n; i++) {
			struct store_edge_raw e;
			if (!(p = store_erec_edge(p, end, reply, &e)))
				break;
			size_t b = e.dst / STORE_PRED_SPAN;
			if (b >= st->npred) {
				size_t nn = st->npred ? st->npred : 64;
				while (nn <= b)
					nn *= 2;
				st->pred = eng_xrealloc(st->pred, nn * sizeof *st->pred);
				memset(st->pred + st->npred, 0, (nn - st->npred) * sizeof *st->pred);
				st->npred = nn;
			}
			put_u(&st->pred[b], e.dst % STORE_PRED_SPAN);
			put_u(&st->pred[b], src);
		}
	}
}

bool store_pred_flush(store *st, int64_t run)
{
	for (size_t b = 0; b < st->npred; b++) {
		struct store_buf *buf = &st->pred[b];
		if (!buf->len)
			continue;
		sqlite3_stmt *s = st->q[Q_PRED_INSERT];
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)b);
		sqlite3_bind_blob64(s, 3, buf->p, buf->len, SQLITE_STATIC);
		int rc = store_sqlite_step(st, s);
		store_q_done(s);
		buf->len = 0;
		if (rc != SQLITE_DONE)
			return false;
	}
	return true;
}

void store_pred_reset(store *st)
{
	for (size_t b = 0; b < st->npred; b++)
		st->pred[b].len = 0;
}

void store_pred_free(store *st)
{
	for (size_t b = 0; b < st->npred; b++)
		free(st->pred[b].p);
	free(st->pred);
	st->pred = NULL;
	st->npred = 0;
}

/* ---- reading -------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* 1: the run has no index (written before schema version 3). */
static int has_index(store *st, int64_t run)
{
	sqlite3_stmt *s = store_q(st, Q_PRED_ON);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	int on = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0);
	store_q_done(s);
	return on ? 0 : 1;
}

int store_pred_sources(store *st, int64_t run, uint32_t id, uint32_t **srcs, size_t *n)
{
	*srcs = NULL;
	*n = 0;
	int rc = has_index(st, run);
	if (rc)
		return rc;
	sqlite3_stmt *s = store_q(st, Q_PRED_AT);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, id / STORE_PRED_SPAN);
	uint32_t want = id % STORE_PRED_SPAN;
	size_t cap = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const uint8_t *p = sqlite3_column_blob(s, 0);
		const uint8_t *end = p ? p + sqlite3_column_bytes(s, 0) : p; /* empty: NULL */
		while (p && p < end) {
			uint32_t dst, src;
			if (!get_u32(&p, end, &dst) || !get_u32(&p, end, &src)) {
				store_q_done(s);
				free(*srcs);
				*srcs = NULL;
				*n = 0;
				snprintf(st->err, sizeof st->err,
					 "%s: run %lld: a block of the predecessor index is damaged",
					 st->path, (long long)run);
				return -1;
			}
			if (dst != want)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				*srcs = eng_xrealloc(*srcs, cap * sizeof **srcs);
			}
			(*srcs)[(*n)++] = src;
		}
	}
	if (rc != SQLITE_DONE) {
		free(*srcs);
		*srcs = NULL;
		*n = 0;
		store_q_done(s);
		return store_fail(st, "read the predecessor index");
	}
	store_q_done(s);
	/* sources in id order, each once */
	if (*n)
		qsort(*srcs, *n, sizeof **srcs, cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (!k || (*srcs)[k - 1] != (*srcs)[i])
			(*srcs)[k++] = (*srcs)[i];
	*n = k;
	return 0;
}
