/*
 * store-fuzzer.c — libFuzzer target for the store's readers over a crafted
 * database (store/read.c, compare.c, diff.c, find.c, resume.c): nothing a
 * database file holds is trusted, so a damaged or hostile one must give an
 * error, never a crash, a loop or an allocation sized by a stored field.
 *
 * The database is SQLite in memory with the current schema (store_open of
 * ":memory:", once); each input empties the tables and fills them with the
 * rows it describes, then runs every reading function over runs 1 and 2.
 * Input: a sequence of commands, each a byte choosing the table, then its
 * fields (little varints) and bytes.  State and edge records come either
 * structured (encoded by record.c's own writer, so the fuzzer reaches
 * past the decoder into the walks: parents, depths, ids) or as raw bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "store.h"

struct in {
	const uint8_t *p, *end;
};

static uint64_t num(struct in *in)
{
	uint64_t v = 0;
	for (int shift = 0; in->p < in->end && shift < 64; shift += 7) {
		uint8_t b = *in->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static const uint8_t *bytes(struct in *in, size_t *n)
{
	size_t want = (size_t)num(in) % 8192, have = (size_t)(in->end - in->p);
	*n = want < have ? want : have;
	const uint8_t *p = in->p;
	in->p += *n;
	return p;
}

/* Hashes come from a small set, so that rows find each other. */
static eng_fp fp_of(uint64_t k) { return (eng_fp){0x1000 + k % 8, 0x2000 + k % 8}; }

static void bind_fp(sqlite3_stmt *s, int i, eng_fp fp)
{
	uint8_t b[16];
	store_fp_put(b, fp);
	sqlite3_bind_blob(s, i, b, 16, SQLITE_TRANSIENT);
}

/* Statements prepared once, by their text's address (each call site
 * passes a literal). */
static sqlite3_stmt *prep(store *st, const char *sql)
{
	static struct {
		const char *sql;
		sqlite3_stmt *s;
	} cache[32];
	for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++) {
		if (cache[i].sql == sql)
			return cache[i].s;
		if (!cache[i].sql) {
			cache[i].sql = sql;
			sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &cache[i].s,
					   NULL);
			return cache[i].s;
		}
	}
	abort();
}

static void run_sql(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_step(s);
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

/* One encoding buffer for every row (reset, not freed): a malloc of
 * its 4 KiB per row is most of what a row costs under ASan. */
static struct store_buf buf;
static struct store_buf scratch_buf(void)
{
	struct store_buf b = buf;
	b.len = 0;
	return b;
}
static void keep_buf(struct store_buf b) { buf = b; }

static void put_states(store *st, struct in *in)
{
	sqlite3_stmt *s = prep(st, "INSERT OR IGNORE INTO state_blocks(run, first, count, data) VALUES(?1,?2,?3,?4)");
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, 1 + (int64_t)(num(in) & 1));
	sqlite3_bind_int64(s, 2, (int64_t)num(in));
	uint64_t count = num(in);
	struct store_buf b = scratch_buf();
	if (count & 1) { /* structured: count / 2 records */
		for (uint64_t i = 0; i < (count >> 1) % 64 && in->p < in->end; i++) {
			uint64_t parent = num(in), f = num(in);
			struct store_rec r = {
				.parent = parent == 0 ? ENG_NO_STATE : (uint32_t)(parent - 1),
				.label = (uint32_t)(f >> 8) % 4,
				.depth = (uint32_t)num(in),
				.fp = fp_of(f >> 2),
				.status = (int)(f & 3),
				.has_obs = f & 4,
				.raw_fp = fp_of(f >> 3), .canon_fp = fp_of(f >> 4),
				.raw_blob = fp_of(f >> 5), .canon_blob = fp_of(f >> 6),
				.reply_blob = fp_of(f >> 7),
			};
			size_t n;
			const uint8_t *p = bytes(in, &n);
			if (f & 8) {
				r.state = p;
				r.state_len = n;
			}
			store_buf_reserve(&b, 256 + n);
			store_rec_put(&b, &r);
		}
		count = (count >> 1) % 64;
	}
	sqlite3_bind_int64(s, 3, (int64_t)count);
	size_t n;
	const uint8_t *p = bytes(in, &n);
	store_buf_reserve(&b, n + 1);
	memcpy(b.p + b.len, p, n);
	b.len += n;
	sqlite3_bind_blob(s, 4, b.p ? b.p : (const uint8_t *)"", (int)b.len, SQLITE_STATIC);
	run_sql(s);
	keep_buf(b);
}

static void put_edges(store *st, struct in *in)
{
	sqlite3_stmt *s = prep(st, "INSERT OR IGNORE INTO edge_blocks(run, seq, min_src, max_src, count, edges,"
				   " data) VALUES(?1,?2,?3,?4,?5,?6,?7)");
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, 1 + (int64_t)(num(in) & 1));
	for (int i = 2; i <= 6; i++)
		sqlite3_bind_int64(s, i, (int64_t)num(in));
	struct store_buf b = scratch_buf();
	uint64_t k = num(in);
	for (uint64_t r = 0; r < k % 8 && in->p < in->end; r++) {
		struct store_edge_raw e[16];
		uint32_t src = (uint32_t)num(in);
		size_t ne = (size_t)num(in) % 16;
		for (size_t i = 0; i < ne; i++) {
			uint64_t v = num(in);
			e[i] = (struct store_edge_raw){(int64_t)(v % 4), (uint32_t)num(in), v & 4,
						       (v & 8) ? fp_of(v >> 4) : (eng_fp){0, 0}};
		}
		store_buf_reserve(&b, 64 + ne * 40);
		store_erec_put(&b, src, e, ne);
	}
	size_t n;
	const uint8_t *p = bytes(in, &n);
	store_buf_reserve(&b, n + 1);
	memcpy(b.p + b.len, p, n);
	b.len += n;
	sqlite3_bind_blob(s, 7, b.p ? b.p : (const uint8_t *)"", (int)b.len, SQLITE_STATIC);
	run_sql(s);
	keep_buf(b);
}

static void put_row(store *st, struct in *in, uint8_t kind)
{
	size_t n;
	const uint8_t *p;
	sqlite3_stmt *s;
	switch (kind % 8) {
	case 0:
		put_states(st, in);
		break;
	case 1:
		put_edges(st, in);
		break;
	case 2:
		s = prep(st, "INSERT OR IGNORE INTO levels(run, depth, states, first_id) VALUES(?1,?2,?3,?4)");
		if (!s)
			break;
		sqlite3_bind_int64(s, 1, 1 + (int64_t)(num(in) & 1));
		for (int i = 2; i <= 4; i++)
			sqlite3_bind_int64(s, i, (int64_t)num(in));
		run_sql(s);
		break;
	case 3:
		s = prep(st, "INSERT OR IGNORE INTO pred_blocks(run, bucket, data) VALUES(?1,?2,?3)");
		if (!s)
			break;
		sqlite3_bind_int64(s, 1, 1 + (int64_t)(num(in) & 1));
		sqlite3_bind_int64(s, 2, (int64_t)num(in));
		p = bytes(in, &n);
		sqlite3_bind_blob(s, 3, p, (int)n, SQLITE_STATIC);
		run_sql(s);
		break;
	case 4: /* a blob: whole, or paged (a list of page hashes) */
		s = prep(st, "INSERT OR IGNORE INTO blobs(hash, full_len, data, pages) VALUES(?1,?2,?3,?4)");
		if (!s)
			break;
		bind_fp(s, 1, fp_of(num(in)));
		sqlite3_bind_int64(s, 2, (int64_t)num(in));
		p = bytes(in, &n);
		sqlite3_bind_blob(s, 3, p, (int)n, SQLITE_STATIC);
		if (num(in) & 1) {
			p = bytes(in, &n);
			sqlite3_bind_blob(s, 4, p, (int)n, SQLITE_STATIC);
		}
		run_sql(s);
		break;
	case 5:
		s = prep(st, "INSERT OR IGNORE INTO pages(hash, data) VALUES(?1,?2)");
		if (!s)
			break;
		bind_fp(s, 1, fp_of(num(in)));
		p = bytes(in, &n);
		sqlite3_bind_blob(s, 2, p, (int)n, SQLITE_STATIC);
		run_sql(s);
		break;
	case 6:
		s = prep(st, "INSERT OR IGNORE INTO violations(run, property, message, state, source, label,"
			     " target) VALUES(?1, 'p', 'm', ?2, ?3, ?4, ?5)");
		if (!s)
			break;
		sqlite3_bind_int64(s, 1, 1 + (int64_t)(num(in) & 1));
		for (int i = 2; i <= 5; i++)
			sqlite3_bind_int64(s, i, (int64_t)num(in));
		run_sql(s);
		break;
	case 7:
		s = prep(st, "INSERT OR IGNORE INTO violation_steps(violation, step, label, fp) VALUES(?1,?2,?3,?4)");
		if (!s)
			break;
		for (int i = 1; i <= 3; i++)
			sqlite3_bind_int64(s, i, (int64_t)num(in));
		bind_fp(s, 4, fp_of(num(in)));
		run_sql(s);
		break;
	}
}

/* The readers, over a few states of both runs; results are thrown away.
 * One group per input (`group`, from its first byte), so that an input
 * costs a few dozen queries, not every reader's. */
static void read_all(store *st, unsigned group)
{
	store_run *runs;
	size_t nr;
	if (store_runs(st, &runs, &nr) == 0)
		store_runs_free(runs, nr);
	for (int64_t run = 1; run <= 2; run++) {
		uint64_t *counts;
		uint32_t maxd;
		if (store_depth_counts(st, run, &counts, &maxd) == 0)
			free(counts);
		for (uint32_t id = 0; group == 0 && id < 8; id++) {
			store_state s;
			if (store_state_get(st, run, id, &s) == 0) {
				uint8_t *d;
				size_t len, full;
				eng_fp b[3] = {s.raw_blob, s.canon_blob, s.reply_blob};
				for (int i = 0; i < 3; i++)
					if (store_blob(st, b[i], &d, &len, &full) == 0)
						free(d);
				store_state_clear(&s);
			}
			store_trace t;
			if (store_trace_to(st, run, id, &t) == 0)
				store_trace_clear(&t);
			store_edge *e;
			size_t n;
			if (store_successors(st, run, id, &e, &n) == 0)
				store_edges_free(e, n);
			if (store_predecessors(st, run, id, &e, &n) == 0)
				store_edges_free(e, n);
			uint8_t *bytes;
			size_t len;
			if (store_state_bytes(st, run, id, &bytes, &len) == 0)
				free(bytes);
		}
		store_edge *e;
		size_t n;
		if (group == 0)
			continue;
		if (group == 1) {
			store_compare c;
			if (store_compare_run(st, run, &c) == 0)
				store_compare_clear(&c);
			continue;
		}
		if (group == 2) {
			store_resume r;
			if (store_resume_prepare(st, run, &r) == 0)
				store_resume_clear(&r);
			uint32_t ids[8];
			store_find_fp_prefix(st, run, "0", ids, 8, &n);
			continue;
		}
		if (store_edges_range(st, run, 0, 64, &e, &n) == 0)
			store_edges_free(e, n);
		for (int order = 0; order < 2; order++) {
			store_state *page;
			if (store_states_page(st, run, order ? STORE_BY_DEPTH : STORE_BY_DISCOVERY, 2,
					      ENG_NO_STATE, 16, &page, &n) == 0)
				store_states_free(page, n);
		}
		store_violation *v;
		if (store_violations(st, run, &v, &n) == 0)
			store_violations_free(v, n);
		char **names;
		if (store_never_taken(st, run, &names, &n) == 0)
			store_strings_free(names, n);
	}
	store_diff d;
	if (group == 1 && store_diff_runs(st, 1, 2, &d) == 0)
		store_diff_clear(&d);
}

/* Page cache for the in-memory database, handed to SQLite before it
 * starts: each input's pages come from here, not from a malloc (under
 * ASan: filled, quarantined, then faulted in again) per page per input. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define DB_PAGE 4096
#define CACHE_PAGES 512
static uint64_t page_cache[(DB_PAGE + 512) * CACHE_PAGES / sizeof(uint64_t)];

/* Each input's rows, gone before the next one's: without a journal
 * (journal_mode OFF) a DELETE of a whole table only hands its pages to
 * the free list, where a ROLLBACK would first have copied every page the
 * input touched into a journal of 1 KiB mallocs. */
static void clear(store *st)
{
	run_sql(prep(st, "DELETE FROM state_blocks"));
	run_sql(prep(st, "DELETE FROM edge_blocks"));
	run_sql(prep(st, "DELETE FROM levels"));
	run_sql(prep(st, "DELETE FROM pred_blocks"));
	run_sql(prep(st, "DELETE FROM blobs"));
	run_sql(prep(st, "DELETE FROM pages"));
	run_sql(prep(st, "DELETE FROM violations"));
	run_sql(prep(st, "DELETE FROM violation_steps"));
}

static store *setup(void)
{
	/* one thread (same_thread: no writer thread either): no per-call
	 * lock of the connection's mutex */
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	int hdr = 0;
	sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr);
	int slot = (DB_PAGE + hdr + 7) & ~7;
	if (hdr > 0 && slot <= DB_PAGE + 512)
		sqlite3_config(SQLITE_CONFIG_PAGECACHE, page_cache, slot,
			       (int)(sizeof page_cache / (size_t)slot));
	char err[256];
	store_opts o = {.same_thread = true};
	store *st = store_open(":memory:", &o, err, sizeof err);
	if (!st)
		abort();
	/* small pages: the writer's 64 KiB ones cost a page fault and a
	 * memset each, every input.  The rows every input shares (four
	 * labels, two run_actions) are written once; each input's own rows
	 * go in a transaction rolled back after the readers have run, so the
	 * database is empty again without a DELETE of every table. */
	sqlite3_exec(st->db,
		     "PRAGMA page_size = " STR(DB_PAGE) "; VACUUM; PRAGMA cache_size = 400;"
		     "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;"
		     "INSERT INTO labels(id, text) VALUES(0, ''), (1, 'a'), (2, 'b'), (3, 'c');"
		     "INSERT INTO runs(id, kind, name, search_order, version, started, status)"
		     " VALUES(1, 'process', 'fuzz', 'bfs', 'f', 0, 'complete'),"
		     " (2, 'process', 'fuzz', 'bfs', 'f', 0, 'complete');"
		     "INSERT INTO run_actions(run, label, taken) VALUES(1, 1, 0), (2, 2, 1)",
		     NULL, NULL, NULL);
	return st;
}

/* ASan keeps freed memory poisoned in a quarantine (256 MiB by default)
 * before it is reused; an input frees some 100 KiB (SQLite's cursors and
 * registers, a few per query), so the default cycles every input through
 * fresh pages: page faults, not the store, were most of the time.
 * 16 MiB still holds the frees of the last hundred-odd inputs, so a use
 * after free within an input is caught as before.  ASAN_OPTIONS, when
 * set, takes precedence. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=16"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static store *st;
	if (!st)
		st = setup();
	struct in in = {data, data + size};
	run_sql(prep(st, "BEGIN"));
	clear(st);
	/* two runs (the first byte picks their order and status, and the
	 * readers run), four labels */
	uint8_t h = size ? data[0] : 0;
	const char *order[] = {"bfs", "dfs"}, *status[] = {"complete", "interrupted"};
	for (int r = 1; r <= 2; r++) {
		sqlite3_stmt *s = prep(st, "UPDATE OR IGNORE runs SET search_order = ?2, status = ?3,"
					   " expanded_below = ?4, pred_index = ?5 WHERE id = ?1");
		if (!s)
			continue;
		sqlite3_bind_int(s, 1, r);
		sqlite3_bind_text(s, 2, order[(h >> r) & 1], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, status[(h >> (r + 2)) & 1], -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 4, (h >> 5) & 3);
		sqlite3_bind_int(s, 5, (h >> 7) & 1);
		run_sql(s);
	}
	if (size)
		in.p++;
	while (in.p < in.end) {
		uint8_t kind = *in.p++;
		put_row(st, &in, kind);
	}
	run_sql(prep(st, "COMMIT"));
	read_all(st, h & 3);
	/* the reader's block cache holds this input's block: freed now, not
	 * at the next input's start, so that an input frees what it
	 * allocates (else libFuzzer runs it again to look for a leak) */
	free(st->sc.data);
	free(st->sc.off);
	memset(&st->sc, 0, sizeof st->sc);
	return 0;
}
