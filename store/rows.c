/*
 * rows.c — the run's states and transitions as plain rows (state_rows,
 * transition_rows; the views states and transitions over them, SCHEMA.md),
 * so that `sqlite3 cmc.db` answers questions about every explored state
 * without cmc.  The blocks stay what cmc reads; these rows are written
 * beside them by the writer thread, in the same transactions, so a
 * committed database holds a row for every state in the blocks and for
 * every transition in the edge records, whatever the run did next (killed,
 * interrupted, resumed).  Runs written before schema 7 get their rows when
 * the file is upgraded (store_rows_backfill(), from the blocks).
 *
 * Invariant, per run with runs.sql_rows 1 and at every commit: the ids
 * of state_rows are exactly 0 .. runs.stored_states - 1, each parent an
 * earlier one, and transition_rows holds each distinct (source, label,
 * target) of the run's edge records once, both ends among those ids
 * (store_rows_is_valid() checks the ranges as a run ends, CHECK >= 2).
 */
#include "internal.h"
#include "engine/check.h"

/* Bind one pending state row from parameter `first` on (9 of them). */
static void bind_srow(sqlite3_stmt *s, int first, int64_t run, const struct store_srow *r)
{
	sqlite3_bind_int64(s, first, run);
	sqlite3_bind_int64(s, first + 1, r->id);
	/* NULL parent and label for an initial state */
	if (r->parent != ENG_NO_STATE)
		sqlite3_bind_int64(s, first + 2, r->parent);
	if (r->label)
		sqlite3_bind_int64(s, first + 3, r->label);
	sqlite3_bind_int64(s, first + 4, r->depth);
	sqlite3_bind_int(s, first + 5, r->status);
	store_bind_fp(s, first + 6, r->fp);
	if (r->has_obs) { /* a zero fingerprint binds NULL */
		store_bind_fp(s, first + 7, r->raw_fp);
		store_bind_fp(s, first + 8, r->canon_fp);
	}
}

static void bind_trow(sqlite3_stmt *s, int first, int64_t run, const struct store_trow *t)
{
	sqlite3_bind_int64(s, first, run);
	sqlite3_bind_int64(s, first + 1, t->src);
	sqlite3_bind_int64(s, first + 2, t->label);
	sqlite3_bind_int64(s, first + 3, t->dst);
}

/* Insert the pending rows: a full list with one statement, else one
 * statement per row. */
static bool put_srows(store *st)
{
	unsigned n = st->nsrows;
	st->nsrows = 0;
	if (n == STORE_ROWS_BATCH) {
		sqlite3_stmt *s = st->q[Q_SROW_INSERT_N];
		for (unsigned i = 0; i < n; i++)
			bind_srow(s, 1 + 9 * (int)i, st->rows_run, &st->srows[i]);
		return store_step(st, s, "write state rows");
	}
	for (unsigned i = 0; i < n; i++) {
		sqlite3_stmt *s = st->q[Q_SROW_INSERT];
		bind_srow(s, 1, st->rows_run, &st->srows[i]);
		if (!store_step(st, s, "write state rows"))
			return false;
	}
	return true;
}

static bool put_trows(store *st)
{
	unsigned n = st->ntrows;
	st->ntrows = 0;
	if (n == STORE_ROWS_BATCH) {
		sqlite3_stmt *s = st->q[Q_TROW_INSERT_N];
		for (unsigned i = 0; i < n; i++)
			bind_trow(s, 1 + 4 * (int)i, st->rows_run, &st->trows[i]);
		return store_step(st, s, "write transition rows");
	}
	for (unsigned i = 0; i < n; i++) {
		sqlite3_stmt *s = st->q[Q_TROW_INSERT];
		bind_trow(s, 1, st->rows_run, &st->trows[i]);
		if (!store_step(st, s, "write transition rows"))
			return false;
	}
	return true;
}

bool store_rows_flush(store *st)
{
	return put_srows(st) && put_trows(st);
}

/* Pending rows belong to one run: another's first flushes them. */
static bool rows_of(store *st, int64_t run)
{
	if (st->rows_run == run)
		return true;
	bool ok = store_rows_flush(st);
	st->rows_run = run;
	return ok;
}

bool store_rows_state(store *st, int64_t run, uint32_t id, const struct store_rec *r)
{
	if (!rows_of(st, run))
		return false;
	st->srows[st->nsrows++] = (struct store_srow){
		.id = id,
		.parent = r->parent,
		.label = r->label,
		.depth = r->depth,
		.status = r->status,
		.has_obs = r->has_obs,
		.fp = r->fp,
		.raw_fp = r->raw_fp,
		.canon_fp = r->canon_fp,
	};
	return st->nsrows < STORE_ROWS_BATCH || put_srows(st);
}

bool store_rows_edges(store *st, int64_t run, uint32_t src, const struct store_edge_raw *e,
		      size_t n)
{
	if (!rows_of(st, run))
		return false;
	for (size_t i = 0; i < n; i++) {
		st->trows[st->ntrows++] = (struct store_trow){src, (uint32_t)e[i].label, e[i].dst};
		if (st->ntrows == STORE_ROWS_BATCH && !put_trows(st))
			return false;
	}
	return true;
}

struct backfill {
	store *st;
	int64_t run;
	bool ok;
};

static bool backfill_state(void *ctx, uint32_t id, const struct store_rec *r)
{
	struct backfill *b = ctx;
	return b->ok = store_rows_state(b->st, b->run, id, r);
}

static bool backfill_edges(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n)
{
	struct backfill *b = ctx;
	return b->ok = store_rows_edges(b->st, b->run, src, e, n);
}

int store_rows_backfill(store *st)
{
	if (!store_q(st, Q_SROW_INSERT) || !store_q(st, Q_TROW_INSERT) ||
	    !store_q(st, Q_SROW_INSERT_N) || !store_q(st, Q_TROW_INSERT_N))
		return -1;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "SELECT id FROM runs ORDER BY id", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "list runs");
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct backfill b = {st, sqlite3_column_int64(s, 0), true};
		if (store_each_state(st, b.run, backfill_state, &b) < 0 || !b.ok ||
		    store_each_edges(st, b.run, backfill_edges, &b) < 0 || !b.ok ||
		    !store_rows_flush(st)) {
			sqlite3_finalize(s);
			return -1;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_fail(st, "list runs");
}

/* One count from the database (the validator's queries; -1 on error). */
static int64_t count_of(store *st, const char *sql, int64_t run, int64_t n)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, n);
	int64_t v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	return v;
}

bool store_rows_is_valid(store *st, int64_t run, uint32_t stored)
{
	int64_t below = count_of(st, "SELECT count(*) FROM state_rows WHERE run = ?1 AND id < ?2",
				 run, stored);
	int64_t all = count_of(st, "SELECT count(*) + 0 * ?2 FROM state_rows WHERE run = ?1", run,
			       stored);
	CMC_VALID(below == stored && all == stored,
		  "rows: run %lld: %lld state rows, %lld of them below %u, for %u states stored",
		  (long long)run, (long long)all, (long long)below, stored, stored);
	int64_t bad = count_of(st, "SELECT count(*) + 0 * ?2 FROM state_rows WHERE run = ?1"
				   " AND (parent >= id OR (parent IS NULL) != (label IS NULL))",
			       run, stored);
	CMC_VALID(bad == 0, "rows: run %lld: %lld state rows whose parent is no earlier state",
		  (long long)run, (long long)bad);
	bad = count_of(st, "SELECT count(*) FROM transition_rows WHERE run = ?1"
			   " AND (source >= ?2 OR target >= ?2)", run, stored);
	CMC_VALID(bad == 0, "rows: run %lld: %lld transition rows with an end beyond the %u states",
		  (long long)run, (long long)bad, stored);
	return true;
}
