/*
 * stmt.c — every SQL text the store runs, in one table, and the statement
 * cache: each statement is prepared the first time it is needed and then
 * reused (bind, step, reset) for the life of the handle.  No SQL is ever
 * assembled from strings; every value, target bytes included, is bound.
 * Also the small column/bind helpers the other files share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "internal.h"
#include "engine/util.h"

#define RUN_COLS                                                                        \
	"id, kind, name, source_path, options, version, search_order, status,"         \
	" writer_pid, writer_start, started, ended, distinct_states, generated,"        \
	" transitions, violations, raw_distinct, canon_distinct, depth, elapsed_s,"     \
	" complete, bounded, resumed_from, expanded_below, stored_states,"              \
	" stored_transitions FROM runs"

/* A VALUES list of 32 (STORE_ROWS_BATCH) copies of one row's parameters. */
#define ROWS4(r) r ", " r ", " r ", " r
#define ROWS32(r) ROWS4(r) ", " ROWS4(r) ", " ROWS4(r) ", " ROWS4(r) ", " \
	ROWS4(r) ", " ROWS4(r) ", " ROWS4(r) ", " ROWS4(r)
_Static_assert(STORE_ROWS_BATCH == 32, "ROWS32 writes STORE_ROWS_BATCH rows");

static const char *const sql[Q__COUNT] = {
	[Q_BEGIN] = "BEGIN",
	[Q_COMMIT] = "COMMIT",
	[Q_ROLLBACK] = "ROLLBACK",
	[Q_RUN_INSERT] = "INSERT INTO runs(kind, name, source_path, source_text, options,"
			 " search_order, version, started, status, writer_pid, writer_start,"
			 " resumed_from, pred_index, sql_rows) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7,"
			 " ?8, 'running', ?9, ?10, ?11, 1, ?12)",
	[Q_RUN_ACTION] = "INSERT INTO run_actions(run, label, taken) VALUES(?1, ?2, ?3)"
			 " ON CONFLICT(run, label) DO UPDATE SET taken = excluded.taken",
	[Q_RUN_PROGRESS] = "UPDATE runs SET expanded_below = ?2, distinct_states = ?3,"
			   " generated = ?4, transitions = ?5, depth = ?6, violations = ?7,"
			   " raw_distinct = ?8, canon_distinct = ?9, elapsed_s = ?10,"
			   " stored_states = ?11, stored_transitions = ?12 WHERE id = ?1",
	[Q_RUN_END] = "UPDATE runs SET status = ?2, ended = ?3,"
		      " expanded_below = coalesce(?4, expanded_below),"
		      " distinct_states = ?5, generated = ?6, transitions = ?7, depth = ?8,"
		      " violations = ?9, raw_distinct = ?10, canon_distinct = ?11,"
		      " elapsed_s = ?12, complete = ?13, bounded = ?14,"
		      " stored_states = coalesce(?15, stored_states),"
		      " stored_transitions = coalesce(?16, stored_transitions), writer_pid = NULL, writer_start = NULL"
		      " WHERE id = ?1",
	[Q_RUN_CONTINUE] = "UPDATE runs SET status = 'running', ended = NULL, writer_pid = ?2,"
			   " writer_start = ?3 WHERE id = ?1",
	[Q_LABEL_INSERT] = "INSERT OR IGNORE INTO labels(text) VALUES(?1)",
	[Q_LABEL_ID] = "SELECT id FROM labels WHERE text = ?1",
	[Q_LABEL_TEXT] = "SELECT text FROM labels WHERE id = ?1",
	[Q_BLOB_INSERT] = "INSERT OR IGNORE INTO blobs(hash, full_len, data, pages)"
			  " VALUES(?1, ?2, ?3, ?4)",
	[Q_BLOB_GET] = "SELECT full_len, data, pages FROM blobs WHERE hash = ?1",
	[Q_PAGE_INSERT] = "INSERT OR IGNORE INTO pages(hash, data) VALUES(?1, ?2)",
	[Q_PAGE_GET] = "SELECT data FROM pages WHERE hash = ?1",
	[Q_SBLOCK_INSERT] = "INSERT INTO state_blocks(run, first, count, data)"
			    " VALUES(?1, ?2, ?3, ?4)",
	[Q_EBLOCK_INSERT] = "INSERT INTO edge_blocks(run, seq, min_src, max_src, count, edges,"
			    " data) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[Q_LEVEL_PUT] = "INSERT INTO levels(run, depth, states, first_id) VALUES(?1, ?2, ?3, ?4)"
			" ON CONFLICT(run, depth) DO UPDATE SET states = excluded.states,"
			" first_id = min(first_id, excluded.first_id)",
	[Q_VIOL_AT] = "SELECT 1 FROM violations WHERE run = ?1 AND state = ?2 LIMIT 1",
	[Q_VIOL_INSERT] = "INSERT INTO violations(run, property, message, state, init_fp,"
			  " source, label, target) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[Q_VSTEP_INSERT] = "INSERT INTO violation_steps(violation, step, label, fp)"
			   " VALUES(?1, ?2, ?3, ?4)",
	[Q_RUNS_ALL] = "SELECT " RUN_COLS " ORDER BY id",
	[Q_RUN_GET] = "SELECT " RUN_COLS " WHERE id = ?1",
	[Q_RUN_ORDER] = "SELECT search_order FROM runs WHERE id = ?1",
	[Q_RUN_LATEST] = "SELECT max(id) FROM runs",
	[Q_RUN_SOURCE] = "SELECT source_text FROM runs WHERE id = ?1",
	[Q_RUN_COUNTS] = "SELECT (SELECT coalesce(sum(count), 0) FROM state_blocks WHERE run = ?1),"
			 " (SELECT coalesce(sum(edges), 0) FROM edge_blocks WHERE run = ?1)",
	[Q_SBLOCK_AT] = "SELECT first, count, data FROM state_blocks WHERE run = ?1 AND first <= ?2"
			" ORDER BY first DESC LIMIT 1",
	[Q_SBLOCK_ALL] = "SELECT first, count, data FROM state_blocks WHERE run = ?1"
			 " ORDER BY first",
	[Q_EBLOCK_AT] = "SELECT data FROM edge_blocks WHERE run = ?1 AND min_src <= ?2"
			" AND max_src >= ?2 ORDER BY seq",
	[Q_EBLOCK_ALL] = "SELECT data FROM edge_blocks WHERE run = ?1 ORDER BY seq",
	[Q_EBLOCK_NEXT_SEQ] = "SELECT coalesce(max(seq), -1) + 1 FROM edge_blocks WHERE run = ?1",
	[Q_LEVELS] = "SELECT depth, states, first_id FROM levels WHERE run = ?1 ORDER BY depth",
	[Q_ACTIONS_TAKEN] = "SELECT label, taken FROM run_actions WHERE run = ?1",
	[Q_VIOLS] = "SELECT id FROM violations WHERE run = ?1 ORDER BY id",
	[Q_VIOL_GET] = "SELECT v.id, v.run, v.property, v.message, v.state, v.init_fp, v.source,"
		       " l.text, v.target FROM violations v LEFT JOIN labels l ON l.id = v.label"
		       " WHERE v.id = ?1",
	[Q_VSTEPS] = "SELECT l.text, s.fp FROM violation_steps s JOIN labels l ON l.id = s.label"
		     " WHERE s.violation = ?1 ORDER BY s.step",
	[Q_NEVER_TAKEN] = "SELECT operation FROM operations_never_taken WHERE run = ?1"
			  " ORDER BY operation",
	[Q_RESUME_INFO] = "SELECT expanded_below, elapsed_s, kind = 'process' AND raw_scheme < 2"
			   " FROM runs WHERE id = ?1",
	[Q_RESUME_COUNTS] = "SELECT (SELECT count(*) FROM violations WHERE run = ?1)",
	[Q_PRED_INSERT] = "INSERT INTO pred_blocks(run, bucket, data) VALUES(?1, ?2, ?3)",
	[Q_PRED_AT] = "SELECT data FROM pred_blocks WHERE run = ?1 AND bucket = ?2 ORDER BY id",
	[Q_PRED_ON] = "SELECT pred_index, sql_rows FROM runs WHERE id = ?1",
	[Q_EACH_STATE] = "SELECT first, count, data FROM state_blocks WHERE run = ?1"
			 " ORDER BY first",
	[Q_EACH_EDGES] = "SELECT data FROM edge_blocks WHERE run = ?1 ORDER BY seq",
	[Q_SROW_INSERT] = "INSERT INTO state_rows(run, id, parent, label, depth, status, fp,"
			  " raw_fp, canon_fp) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	/* a state re-expanded (by hand, then by a search; by a resume) repeats
	 * transitions its earlier records hold: kept once, as the read API
	 * merges them */
	[Q_TROW_INSERT] = "INSERT OR IGNORE INTO transition_rows(run, source, label, target)"
			  " VALUES(?1, ?2, ?3, ?4)",
	/* the same, STORE_ROWS_BATCH rows a statement (rows.c): a statement's
	 * step costs about as much as a row, so this halves the rows' cost */
	[Q_SROW_INSERT_N] = "INSERT INTO state_rows(run, id, parent, label, depth, status, fp,"
			    " raw_fp, canon_fp) VALUES" ROWS32("(?, ?, ?, ?, ?, ?, ?, ?, ?)"),
	[Q_TROW_INSERT_N] = "INSERT OR IGNORE INTO transition_rows(run, source, label, target)"
			    " VALUES" ROWS32("(?, ?, ?, ?)"),
};

sqlite3_stmt *store_q(store *st, enum store_q q)
{
	if (!st->q[q] && sqlite3_prepare_v3(st->db, sql[q], -1, SQLITE_PREPARE_PERSISTENT,
					    &st->q[q], NULL) != SQLITE_OK) {
		store_fail(st, "prepare");
		return NULL;
	}
	return st->q[q];
}

/* A statement for a walk whose callback may start the same walk again:
 * the cached one when it is free, else one of its own (finalized by
 * store_q_own_done()).  NULL: could not prepare. */
sqlite3_stmt *store_q_own(store *st, enum store_q q)
{
	if (st->q_busy[q]) {
		sqlite3_stmt *s;
		return sqlite3_prepare_v2(st->db, sql[q], -1, &s, NULL) == SQLITE_OK ? s : NULL;
	}
	sqlite3_stmt *s = store_q(st, q);
	st->q_busy[q] = s != NULL;
	return s;
}

void store_q_own_done(store *st, enum store_q q, sqlite3_stmt *s)
{
	if (s && s == st->q[q]) {
		store_q_done(s);
		st->q_busy[q] = false;
	} else {
		sqlite3_finalize(s);
	}
}

void store_q_done(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

/* SQLite reports a write that found no room as a plain I/O error (the
 * errno is often gone by then): look at the file system and the file size
 * limit to say which it was. */
static const char *io_cause(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		snprintf(dir, sizeof dir, ".");
	struct statvfs vfs;
	if (statvfs(dir, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < (1u << 20))
		return "disk full";
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		char wal[4200];
		struct stat sb;
		snprintf(wal, sizeof wal, "%s-wal", path);
		if ((stat(path, &sb) == 0 && (uint64_t)sb.st_size + (1u << 17) >= rl.rlim_cur) ||
		    (stat(wal, &sb) == 0 && (uint64_t)sb.st_size + (1u << 17) >= rl.rlim_cur))
			return "file size limit reached (ulimit -f)";
	}
	return NULL;
}

int store_fail(store *st, const char *what)
{
	int code = sqlite3_errcode(st->db), sys = sqlite3_system_errno(st->db);
	const char *why = sqlite3_errmsg(st->db);
	if (__atomic_load_n(&st->fault_hit, __ATOMIC_RELAXED))
		why = "disk I/O error (injected: CMC_STORE_FAULT)";
	else if (code == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
		why = "disk full";
	else if (sys == EFBIG)
		why = "file size limit reached";
	else if (code == SQLITE_IOERR && io_cause(st->path))
		why = io_cause(st->path);
	else if (code == SQLITE_READONLY)
		why = "read-only (no write access)";
	snprintf(st->err, sizeof st->err, "%s: %s: %s", st->path, what, why);
	return -1;
}

/* CMC_STORE_FAULT: 0 off, else the write to fail; fault_sticky: and every
 * later one.  Read once, before the first write (no writer thread yet). */
static long fault_at = -1;
static bool fault_sticky;
static unsigned long fault_writes;

static long fault_point(void)
{
	long at = __atomic_load_n(&fault_at, __ATOMIC_RELAXED);
	if (at >= 0)
		return at;
	const char *e = getenv("CMC_STORE_FAULT");
	char *end = NULL;
	at = e ? strtol(e, &end, 10) : 0;
	if (at < 0 || (end && *end && strcmp(end, "+") != 0))
		at = 0;
	fault_sticky = end && *end == '+';
	__atomic_store_n(&fault_at, at, __ATOMIC_RELAXED);
	return at;
}

int store_sqlite_step(store *st, sqlite3_stmt *s)
{
	long at = fault_point();
	if (at && (!sqlite3_stmt_readonly(s) || strncmp(sqlite3_sql(s), "COMMIT", 6) == 0)) {
		unsigned long n = __atomic_add_fetch(&fault_writes, 1, __ATOMIC_RELAXED);
		if (n == (unsigned long)at || (fault_sticky && n > (unsigned long)at)) {
			__atomic_store_n(&st->fault_hit, true, __ATOMIC_RELAXED);
			return SQLITE_IOERR;
		}
	}
	return sqlite3_step(s);
}

int store_exec_q(store *st, enum store_q q)
{
	sqlite3_stmt *s = store_q(st, q);
	if (!s)
		return -1;
	int rc = store_sqlite_step(st, s);
	int ret = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : store_fail(st, sql[q]);
	store_q_done(s);
	return ret;
}

void store_stmts_finalize(store *st)
{
	for (int i = 0; i < Q__COUNT; i++) {
		sqlite3_finalize(st->q[i]);
		st->q[i] = NULL;
		st->q_busy[i] = false;
	}
}

void store_fp_put(uint8_t out[16], eng_fp fp)
{
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(fp.hi >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(fp.lo >> (56 - 8 * i));
	}
}

eng_fp store_fp_col(sqlite3_stmt *s, int col)
{
	eng_fp fp = {0, 0};
	const uint8_t *b = sqlite3_column_blob(s, col);
	if (!b || sqlite3_column_bytes(s, col) != 16)
		return fp;
	for (int i = 0; i < 8; i++) {
		fp.hi = fp.hi << 8 | b[i];
		fp.lo = fp.lo << 8 | b[8 + i];
	}
	return fp;
}

int store_bind_fp(sqlite3_stmt *s, int idx, eng_fp fp)
{
	if (eng_fp_zero(fp))
		return sqlite3_bind_null(s, idx);
	uint8_t b[16];
	store_fp_put(b, fp);
	return sqlite3_bind_blob(s, idx, b, 16, SQLITE_TRANSIENT);
}

char *store_col_strdup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	return t ? eng_xstrdup((const char *)t) : NULL;
}
