/*
 * read.c — the read API over one run: runs, states, pages of states,
 * successors and predecessors, traces, violations, observation bytes and
 * operations never taken.  Every answer is built from indexed lookups
 * (state blocks by (run, first id), levels by (run, depth), edge blocks
 * by (run, source range), the predecessor index by (run, destination
 * bucket: pred.c)), so the workbench's moves stay fast on large runs.
 * Results are copied out; the caller owns them.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

static int step_err(store *st, sqlite3_stmt *s, const char *what)
{
	store_q_done(s);
	return store_fail(st, what);
}

/* ---- runs --------------------------------------------------------------- */

static void run_from_row(sqlite3_stmt *s, store_run *r)
{
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(s, 0);
	r->kind = store_col_strdup(s, 1);
	r->name = store_col_strdup(s, 2);
	r->source_path = store_col_strdup(s, 3);
	r->options = store_col_strdup(s, 4);
	r->version = store_col_strdup(s, 5);
	r->order = store_col_strdup(s, 6);
	const char *status = (const char *)sqlite3_column_text(s, 7);
	snprintf(r->status, sizeof r->status, "%s", status ? status : "?");
	if (strcmp(r->status, "running") == 0) {
		r->writer_alive = store_writer_alive(sqlite3_column_int64(s, 8),
						     sqlite3_column_int64(s, 9));
		if (!r->writer_alive)
			snprintf(r->status, sizeof r->status, "interrupted");
	}
	r->started = sqlite3_column_double(s, 10);
	r->ended = sqlite3_column_double(s, 11);
	r->distinct = (uint64_t)sqlite3_column_int64(s, 12);
	r->generated = (uint64_t)sqlite3_column_int64(s, 13);
	r->transitions = (uint64_t)sqlite3_column_int64(s, 14);
	r->violations = (uint64_t)sqlite3_column_int64(s, 15);
	r->raw_distinct = (uint64_t)sqlite3_column_int64(s, 16);
	r->canon_distinct = (uint64_t)sqlite3_column_int64(s, 17);
	r->depth = (uint32_t)sqlite3_column_int64(s, 18);
	r->elapsed_s = sqlite3_column_double(s, 19);
	r->complete = sqlite3_column_int(s, 20);
	r->bounded = sqlite3_column_int(s, 21);
	/* The status column holds 'complete' for a search a depth or state
	 * bound cut short too (its CHECK predates the word): it reads
	 * 'bounded', as the run_list view says it. */
	if (r->bounded && strcmp(r->status, "complete") == 0)
		snprintf(r->status, sizeof r->status, "bounded");
	r->resumed_from = sqlite3_column_int64(s, 22);
	r->expanded_below = (uint32_t)sqlite3_column_int64(s, 23);
	r->stored_states = (uint64_t)sqlite3_column_int64(s, 24);
	r->stored_transitions = (uint64_t)sqlite3_column_int64(s, 25);
}

int store_runs(store *st, store_run **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = store_q(st, Q_RUNS_ALL);
	if (!s)
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = eng_xrealloc(*out, cap * sizeof **out);
		}
		run_from_row(s, &(*out)[(*n)++]);
	}
	if (rc != SQLITE_DONE)
		return step_err(st, s, "list runs");
	store_q_done(s);
	return 0;
}

void store_run_clear(store_run *r)
{
	free(r->kind);
	free(r->name);
	free(r->source_path);
	free(r->options);
	free(r->version);
	free(r->order);
	memset(r, 0, sizeof *r);
}

void store_runs_free(store_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_run_clear(&r[i]);
	free(r);
}

int64_t store_latest_run(store *st)
{
	sqlite3_stmt *s = store_q(st, Q_RUN_LATEST);
	if (!s)
		return 0;
	int64_t id = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	store_q_done(s);
	return id;
}

int store_run_get(store *st, int64_t run, store_run *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = store_q(st, Q_RUN_GET);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		store_q_done(s);
		snprintf(st->err, sizeof st->err, "%s: no run %lld", st->path, (long long)run);
		return 1;
	}
	if (rc != SQLITE_ROW)
		return step_err(st, s, "read run");
	run_from_row(s, out);
	store_q_done(s);
	/* From here a failure frees what the row gave: callers clear only
	 * what they got with 0. */
	s = store_q(st, Q_RUN_COUNTS);
	if (!s) {
		store_run_clear(out);
		return -1;
	}
	sqlite3_bind_int64(s, 1, run);
	if (sqlite3_step(s) != SQLITE_ROW) {
		store_run_clear(out);
		return step_err(st, s, "count run rows");
	}
	out->stored_states = (uint64_t)sqlite3_column_int64(s, 0);
	out->stored_transitions = (uint64_t)sqlite3_column_int64(s, 1);
	store_q_done(s);
	return 0;
}

char *store_run_source(store *st, int64_t run)
{
	sqlite3_stmt *s = store_q(st, Q_RUN_SOURCE);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, run);
	char *text = sqlite3_step(s) == SQLITE_ROW ? store_col_strdup(s, 0) : NULL;
	store_q_done(s);
	return text;
}

/* ---- blocks ------------------------------------------------------------- */

char *store_label_text(store *st, int64_t label)
{
	if (label <= 0)
		return NULL;
	sqlite3_stmt *s = store_q(st, Q_LABEL_TEXT);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, label);
	char *t = sqlite3_step(s) == SQLITE_ROW ? store_col_strdup(s, 0) : NULL;
	store_q_done(s);
	return t ? t : eng_xstrdup("?");
}

static void sc_clear(struct store_sblock *c)
{
	free(c->data);
	free(c->off);
	memset(c, 0, sizeof *c);
}

static int damaged(store *st, int64_t run, uint32_t first)
{
	snprintf(st->err, sizeof st->err, "%s: run %lld: the block of states from %u is damaged",
		 st->path, (long long)run, first);
	return -1;
}

/* Load the block holding `id` into the cache: 0, 1 when none holds it. */
static int sc_load(store *st, int64_t run, uint32_t id)
{
	struct store_sblock *c = &st->sc;
	if (c->count && c->run == run && id >= c->first && id - c->first < c->count)
		return 0;
	sqlite3_stmt *s = store_q(st, Q_SBLOCK_AT);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		store_q_done(s);
		return 1;
	}
	if (rc != SQLITE_ROW)
		return step_err(st, s, "read states");
	uint32_t first = (uint32_t)sqlite3_column_int64(s, 0);
	uint32_t count = (uint32_t)sqlite3_column_int64(s, 1);
	if (id - first >= count) {
		store_q_done(s);
		return 1;
	}
	sc_clear(c);
	c->len = (size_t)sqlite3_column_bytes(s, 2);
	if (count > c->len / STORE_REC_MIN) { /* count sizes off[]: bound it first */
		store_q_done(s);
		c->len = 0;
		return damaged(st, run, first);
	}
	c->data = eng_xmalloc(c->len + 1);
	if (c->len)
		memcpy(c->data, sqlite3_column_blob(s, 2), c->len);
	store_q_done(s);
	c->off = eng_xmalloc((size_t)count * sizeof *c->off);
	const uint8_t *p = c->data, *end = c->data + c->len;
	for (uint32_t i = 0; i < count; i++) {
		struct store_rec r;
		c->off[i] = (uint32_t)(p - c->data);
		if (!(p = store_rec_get(p, end, &r))) {
			sc_clear(c);
			return damaged(st, run, first);
		}
	}
	c->run = run;
	c->first = first;
	c->count = count;
	return 0;
}

int store_rec_lookup(store *st, int64_t run, uint32_t id, struct store_rec *r)
{
	int rc = sc_load(st, run, id);
	if (rc)
		return rc;
	struct store_sblock *c = &st->sc;
	store_rec_get(c->data + c->off[id - c->first], c->data + c->len, r);
	return 0;
}

int store_each_state(store *st, int64_t run,
		     bool (*fn)(void *ctx, uint32_t id, const struct store_rec *r), void *ctx)
{
	/* Its own statement: the callback may look states up (cache). */
	sqlite3_stmt *s = store_q_own(st, Q_EACH_STATE);
	if (!s)
		return store_fail(st, "read states");
	sqlite3_bind_int64(s, 1, run);
	int rc;
	bool go = true;
	/* Ids are dense (0, 1, ...) and blocks follow each other: a block
	 * that leaves a gap or overlaps is damaged, so that callers may size
	 * arrays by the ids they are handed. */
	uint64_t next = 0;
	while (go && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(s, 0);
		int64_t count = sqlite3_column_int64(s, 1);
		const uint8_t *p = sqlite3_column_blob(s, 2);
		const uint8_t *end = p ? p + sqlite3_column_bytes(s, 2) : p;
		if (first != (int64_t)next || count < 0 ||
		    (uint64_t)count > (size_t)(end - p) / STORE_REC_MIN) {
			store_q_own_done(st, Q_EACH_STATE, s);
			return damaged(st, run, (uint32_t)first);
		}
		next += (uint64_t)count;
		for (uint32_t i = 0; go && i < count; i++) {
			struct store_rec r;
			if (!p || !(p = store_rec_get(p, end, &r))) {
				store_q_own_done(st, Q_EACH_STATE, s);
				return damaged(st, run, first);
			}
			go = fn(ctx, (uint32_t)first + i, &r);
		}
	}
	store_q_own_done(st, Q_EACH_STATE, s);
	if (go && rc != SQLITE_DONE)
		return store_fail(st, "read states");
	return 0;
}

static bool decode_erec(const uint8_t **pp, const uint8_t *end, uint32_t *src,
			struct store_edge_raw **e, size_t *n, size_t *cap)
{
	uint32_t cnt;
	bool reply;
	const uint8_t *p = store_erec_head(*pp, end, src, &cnt, &reply);
	if (!p || cnt > (size_t)(end - p))
		return false;
	if (cnt > *cap) {
		*cap = cnt;
		*e = eng_xrealloc(*e, cnt * sizeof **e);
	}
	for (uint32_t i = 0; i < cnt; i++)
		if (!(p = store_erec_edge(p, end, reply, &(*e)[i])))
			return false;
	*n = cnt;
	*pp = p;
	return true;
}

/* Append the edges of one more record of the same source, leaving out
 * those an earlier record already holds (same operation, same target):
 * a state stepped by hand and later expanded by a search reports its
 * hand-taken transitions twice. */
static void merge_edges(struct store_edge_raw **e, size_t *n, size_t *cap,
			const struct store_edge_raw *add, size_t nadd, bool first)
{
	size_t have = *n;
	for (size_t i = 0; i < nadd; i++) {
		bool dup = false;
		for (size_t k = 0; !first && k < have && !dup; k++)
			dup = (*e)[k].label == add[i].label && (*e)[k].dst == add[i].dst;
		if (dup)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*e = eng_xrealloc(*e, *cap * sizeof **e);
		}
		(*e)[(*n)++] = add[i];
	}
}

/* Every record of src (a state stepped by hand several times, or stepped
 * by hand and then expanded, has one record per expansion), merged in the
 * order written. */
int store_edges_raw(store *st, int64_t run, uint32_t src, struct store_edge_raw **e, size_t *n)
{
	*e = NULL;
	*n = 0;
	sqlite3_stmt *s = store_q(st, Q_EBLOCK_AT);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, src);
	struct store_edge_raw *tmp = NULL;
	size_t cap = 0, cnt, ecap = 0;
	int rc;
	bool found = false;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const uint8_t *p = sqlite3_column_blob(s, 0);
		const uint8_t *end = p ? p + sqlite3_column_bytes(s, 0) : p; /* empty: NULL */
		while (p && p < end) {
			uint32_t at;
			if (!decode_erec(&p, end, &at, &tmp, &cnt, &cap)) {
				free(tmp);
				free(*e);
				*e = NULL;
				*n = 0;
				store_q_done(s);
				snprintf(st->err, sizeof st->err,
					 "%s: run %lld: a block of transitions is damaged", st->path,
					 (long long)run);
				return -1;
			}
			if (at == src) {
				merge_edges(e, n, &ecap, tmp, cnt, !found);
				found = true;
			}
		}
	}
	free(tmp);
	if (rc != SQLITE_DONE) {
		free(*e);
		*e = NULL;
		*n = 0;
		return step_err(st, s, "read transitions");
	}
	store_q_done(s);
	return 0;
}

int store_each_edges(store *st, int64_t run,
		     bool (*fn)(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n),
		     void *ctx)
{
	sqlite3_stmt *s = store_q_own(st, Q_EACH_EDGES);
	if (!s)
		return store_fail(st, "read transitions");
	sqlite3_bind_int64(s, 1, run);
	struct store_edge_raw *tmp = NULL;
	size_t cap = 0, cnt;
	int rc;
	bool go = true;
	while (go && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const uint8_t *p = sqlite3_column_blob(s, 0);
		const uint8_t *end = p ? p + sqlite3_column_bytes(s, 0) : p; /* empty: NULL */
		while (go && p && p < end) {
			uint32_t src;
			if (!decode_erec(&p, end, &src, &tmp, &cnt, &cap)) {
				free(tmp);
				store_q_own_done(st, Q_EACH_EDGES, s);
				snprintf(st->err, sizeof st->err,
					 "%s: run %lld: a block of transitions is damaged", st->path,
					 (long long)run);
				return -1;
			}
			go = fn(ctx, src, tmp, cnt);
		}
	}
	free(tmp);
	store_q_own_done(st, Q_EACH_EDGES, s);
	if (go && rc != SQLITE_DONE)
		return store_fail(st, "read transitions");
	return 0;
}

/* ---- states ------------------------------------------------------------- */

static bool has_violation(store *st, int64_t run, uint32_t id)
{
	sqlite3_stmt *s = store_q(st, Q_VIOL_AT);
	if (!s)
		return false;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, id);
	bool yes = sqlite3_step(s) == SQLITE_ROW;
	store_q_done(s);
	return yes;
}

static void state_from_rec(store *st, int64_t run, uint32_t id, const struct store_rec *r,
			   store_state *o)
{
	memset(o, 0, sizeof *o);
	o->id = id;
	o->parent = r->parent;
	o->label = r->parent == ENG_NO_STATE ? NULL : store_label_text(st, r->label);
	o->depth = r->depth;
	o->fp = r->fp;
	o->raw_fp = r->raw_fp;
	o->canon_fp = r->canon_fp;
	o->status = r->status;
	if (o->status == STORE_OK && has_violation(st, run, id))
		o->status = STORE_VIOLATION;
	o->obs_flags = r->obs_flags;
	o->exit_status = r->exit_status;
	o->term_signal = r->term_signal;
	if (r->fault && r->fault_len) {
		o->fault = eng_xmalloc(r->fault_len + 1);
		memcpy(o->fault, r->fault, r->fault_len);
		o->fault[r->fault_len] = 0;
	}
	o->alloc_checked = r->alloc_checked;
	o->alloc_failed = r->alloc_failed;
	o->raw_blob = r->raw_blob;
	o->canon_blob = r->canon_blob;
	o->reply_blob = r->reply_blob;
	o->files_blob = r->files_blob;
}

int store_state_get(store *st, int64_t run, uint32_t id, store_state *out)
{
	memset(out, 0, sizeof *out);
	struct store_rec r;
	int rc = store_rec_lookup(st, run, id, &r);
	if (rc == 1)
		snprintf(st->err, sizeof st->err, "%s: run %lld has no state %u", st->path,
			 (long long)run, id);
	if (rc)
		return rc;
	state_from_rec(st, run, id, &r, out);
	return 0;
}

int store_state_bytes(store *st, int64_t run, uint32_t id, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	struct store_rec r;
	int rc = store_rec_lookup(st, run, id, &r);
	if (rc)
		return rc;
	if (!r.state)
		return 1;
	*len = r.state_len;
	*data = eng_xmemdup(r.state, r.state_len ? r.state_len : 1);
	return 0;
}

void store_state_clear(store_state *s)
{
	free(s->label);
	free(s->fault);
	memset(s, 0, sizeof *s);
}

void store_states_free(store_state *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_state_clear(&s[i]);
	free(s);
}

/*
 * First id and count of the states at a depth (levels table), and whether
 * the levels tile the ids: level 1 from id 0, each next level starting
 * where the one before ends.  They do exactly when every level is one run
 * of ids (the lowest id of each level is stored, ids are dense), which a
 * breadth-first search alone gives; steps by hand and a search from one
 * state (the workbench) give a state an id out of its level's run.
 */
static int level_of(store *st, int64_t run, uint32_t depth, uint32_t *first, uint64_t *count,
		    bool *tiled)
{
	*first = 0;
	*count = 0;
	*tiled = true;
	sqlite3_stmt *s = store_q(st, Q_LEVELS);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	int rc;
	int64_t want_depth = 1, want_first = 0; /* rows come ordered by depth */
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t d = sqlite3_column_int64(s, 0), n = sqlite3_column_int64(s, 1),
			f = sqlite3_column_int64(s, 2);
		/* A row is untrusted: one out of any range levels can have
		 * (a damaged or crafted file) means the ids are not known to
		 * group by level, and the caller scans instead. */
		if (d < 1 || d > UINT32_MAX || n < 0 || n > UINT32_MAX || f < 0 || f > UINT32_MAX) {
			*tiled = false;
			continue;
		}
		if (d != want_depth || f != want_first)
			*tiled = false;
		want_depth = d + 1;
		want_first = f + n;
		if (d == depth) {
			*count = (uint64_t)n;
			*first = (uint32_t)f;
		}
	}
	if (rc != SQLITE_DONE)
		return step_err(st, s, "read levels");
	store_q_done(s);
	return 0;
}

struct page_scan {
	store *st;
	int64_t run;
	uint32_t depth, after;
	size_t limit;
	store_state *out;
	size_t *n;
};

static bool page_cb(void *ctx, uint32_t id, const struct store_rec *r)
{
	struct page_scan *p = ctx;
	if (r->depth == p->depth && (p->after == ENG_NO_STATE || id > p->after))
		state_from_rec(p->st, p->run, id, r, &p->out[(*p->n)++]);
	return *p->n < p->limit;
}

static int states_page(store *st, int64_t run, store_order order, uint32_t depth,
		       uint32_t after, size_t limit, store_state **out, size_t *n);

/* On an error nothing is handed out (the page so far is freed). */
int store_states_page(store *st, int64_t run, store_order order, uint32_t depth,
		      uint32_t after, size_t limit, store_state **out, size_t *n)
{
	int rc = states_page(st, run, order, depth, after, limit, out, n);
	if (rc < 0) {
		store_states_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int states_page(store *st, int64_t run, store_order order, uint32_t depth,
		       uint32_t after, size_t limit, store_state **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!limit)
		return 0;
	*out = eng_xcalloc(limit, sizeof **out);
	uint32_t lo = after == ENG_NO_STATE ? 0 : after + 1, hi = ENG_NO_STATE;
	if (order == STORE_BY_DEPTH) {
		sqlite3_stmt *s = store_q(st, Q_RUN_ORDER);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, run);
		const char *ord = sqlite3_step(s) == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0)
								 : NULL;
		bool bfs = !ord || strcmp(ord, "dfs") != 0;
		store_q_done(s);
		uint32_t first = 0;
		uint64_t count = 0;
		bool tiled = false;
		if (bfs && level_of(st, run, depth, &first, &count, &tiled) < 0)
			return -1;
		if (!bfs || !tiled) {
			/* ids do not group by level (depth-first, or states
			 * reached by hand): scan */
			struct page_scan p = {st, run, depth, after, limit, *out, n};
			return store_each_state(st, run, page_cb, &p);
		}
		if (lo < first)
			lo = first;
		hi = first + (uint32_t)count;
	}
	for (uint32_t id = lo; id < hi && *n < limit; id++) {
		struct store_rec r;
		int rc = store_rec_lookup(st, run, id, &r);
		if (rc < 0)
			return -1;
		if (rc)
			break;
		state_from_rec(st, run, id, &r, &(*out)[(*n)++]);
	}
	return 0;
}

int store_depth_counts(store *st, int64_t run, uint64_t **counts, uint32_t *maxdepth)
{
	*counts = NULL;
	*maxdepth = 0;
	sqlite3_stmt *s = store_q(st, Q_LEVELS);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	/* The rows first: the array is sized by the deepest level, which a
	 * damaged row could put anywhere; the levels of a run are 1 .. D,
	 * one row each, so D is at most the number of rows. */
	struct lv {
		int64_t d, n;
	} *rows = NULL;
	size_t nrows = 0, cap = 0;
	int64_t maxd = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (nrows == cap) {
			cap = cap ? cap * 2 : 64;
			rows = eng_xrealloc(rows, cap * sizeof *rows);
		}
		rows[nrows] = (struct lv){sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1)};
		if (rows[nrows].d > maxd)
			maxd = rows[nrows].d;
		nrows++;
	}
	if (rc != SQLITE_DONE) {
		free(rows);
		return step_err(st, s, "count states by depth");
	}
	store_q_done(s);
	if (maxd > (int64_t)nrows) {
		free(rows);
		snprintf(st->err, sizeof st->err, "%s: run %lld: level %lld, but only %zu levels are "
			 "stored (a damaged database)", st->path, (long long)run, (long long)maxd, nrows);
		return -1;
	}
	if (nrows) {
		*counts = eng_xcalloc((size_t)maxd + 1, sizeof **counts);
		*maxdepth = (uint32_t)maxd;
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].d >= 0)
				(*counts)[rows[i].d] = (uint64_t)rows[i].n;
	}
	free(rows);
	return 0;
}

/* ---- transitions -------------------------------------------------------- */

static void edge_out(store *st, uint32_t src, const struct store_edge_raw *e, store_edge *o)
{
	o->from = src;
	o->to = e->dst;
	o->label = store_label_text(st, e->label);
	o->new_state = e->new_state;
	o->reply_blob = e->reply;
}

int store_successors(store *st, int64_t run, uint32_t id, store_edge **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	struct store_edge_raw *e;
	size_t ne;
	if (store_edges_raw(st, run, id, &e, &ne) < 0)
		return -1;
	if (ne)
		*out = eng_xcalloc(ne, sizeof **out);
	for (size_t i = 0; i < ne; i++)
		edge_out(st, id, &e[i], &(*out)[i]);
	*n = ne;
	free(e);
	return 0;
}

struct pred_scan {
	store *st;
	uint32_t id;
	store_edge *out;
	size_t n, cap;
};

static bool pred_cb(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n)
{
	struct pred_scan *p = ctx;
	for (size_t i = 0; i < n; i++) {
		if (e[i].dst != p->id)
			continue;
		if (p->n == p->cap) {
			p->cap = p->cap ? p->cap * 2 : 8;
			p->out = eng_xrealloc(p->out, p->cap * sizeof *p->out);
		}
		edge_out(p->st, src, &e[i], &p->out[p->n++]);
	}
	return true;
}

/* Through the predecessor index (pred.c): the sources with an edge into
 * id, then those sources' own records for labels and replies.  Runs
 * written before the index existed are scanned. */
int store_predecessors(store *st, int64_t run, uint32_t id, store_edge **out, size_t *n)
{
	struct pred_scan p = {st, id, NULL, 0, 0};
	uint32_t *srcs;
	size_t ns;
	int rc = store_pred_sources(st, run, id, &srcs, &ns);
	if (rc == 1) {
		rc = store_each_edges(st, run, pred_cb, &p);
	} else {
		for (size_t i = 0; rc == 0 && i < ns; i++) {
			struct store_edge_raw *e;
			size_t ne;
			if ((rc = store_edges_raw(st, run, srcs[i], &e, &ne)) == 0)
				pred_cb(&p, srcs[i], e, ne);
			free(e);
		}
		free(srcs);
	}
	if (rc) {
		store_edges_free(p.out, p.n);
		p.out = NULL;
		p.n = 0;
	}
	*out = p.out;
	*n = p.n;
	return rc;
}

int store_edges_range(store *st, int64_t run, uint32_t lo, uint32_t hi, store_edge **out,
		      size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (uint32_t src = lo; src < hi; src++) {
		struct store_edge_raw *e;
		size_t ne;
		if (store_edges_raw(st, run, src, &e, &ne) < 0) {
			store_edges_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
		if (*n + ne > cap) {
			cap = (*n + ne) * 2;
			*out = eng_xrealloc(*out, cap * sizeof **out);
		}
		for (size_t i = 0; i < ne; i++)
			edge_out(st, src, &e[i], &(*out)[(*n)++]);
		free(e);
	}
	return 0;
}

void store_edges_free(store_edge *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].label);
	free(e);
}

/* ---- traces ------------------------------------------------------------- */

/* A state's record names a parent that cannot be one: every state's
 * parent was discovered before it, so has a smaller id (SCHEMA.md,
 * "Consistency after a crash"), and its depth is one less. */
static int bad_chain(store *st, int64_t run, uint32_t id, const char *why)
{
	snprintf(st->err, sizeof st->err, "%s: run %lld: state %u: %s", st->path, (long long)run,
		 id, why);
	return -1;
}

int store_trace_to(store *st, int64_t run, uint32_t id, store_trace *out)
{
	memset(out, 0, sizeof *out);
	/* Walk parents back to an initial state.  Nothing stored bounds the
	 * walk: ids must fall at every step (so a chain ends within id + 1
	 * steps whatever the records say), and the depth that sizes the
	 * arrays is checked against the id before anything is allocated. */
	store_state cur;
	int rc = store_state_get(st, run, id, &cur);
	if (rc)
		return rc;
	if (cur.depth == 0 || cur.depth - 1 > cur.id) {
		store_state_clear(&cur);
		return bad_chain(st, run, id, "its depth is larger than the states before it allow "
				 "(a damaged database)");
	}
	size_t n = cur.depth;
	uint32_t *states = eng_xcalloc(n, sizeof *states);
	char **labels = eng_xcalloc(n, sizeof *labels);
	eng_fp *fps = eng_xcalloc(n, sizeof *fps);
	size_t i = n;
	for (;;) {
		i--;
		states[i] = cur.id;
		fps[i] = cur.fp;
		labels[i] = cur.label;
		cur.label = NULL;
		uint32_t parent = cur.parent, at = cur.id;
		store_state_clear(&cur);
		if (parent != ENG_NO_STATE && parent >= at) {
			rc = bad_chain(st, run, id, "parent chain loops (a parent not discovered before "
				       "its child: a damaged database)");
			break;
		}
		if (parent == ENG_NO_STATE || i == 0) {
			if (parent != ENG_NO_STATE || i != 0)
				rc = bad_chain(st, run, id, "parent chain does not match its depth");
			break;
		}
		if ((rc = store_state_get(st, run, parent, &cur)) != 0) {
			if (rc > 0)
				bad_chain(st, run, id, "parent chain reaches a state that is not stored");
			rc = -1;
			break;
		}
	}
	if (rc) {
		for (size_t k = 0; k < n; k++)
			free(labels[k]);
		free(states);
		free(labels);
		free(fps);
		return rc;
	}
	/* Shift: labels[k]/fps[k] describe the step into states[k]; the trace
	 * wants steps 0..n-2 into states[1..]. */
	out->len = n - 1;
	out->states = states;
	out->init_fp = fps[0];
	free(labels[0]);
	memmove(labels, labels + 1, (n - 1) * sizeof *labels);
	memmove(fps, fps + 1, (n - 1) * sizeof *fps);
	out->labels = labels;
	out->fps = fps;
	return 0;
}

void store_trace_clear(store_trace *t)
{
	for (size_t i = 0; i < t->len; i++)
		free(t->labels[i]);
	free(t->labels);
	free(t->fps);
	free(t->states);
	memset(t, 0, sizeof *t);
}

/* ---- violations --------------------------------------------------------- */

static int violation_from_row(store *st, sqlite3_stmt *s, store_violation *v)
{
	memset(v, 0, sizeof *v);
	v->id = sqlite3_column_int64(s, 0);
	v->run = sqlite3_column_int64(s, 1);
	v->property = store_col_strdup(s, 2);
	v->message = store_col_strdup(s, 3);
	v->state = sqlite3_column_type(s, 4) == SQLITE_NULL ? ENG_NO_STATE
							    : (uint32_t)sqlite3_column_int64(s, 4);
	v->trace.init_fp = store_fp_col(s, 5);
	v->source = v->target = ENG_NO_STATE;
	if (sqlite3_column_type(s, 6) != SQLITE_NULL && sqlite3_column_type(s, 7) != SQLITE_NULL) {
		v->source = (uint32_t)sqlite3_column_int64(s, 6);
		v->label = store_col_strdup(s, 7);
		if (sqlite3_column_type(s, 8) != SQLITE_NULL)
			v->target = (uint32_t)sqlite3_column_int64(s, 8);
	}
	/* The steps come from their own statement. */
	sqlite3_stmt *t = store_q(st, Q_VSTEPS);
	if (!t)
		return -1;
	sqlite3_bind_int64(t, 1, v->id);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t)) == SQLITE_ROW) {
		if (v->trace.len == cap) {
			cap = cap ? cap * 2 : 8;
			v->trace.labels = eng_xrealloc(v->trace.labels, cap * sizeof(char *));
			v->trace.fps = eng_xrealloc(v->trace.fps, cap * sizeof(eng_fp));
		}
		v->trace.labels[v->trace.len] = store_col_strdup(t, 0);
		v->trace.fps[v->trace.len] = store_fp_col(t, 1);
		v->trace.len++;
	}
	if (rc != SQLITE_DONE)
		return step_err(st, t, "read violation trace");
	store_q_done(t);
	/* Which stored states the steps pass through: a transition's trace
	 * is the stored tree path to its source and the step itself; another
	 * violation's is the tree path to its state. */
	v->trace.states = eng_xmalloc((v->trace.len + 1) * sizeof(uint32_t));
	for (size_t i = 0; i <= v->trace.len; i++)
		v->trace.states[i] = ENG_NO_STATE;
	if (v->source != ENG_NO_STATE) {
		store_trace tree;
		if (store_trace_to(st, v->run, v->source, &tree) == 0) {
			if (tree.len + 1 == v->trace.len) {
				memcpy(v->trace.states, tree.states,
				       (tree.len + 1) * sizeof(uint32_t));
				v->trace.states[v->trace.len] = v->target;
			}
			store_trace_clear(&tree);
		}
	} else if (v->state != ENG_NO_STATE) {
		store_trace tree;
		if (store_trace_to(st, v->run, v->state, &tree) == 0) {
			if (tree.len == v->trace.len)
				memcpy(v->trace.states, tree.states,
				       (tree.len + 1) * sizeof(uint32_t));
			store_trace_clear(&tree);
		}
	}
	return 0;
}

int store_violations(store *st, int64_t run, store_violation **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = store_q(st, Q_VIOLS);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	/* Collect ids first: reading a trace reuses statements. */
	int64_t *ids = NULL;
	size_t cap = 0, k = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (k == cap) {
			cap = cap ? cap * 2 : 8;
			ids = eng_xrealloc(ids, cap * sizeof *ids);
		}
		ids[k++] = sqlite3_column_int64(s, 0);
	}
	if (rc != SQLITE_DONE) {
		free(ids);
		return step_err(st, s, "list violations");
	}
	store_q_done(s);
	if (k)
		*out = eng_xcalloc(k, sizeof **out);
	for (size_t i = 0; i < k; i++) {
		if (store_violation_get(st, ids[i], &(*out)[i]) != 0) {
			store_violations_free(*out, i);
			*out = NULL;
			free(ids);
			return -1;
		}
		(*n)++;
	}
	free(ids);
	return 0;
}

int store_violation_get(store *st, int64_t id, store_violation *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = store_q(st, Q_VIOL_GET);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		store_q_done(s);
		snprintf(st->err, sizeof st->err, "%s: no violation %lld", st->path, (long long)id);
		return 1;
	}
	if (rc != SQLITE_ROW)
		return step_err(st, s, "read violation");
	/* Copy the row out before the trace reads reuse statements. */
	rc = violation_from_row(st, s, out);
	store_q_done(s);
	if (rc)
		store_violation_clear(out);
	return rc;
}

void store_violation_clear(store_violation *v)
{
	free(v->property);
	free(v->message);
	free(v->label);
	store_trace_clear(&v->trace);
	memset(v, 0, sizeof *v);
}

void store_violations_free(store_violation *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_violation_clear(&v[i]);
	free(v);
}

/* ---- observations and operations ----------------------------------------- */

static int bad_blob(store *st, eng_fp hash, const char *why)
{
	char hex[33];
	snprintf(st->err, sizeof st->err, "%s: observation %s: %s (a damaged database)", st->path,
		 eng_fp_hex(hash, hex), why);
	return -1;
}

/* A paged blob's bytes: its pages in order.  Nothing stored sizes the
 * buffer: it grows by the pages found, and a list that is not whole
 * hashes, names a missing page or adds up to more than the blob's full
 * length is damaged. */
static int blob_pages(store *st, eng_fp hash, const uint8_t *list, size_t n, size_t full_len,
		      uint8_t **data, size_t *len)
{
	if (n % 16 || n / 16 > full_len / STORE_PAGE + 1)
		return bad_blob(st, hash, "its page list is not a list of its pages' hashes");
	struct store_buf b = {0};
	sqlite3_stmt *q = store_q(st, Q_PAGE_GET);
	if (!q)
		return -1;
	for (size_t i = 0; i < n / 16; i++) {
		eng_fp ph = {0, 0};
		for (int k = 0; k < 8; k++) {
			ph.hi = ph.hi << 8 | list[16 * i + k];
			ph.lo = ph.lo << 8 | list[16 * i + 8 + k];
		}
		store_bind_fp(q, 1, ph);
		int rc = sqlite3_step(q);
		size_t pn = rc == SQLITE_ROW ? (size_t)sqlite3_column_bytes(q, 0) : 0;
		if (rc != SQLITE_ROW || b.len + pn > full_len) {
			if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
				free(b.p);
				return step_err(st, q, "read observation");
			}
			store_q_done(q);
			free(b.p);
			return bad_blob(st, hash, rc == SQLITE_ROW ? "its pages hold more than its length"
								   : "a page of it is missing");
		}
		if (pn) {
			store_buf_reserve(&b, pn + 1);
			memcpy(b.p + b.len, sqlite3_column_blob(q, 0), pn);
			b.len += pn;
		}
		store_q_done(q);
	}
	store_buf_reserve(&b, 1);
	b.p[b.len] = 0;
	*data = b.p;
	*len = b.len;
	return 0;
}

int store_blob(store *st, eng_fp hash, uint8_t **data, size_t *len, size_t *full_len)
{
	*data = NULL;
	*len = *full_len = 0;
	sqlite3_stmt *s = store_q(st, Q_BLOB_GET);
	if (!s)
		return -1;
	store_bind_fp(s, 1, hash);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		store_q_done(s);
		return 1;
	}
	if (rc != SQLITE_ROW)
		return step_err(st, s, "read observation");
	*full_len = (size_t)sqlite3_column_int64(s, 0);
	if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
		/* paged: copy the list, the statement is reused below */
		size_t n = (size_t)sqlite3_column_bytes(s, 2);
		uint8_t *list = eng_xmalloc(n + 1);
		if (n)
			memcpy(list, sqlite3_column_blob(s, 2), n);
		store_q_done(s);
		rc = blob_pages(st, hash, list, n, *full_len, data, len);
		free(list);
		return rc;
	}
	*len = (size_t)sqlite3_column_bytes(s, 1);
	*data = eng_xmalloc(*len + 1);
	if (*len)
		memcpy(*data, sqlite3_column_blob(s, 1), *len);
	(*data)[*len] = 0;
	store_q_done(s);
	return 0;
}

int store_never_taken(store *st, int64_t run, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	sqlite3_stmt *s = store_q(st, Q_NEVER_TAKEN);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*names = eng_xrealloc(*names, cap * sizeof **names);
		}
		(*names)[(*n)++] = store_col_strdup(s, 0);
	}
	if (rc != SQLITE_DONE)
		return step_err(st, s, "list operations never taken");
	store_q_done(s);
	return 0;
}

void store_strings_free(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}
