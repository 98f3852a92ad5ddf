/*
 * handoff.c — how a run's states and transitions cross from the search thread
 * to the writer thread.  The listener's callbacks run once per state and
 * once per expansion on the thread the search is measured by, so they only
 * copy what the engine reports, fixed-width, into a hand-off buffer
 * (entries in handoff.h); the writer thread turns the entries into the
 * state and edge blocks of record.c, counts states per depth and
 * transitions per operation, and inserts full blocks.  Entries are in the order the
 * listener saw them, so the writer rebuilds exactly what encoding on the
 * search thread would have built.
 */
#include <stdlib.h>
#include <string.h>

#include "handoff.h"
#include "engine/util.h"

/* ---- the search thread ---------------------------------------------------- */

void store_handoff_state_obs(struct store_buf *b, const struct store_rec *r)
{
	handoff_reserve(b, 1 + sizeof(struct handoff_state) + sizeof(struct handoff_obs) + r->fault_len +
				     r->state_len);
	struct handoff_state s = {r->parent,  r->label, r->depth,	     (uint32_t)r->state_len,
			      r->fp,	  (uint8_t)r->status, r->has_obs, r->state != NULL};
	b->p[b->len++] = 'S';
	handoff_put(b, &s, sizeof s);
	if (r->has_obs) {
		struct handoff_obs o = {r->raw_fp,
				    r->canon_fp,
				    r->raw_blob,
				    r->canon_blob,
				    r->reply_blob,
				    r->files_blob,
				    r->obs_flags,
				    r->alloc_checked,
				    r->alloc_failed,
				    (uint32_t)r->fault_len,
				    r->exit_status,
				    r->term_signal};
		handoff_put(b, &o, sizeof o);
		if (r->fault_len)
			handoff_put(b, r->fault, r->fault_len);
	}
	if (r->state)
		handoff_put(b, r->state, r->state_len);
}


/* ---- the writer thread ---------------------------------------------------- */

void store_count_taken(store *st, int64_t label)
{
	if ((size_t)label >= st->ntaken) {
		size_t n = st->ntaken ? st->ntaken : 16;
		while (n <= (size_t)label)
			n *= 2;
		st->taken = eng_xrealloc(st->taken, n * sizeof *st->taken);
		memset(st->taken + st->ntaken, 0, (n - st->ntaken) * sizeof *st->taken);
		st->ntaken = n;
	}
	st->taken[label]++;
}

void store_count_level(store *st, uint32_t depth, uint32_t id)
{
	if (depth >= st->nlvl) {
		size_t n = st->nlvl ? st->nlvl : 64;
		while (n <= depth)
			n *= 2;
		st->lvl_count = eng_xrealloc(st->lvl_count, n * sizeof *st->lvl_count);
		st->lvl_first = eng_xrealloc(st->lvl_first, n * sizeof *st->lvl_first);
		memset(st->lvl_count + st->nlvl, 0, (n - st->nlvl) * sizeof *st->lvl_count);
		for (size_t i = st->nlvl; i < n; i++)
			st->lvl_first[i] = ENG_NO_STATE;
		st->nlvl = n;
	}
	st->lvl_count[depth]++;
	if (id < st->lvl_first[depth])
		st->lvl_first[depth] = id;
}

/* Transitions written so far: the taken counts sum them. */
uint64_t store_handoff_transitions(const store *st)
{
	uint64_t n = 0;
	for (size_t l = 0; l < st->ntaken; l++)
		n += st->taken[l];
	return n - st->ncur;
}

static bool put_states(store *st)
{
	if (!st->sblk_count)
		return true;
	sqlite3_stmt *s = st->q[Q_SBLOCK_INSERT];
	sqlite3_bind_int64(s, 1, st->run);
	sqlite3_bind_int64(s, 2, st->sblk_first);
	sqlite3_bind_int64(s, 3, st->sblk_count);
	sqlite3_bind_blob64(s, 4, st->sblk.p, st->sblk.len, SQLITE_STATIC);
	if (!store_step(st, s, "write states"))
		return false;
	st->sblk_first += st->sblk_count;
	st->sblk_count = 0;
	st->sblk.len = 0;
	return true;
}

static bool put_edges(store *st)
{
	if (!st->eblk_count)
		return true;
	sqlite3_stmt *s = st->q[Q_EBLOCK_INSERT];
	sqlite3_bind_int64(s, 1, st->run);
	sqlite3_bind_int64(s, 2, st->eblk_seq);
	sqlite3_bind_int64(s, 3, st->eblk_min);
	sqlite3_bind_int64(s, 4, st->eblk_max);
	sqlite3_bind_int64(s, 5, st->eblk_count);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)st->eblk_edges);
	sqlite3_bind_blob64(s, 7, st->eblk.p, st->eblk.len, SQLITE_STATIC);
	if (!store_step(st, s, "write transitions"))
		return false;
	store_pred_add_block(st, st->eblk.p, st->eblk.len);
	st->eblk_seq++;
	st->eblk_count = 0;
	st->eblk_edges = 0;
	st->eblk.len = 0;
	return true;
}

/* The expansion being gathered is over: its edges join the edge block. */
static bool finish(store *st)
{
	if (st->w_src == ENG_NO_STATE)
		return true;
	if (st->eblk_count && st->eblk.len + 16 + st->ncur * 36 > STORE_BLOCK_BYTES &&
	    !put_edges(st))
		return false;
	if (st->rows_on && !store_rows_edges(st, st->run, st->w_src, st->cur, st->ncur))
		return false;
	store_erec_put(&st->eblk, st->w_src, st->cur, st->ncur);
	if (!st->eblk_count || st->w_src < st->eblk_min)
		st->eblk_min = st->w_src;
	if (!st->eblk_count || st->w_src > st->eblk_max)
		st->eblk_max = st->w_src;
	st->eblk_count++;
	st->eblk_edges += st->ncur;
	st->ncur = 0;
	st->w_src = ENG_NO_STATE;
	return true;
}

/* Decode with bounds: the buffer is ours, but a bug here must not read
 * past it. */
#define TAKE(dst, n)                                                                               \
	do {                                                                                       \
		if ((size_t)(end - p) < (n))                                                       \
			return false;                                                              \
		memcpy((dst), p, (n));                                                             \
		p += (n);                                                                          \
	} while (0)

bool store_handoff_apply(store *st, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	while (p < end) {
		uint8_t tag = *p++;
		if (tag == 'S') {
			struct handoff_state s;
			struct handoff_obs o;
			TAKE(&s, sizeof s);
			struct store_rec r = {.parent = s.parent,
					      .label = s.label,
					      .depth = s.depth,
					      .fp = s.fp,
					      .status = s.status,
					      .has_obs = s.has_obs};
			if (s.has_obs) {
				TAKE(&o, sizeof o);
				r.raw_fp = o.raw_fp;
				r.canon_fp = o.canon_fp;
				r.raw_blob = o.raw_blob;
				r.canon_blob = o.canon_blob;
				r.reply_blob = o.reply_blob;
				r.files_blob = o.files_blob;
				r.obs_flags = o.obs_flags;
				r.exit_status = o.exit_status;
				r.term_signal = o.term_signal;
				r.alloc_checked = o.alloc_checked;
				r.alloc_failed = o.alloc_failed;
				if ((size_t)(end - p) < o.fault_len)
					return false;
				r.fault = (const char *)p;
				r.fault_len = o.fault_len;
				p += o.fault_len;
			}
			if (s.has_state) {
				if ((size_t)(end - p) < s.state_len)
					return false;
				r.state = p;
				r.state_len = s.state_len;
				p += s.state_len;
			}
			/* A block stays within one page unless one record is larger. */
			size_t bound = 64 + (r.has_obs ? 5 * 16 + 64 + r.fault_len : 0) + r.state_len;
			if (st->sblk_count && st->sblk.len + bound > STORE_BLOCK_BYTES &&
			    !put_states(st))
				return false;
			if (st->rows_on &&
			    !store_rows_state(st, st->run, st->sblk_first + st->sblk_count, &r))
				return false;
			store_rec_put(&st->sblk, &r);
			store_count_level(st, r.depth, st->sblk_first + st->sblk_count);
			st->sblk_count++;
		} else if (tag == 'E') {
			struct handoff_edges h;
			TAKE(&h, sizeof h);
			if (h.src != st->w_src && !finish(st))
				return false;
			st->w_src = h.src;
			if ((size_t)(end - p) / sizeof(struct handoff_edge) < h.n)
				return false;
			if (st->ncur + h.n > st->capcur) {
				while (st->ncur + h.n > st->capcur)
					st->capcur = st->capcur ? st->capcur * 2 : 64;
				st->cur = eng_xrealloc(st->cur, st->capcur * sizeof *st->cur);
			}
			struct store_edge_raw *e = st->cur + st->ncur;
			for (uint32_t i = 0; i < h.n; i++) {
				struct handoff_edge x;
				memcpy(&x, p, sizeof x);
				p += sizeof x;
				int64_t l = x.label_new & ~HANDOFF_NEW;
				e[i] = (struct store_edge_raw){l, x.dst, (x.label_new & HANDOFF_NEW) != 0,
							       {0, 0}};
				store_count_taken(st, l);
			}
			for (uint32_t i = 0; h.reply && i < h.n; i++)
				TAKE(&e[i].reply, sizeof e[i].reply);
			st->ncur += h.n;
		} else if (tag == 'B') {
			struct handoff_blob b;
			TAKE(&b, sizeof b);
			size_t n = b.npages ? (size_t)b.npages * 16 : b.len;
			if ((size_t)(end - p) < n)
				return false;
			sqlite3_stmt *q = st->q[Q_BLOB_INSERT];
			store_bind_fp(q, 1, b.hash);
			sqlite3_bind_int64(q, 2, (sqlite3_int64)b.full_len);
			if (b.npages) {
				sqlite3_bind_zeroblob(q, 3, 0);
				sqlite3_bind_blob64(q, 4, p, n, SQLITE_STATIC);
			} else {
				sqlite3_bind_blob64(q, 3, p, n, SQLITE_STATIC);
				sqlite3_bind_null(q, 4);
			}
			p += n;
			if (!store_step(st, q, "insert observation"))
				return false;
		} else if (tag == 'P') {
			struct handoff_page g;
			TAKE(&g, sizeof g);
			if ((size_t)(end - p) < g.len)
				return false;
			sqlite3_stmt *q = st->q[Q_PAGE_INSERT];
			store_bind_fp(q, 1, g.hash);
			sqlite3_bind_blob64(q, 2, p, g.len, SQLITE_STATIC);
			p += g.len;
			if (!store_step(st, q, "insert observation page"))
				return false;
		} else if (tag == 'F') {
			if (!finish(st))
				return false;
		} else {
			return false;
		}
	}
	return true;
}

/* The writer's half of a commit point or of the run's end: whatever the
 * blocks hold goes in. */
bool store_handoff_flush(store *st)
{
	return finish(st) && put_states(st) && put_edges(st) && store_rows_flush(st);
}
