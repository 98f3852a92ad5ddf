/*
 * t2-store.c — the store written by a real search and read back: every
 * state and transition stored (counts equal the engine's and, for the
 * counters model, the closed forms), parents and depths consistent, traces
 * equal to the engine's, violations with their traces, pages by depth,
 * raw-vs-canonical grouping and content-addressed observations from
 * synthetic process-mode observations, run diffs, the schema refusing a
 * newer database and upgrading an older one, foreign and corrupt files
 * refused untouched, a writer killed by SIGKILL, and the cut-back that
 * --resume starts from.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmc_model.h"
#include "internal.h"
#include "store.h"
#include "tap.h"
#include "aborts.h"
#include "util.h"

extern const struct cmc_model cmc_model_diehard, cmc_model_diehard_solve;

/* ---- a model with closed-form counts ------------------------------------ */

/* N counters in 0..K-1, one action per counter that advances it below the
 * top.  distinct = K^N; transitions = N (K-1) K^(N-1); the states at depth
 * d are the vectors summing to d - 1. */
#define CN 3
static unsigned ck = 4;
struct cstate {
	uint8_t x[CN];
};
static void c_init(cmc_out *o)
{
	struct cstate s = {{0}};
	cmc_yield(o, &s, NULL);
}
#define C_ACT(i)                                                                        \
	static void c_inc##i(const void *p, cmc_out *o)                                 \
	{                                                                               \
		struct cstate s = *(const struct cstate *)p;                            \
		if (s.x[i] + 1u < ck) {                                                 \
			s.x[i]++;                                                       \
			cmc_yield(o, &s, NULL);                                         \
		}                                                                       \
	}
C_ACT(0)
C_ACT(1)
C_ACT(2)
static const struct cmc_action c_actions[] = {{"Inc0", c_inc0}, {"Inc1", c_inc1}, {"Inc2", c_inc2}};
static const struct cmc_model counters = {
	.abi = CMC_MODEL_ABI, .name = "counters", .summary = "test", .state_size = sizeof(struct cstate),
	.init = c_init, .actions = c_actions, .n_actions = 3, .deadlock_ok = true,
};

static uint64_t ipow(uint64_t b, unsigned e)
{
	uint64_t r = 1;
	while (e--)
		r *= b;
	return r;
}

/* ---- helpers ------------------------------------------------------------- */

static char dir[64];

static char *path_in(const char *name)
{
	static char buf[4][128];
	static int k;
	k = (k + 1) & 3;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static store *open_or_die(const char *path)
{
	char err[512];
	store *st = store_open(path, NULL, err, sizeof err);
	if (!st) {
		printf("# %s\n", err);
		exit(1);
	}
	return st;
}

struct checked_run {
	int64_t run;
	eng_stats st;
	eng_search *s;
	eng_frontend *fe;
};

/* Run a model to the end with the store listening. */
static struct checked_run run_model(store *st, const struct cmc_model *m, bool keep_going,
				    eng_listener *extra)
{
	struct checked_run r = {0};
	eng_opts o;
	eng_opts_default(&o);
	o.keep_going = keep_going;
	o.check_deadlock = !m->deadlock_ok;
	r.fe = eng_model_frontend(m);
	r.s = eng_search_new(r.fe, &o);
	const char *acts[8];
	for (unsigned i = 0; i < m->n_actions && i < 8; i++)
		acts[i] = m->actions[i].name;
	store_run_info info = {.kind = "model", .name = m->name, .actions = acts,
			       .n_actions = m->n_actions};
	r.run = store_run_begin(st, &info);
	eng_listener l;
	store_listener(st, r.s, &l);
	eng_search_listen(r.s, &l);
	if (extra)
		eng_search_listen(r.s, extra);
	eng_search_run(r.s);
	r.st = *eng_search_stats(r.s);
	store_run_end(st, r.st.violations ? "violation" : "complete", &r.st);
	return r;
}

static void free_run(struct checked_run *r)
{
	eng_search_free(r->s);
	r->fe->ops->destroy(r->fe);
}

/* Every state's parent is stored, one level up, and the tree edge into the
 * state exists with its label. */
static bool tree_consistent(store *st, int64_t run, uint64_t n, char *why, size_t whylen)
{
	for (uint32_t id = 0; id < n; id++) {
		store_state s, p;
		if (store_state_get(st, run, id, &s) != 0) {
			snprintf(why, whylen, "state %u missing", id);
			return false;
		}
		bool good = true;
		if (s.parent != ENG_NO_STATE) {
			good = store_state_get(st, run, s.parent, &p) == 0 && p.depth + 1 == s.depth;
			if (good)
				store_state_clear(&p);
			store_edge *e;
			size_t ne;
			bool tree = false;
			if (good && store_predecessors(st, run, id, &e, &ne) == 0) {
				for (size_t i = 0; i < ne; i++)
					if (e[i].from == s.parent && e[i].new_state &&
					    strcmp(e[i].label, s.label) == 0)
						tree = true;
				store_edges_free(e, ne);
			}
			good = good && tree;
		} else {
			good = s.depth == 1;
		}
		store_state_clear(&s);
		if (!good) {
			snprintf(why, whylen, "state %u: parent, depth or tree edge wrong", id);
			return false;
		}
	}
	return true;
}

/* ---- the parts ------------------------------------------------------------ */

/* One count from the database: a query with the run as ?1. */
static int64_t rows_count(store *st, const char *sql, int64_t run)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
	sqlite3_finalize(q);
	return n;
}

/* In a child: the rows of a.db's run 1 broken by `sql` (never committed),
 * then validated. */
static const char *rows_break_sql;
static void rows_broken(void *arg)
{
	store *st = open_or_die(path_in("a.db"));
	sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL);
	sqlite3_exec(st->db, rows_break_sql, NULL, NULL, NULL);
	store_rows_is_valid(st, 1, *(uint32_t *)arg);
}

static void t_diehard(void)
{
	store *st = open_or_die(path_in("a.db"));
	struct checked_run r = run_model(st, &cmc_model_diehard, false, NULL);
	store_run info;
	ok(store_run_get(st, r.run, &info) == 0, "diehard run read back");
	ok(strcmp(info.status, "complete") == 0, "status complete (%s)", info.status);
	ok(info.stored_states == r.st.distinct && info.distinct == r.st.distinct,
	   "states stored %llu == distinct %llu", (unsigned long long)info.stored_states,
	   (unsigned long long)r.st.distinct);
	/* TLC: DieHard has 16 distinct states, 97 generated (1 + 16 * 6). */
	ok(r.st.distinct == 16 && r.st.generated == 97, "diehard 16 distinct, 97 generated");
	ok(info.stored_transitions == r.st.generated - 1,
	   "every transition stored: %llu == generated - initial",
	   (unsigned long long)info.stored_transitions);
	char why[128] = "";
	ok(tree_consistent(st, r.run, r.st.distinct, why, sizeof why), "tree consistent %s", why);

	/* Traces equal the engine's. */
	bool same = true;
	for (uint32_t id = 0; id < r.st.distinct && same; id++) {
		eng_trace *et = eng_search_trace(r.s, id);
		store_trace t;
		same = et && store_trace_to(st, r.run, id, &t) == 0 && t.len == et->len;
		for (size_t i = 0; same && i < t.len; i++)
			same = strcmp(t.labels[i], et->labels[i]) == 0 &&
			       eng_fp_eq(t.fps[i], et->fps[i]);
		if (same)
			same = t.states[t.len] == id && eng_fp_eq(t.init_fp, et->init_fp);
		store_trace_clear(&t);
		eng_trace_free(et);
	}
	ok(same, "stored traces equal the engine's for every state");

	store_edge *e;
	size_t ne;
	ok(store_successors(st, r.run, 0, &e, &ne) == 0 && ne == 6, "initial state has 6 successors");
	store_edges_free(e, ne);
	char **never;
	size_t nn;
	ok(store_never_taken(st, r.run, &never, &nn) == 0 && nn == 0, "every action taken");
	store_strings_free(never, nn);

	/* the SQL rows: the blocks' states and transitions, and valid */
	ok(rows_count(st, "SELECT count(*) FROM state_rows WHERE run = ?1", r.run) == 16 &&
		   rows_count(st, "SELECT count(*) FROM transition_rows WHERE run = ?1", r.run) == 96,
	   "16 state rows, 96 transition rows");
	uint32_t n = (uint32_t)r.st.distinct;
	ok(r.run == 1 && store_rows_is_valid(st, r.run, n), "the rows are valid");
	rows_break_sql = "DELETE FROM state_rows WHERE id = 5";
	aborts(rows_broken, &n, "15 state rows", "a state row missing");
	rows_break_sql = "UPDATE state_rows SET parent = 9 WHERE id = 3";
	aborts(rows_broken, &n, "parent is no earlier state", "a parent after its child");
	rows_break_sql = "UPDATE transition_rows SET target = 16 WHERE source = 2";
	aborts(rows_broken, &n, "end beyond the 16 states", "a transition to no state");
	ok(store_rows_is_valid(st, r.run, n), "the parent's rows are untouched");
	store_run_clear(&info);
	free_run(&r);
	store_close(st);
}

static void t_violation(void)
{
	store *st = open_or_die(path_in("a.db"));
	struct checked_run r = run_model(st, &cmc_model_diehard_solve, false, NULL);
	store_violation *v;
	size_t nv;
	ok(store_violations(st, r.run, &v, &nv) == 0 && nv == 1, "one violation stored");
	if (nv == 1) {
		/* TLC's DieHard counterexample: 6 steps to big = 4. */
		ok(strstr(v[0].property, "NotSolved") && v[0].trace.len == 6,
		   "NotSolved with a 6-step trace (%s, %zu)", v[0].property, v[0].trace.len);
		eng_trace *et = eng_search_trace(r.s, v[0].state);
		bool same = et && et->len == v[0].trace.len;
		for (size_t i = 0; same && i < et->len; i++)
			same = strcmp(et->labels[i], v[0].trace.labels[i]) == 0 &&
			       v[0].trace.states[i + 1] != ENG_NO_STATE;
		ok(same, "violation trace equals the engine's and maps onto stored states");
		eng_trace_free(et);
		store_state s;
		ok(store_state_get(st, r.run, v[0].state, &s) == 0 && s.status == STORE_VIOLATION,
		   "violating state marked");
		store_state_clear(&s);
		store_violation one;
		ok(store_violation_get(st, v[0].id, &one) == 0 && one.trace.len == 6,
		   "violation by id");
		store_violation_clear(&one);
	}
	store_violations_free(v, nv);
	store_run info;
	store_run_get(st, r.run, &info);
	ok(strcmp(info.status, "violation") == 0, "run status violation");
	store_run_clear(&info);
	free_run(&r);
	store_close(st);
}

static void t_counters(void)
{
	store *st = open_or_die(path_in("a.db"));
	ck = 4;
	struct checked_run r = run_model(st, &counters, false, NULL);
	uint64_t want = ipow(ck, CN), want_tr = CN * (ck - 1) * ipow(ck, CN - 1);
	store_run info;
	store_run_get(st, r.run, &info);
	ok(info.stored_states == want && info.stored_transitions == want_tr,
	   "counters: %llu states (K^N = %llu), %llu transitions (N(K-1)K^(N-1) = %llu)",
	   (unsigned long long)info.stored_states, (unsigned long long)want,
	   (unsigned long long)info.stored_transitions, (unsigned long long)want_tr);
	store_run_clear(&info);
	/* states at depth d: vectors in 0..K-1 summing to d - 1 */
	uint64_t *counts;
	uint32_t maxd;
	bool good = store_depth_counts(st, r.run, &counts, &maxd) == 0 && maxd == CN * (ck - 1) + 1;
	for (uint32_t d = 1; good && d <= maxd; d++) {
		uint64_t n = 0;
		for (unsigned a = 0; a < ck; a++)
			for (unsigned b = 0; b < ck; b++)
				for (unsigned c = 0; c < ck; c++)
					n += a + b + c == d - 1;
		good = counts[d] == n;
		/* page through that level 2 at a time */
		uint64_t seen = 0;
		uint32_t after = ENG_NO_STATE;
		for (;;) {
			store_state *p;
			size_t np;
			if (store_states_page(st, r.run, STORE_BY_DEPTH, d, after, 2, &p, &np) < 0)
				good = false;
			for (size_t i = 0; i < np; i++)
				good = good && p[i].depth == d;
			seen += np;
			if (np)
				after = p[np - 1].id;
			store_states_free(p, np);
			if (np < 2)
				break;
		}
		good = good && seen == n;
	}
	ok(good, "depth counts and pages by depth match the closed form");
	/* A levels row out of every range (the store fuzzer's: a depth or
	 * first id of 2^63 - 1, whose successor overflowed an int64 under
	 * UBSan): the page by depth scans instead, and still finds level 2's
	 * states.  Depth 0 comes first, so the overflowed sum is used. */
	int bad_row = sqlite3_exec(st->db, "INSERT INTO levels(run, depth, states, first_id) VALUES (1, 0, 1, "
				   "9223372036854775807)", NULL, NULL, NULL);
	ok(bad_row == SQLITE_OK, "a levels row out of range written (depth 0, first_id 2^63 - 1)");
	{
		store_state *q;
		size_t nq;
		bool found = store_states_page(st, r.run, STORE_BY_DEPTH, 2, ENG_NO_STATE, 64, &q, &nq) == 0 &&
			     nq == CN;
		for (size_t i = 0; found && i < nq; i++)
			found = q[i].depth == 2;
		store_states_free(q, nq);
		ok(found, "a levels row out of range: the page by depth scans, level 2 whole (%u states)", CN);
	}
	free(counts);
	store_state *p;
	size_t np;
	ok(store_states_page(st, r.run, STORE_BY_DISCOVERY, 0, 9, 5, &p, &np) == 0 && np == 5 &&
		   p[0].id == 10 && p[4].id == 14,
	   "page by discovery");
	store_states_free(p, np);
	free_run(&r);

	/* A diff against the same model with K = 3: B lacks every state with a
	 * counter at 3; the first parting is Inc0 from the state (2,0,0). */
	ck = 3;
	struct checked_run r3 = run_model(st, &counters, false, NULL);
	store_diff d;
	ok(store_diff_runs(st, r.run, r3.run, &d) == 0, "diff runs");
	ok(d.only_a.n == ipow(4, CN) - ipow(3, CN) && d.only_b.n == 0,
	   "only in K=4: %zu == 4^3 - 3^3, only in K=3: %zu", d.only_a.n, d.only_b.n);
	bool part = d.parted && d.label && strcmp(d.label, "Inc0") == 0 && d.to_b == ENG_NO_STATE;
	if (part) {
		store_state s;
		part = store_state_get(st, r.run, d.from_a, &s) == 0 && s.depth == 3;
		store_state_clear(&s);
	}
	ok(part, "graphs part at Inc0 from depth 3 (%s)", d.label ? d.label : "-");
	store_diff_clear(&d);
	ok(store_diff_runs(st, r3.run, r3.run, &d) == 0 && !d.parted && !d.only_a.n && !d.only_b.n,
	   "a run does not differ from itself");
	store_diff_clear(&d);
	free_run(&r3);
	ck = 4;
	store_close(st);
}

/* ---- synthetic process-mode observations ------------------------------- */

/*
 * The list example's shape: a set of up to three inserted values where the
 * order of insertion changes the heap but not the set.  States are
 * insertion sequences of distinct values from {1,2,3}; raw identity is the
 * sequence, canonical the set: 16 sequences (incl. empty) over 8 subsets.
 */
static void t_compare(void)
{
	store *st = open_or_die(path_in("b.db"));
	store_run_info info = {.kind = "process", .name = "list-synthetic"};
	int64_t run = store_run_begin(st, &info);
	eng_listener l;
	store_listener(st, NULL, &l);
	/* enumerate sequences breadth-first */
	int seq[16][3], len[16], n = 1;
	len[0] = 0;
	uint8_t heap[64];
	uint32_t parent_of[16];
	parent_of[0] = ENG_NO_STATE;
	for (int i = 0; i < n; i++)
		for (int v = 1; v <= 3; v++) {
			bool used = false;
			for (int k = 0; k < len[i]; k++)
				used |= seq[i][k] == v;
			if (used)
				continue;
			memcpy(seq[n], seq[i], sizeof seq[n]);
			seq[n][len[i]] = v;
			len[n] = len[i] + 1;
			parent_of[n] = (uint32_t)i;
			n++;
		}
	for (int i = 0; i < n; i++) {
		memset(heap, 0, sizeof heap);
		unsigned set = 0;
		for (int k = 0; k < len[i]; k++) {
			heap[16 * k] = (uint8_t)seq[i][k]; /* nodes in allocation order */
			set |= 1u << seq[i][k];
		}
		char canon[8];
		int cl = snprintf(canon, sizeof canon, "%u", set);
		const char reply[] = "OK\n\x1b[31m"; /* a reply with an escape sequence */
		eng_obs o = {.raw = eng_fp_of(heap, sizeof heap),
			     .canon = eng_fp_of(canon, (size_t)cl),
			     .raw_bytes = heap, .raw_len = sizeof heap,
			     .canon_rec = (const uint8_t *)canon, .canon_len = (size_t)cl,
			     .reply = (const uint8_t *)reply, .reply_len = sizeof reply - 1,
			     .flags = ENG_OBS_CANON | ENG_OBS_ALLOC, .alloc_checked = 7,
			     .alloc_failed = i == 5 ? 2 : 0};
		/* as the engine does: a label's text stays at its pointer for
		 * the whole run (engine/labels.h) */
		static char labels[5][8];
		int v = len[i] ? seq[i][len[i] - 1] : 0;
		char *label = labels[v];
		snprintf(label, sizeof labels[v], "INS %d", v);
		eng_state_info si = {(uint32_t)i, parent_of[i], label, (uint32_t)len[i] + 1,
				     eng_fp_combine(o.raw, o.canon), NULL, 0, &o, false};
		l.on_state(l.ctx, &si);
		eng_edge e = {(uint32_t)i, true, label, &o};
		if (parent_of[i] != ENG_NO_STATE)
			l.on_edges(l.ctx, parent_of[i], &e, 1);
	}
	eng_stats fin = {.distinct = (uint64_t)n, .complete = true};
	store_run_end(st, "complete", &fin);

	store_compare c;
	ok(store_compare_run(st, run, &c) == 0, "compare");
	ok(c.raw_distinct == 16 && c.canon_distinct == 8 && c.n_groups == 8,
	   "16 raw over 8 canonical (%llu, %llu)", (unsigned long long)c.raw_distinct,
	   (unsigned long long)c.canon_distinct);
	ok(c.merge_factor == 2.0, "merge factor 2");
	/* {1,2} is reached by INS 1, INS 2 and by INS 2, INS 1 */
	bool found = false;
	for (size_t g = 0; g < c.n_groups; g++) {
		if (c.groups[g].n_raw != 2)
			continue;
		store_state s;
		uint8_t *data;
		size_t dl, full;
		store_state_get(st, run, c.groups[g].states[0], &s);
		if (store_blob(st, s.canon_blob, &data, &dl, &full) == 0 && dl == 1 &&
		    data[0] == '6')
			found = true;
		free(data);
		store_state_clear(&s);
	}
	ok(found, "{1,2} has two raw variants");
	store_compare_clear(&c);

	store_state s;
	ok(store_state_get(st, run, 5, &s) == 0 && s.alloc_failed == 2 && s.alloc_checked == 7 &&
		   (s.obs_flags & ENG_OBS_CANON) && !eng_fp_zero(s.raw_fp) && !eng_fp_zero(s.canon_fp),
	   "observation fields and allocator status stored");
	uint8_t *data;
	size_t dl, full;
	ok(store_blob(st, s.reply_blob, &data, &dl, &full) == 0 && dl == 8 &&
		   memcmp(data, "OK\n\x1b[31m", 8) == 0,
	   "reply bytes stored exactly");
	free(data);
	store_state_clear(&s);
	/* content addressing: 16 heaps + 8 records + 1 reply */
	sqlite3_stmt *q;
	sqlite3_prepare_v2(st->db, "SELECT count(*) FROM blobs", -1, &q, NULL);
	sqlite3_step(q);
	ok(sqlite3_column_int(q, 0) == 25, "blobs stored once per content (%d)",
	   sqlite3_column_int(q, 0));
	sqlite3_finalize(q);
	store_close(st);

	/* the raw cap */
	store_opts so = {.raw_cap = 10};
	char err[256];
	st = store_open(path_in("c.db"), &so, err, sizeof err);
	run = store_run_begin(st, &info);
	store_listener(st, NULL, &l);
	uint8_t big[100];
	memset(big, 0xab, sizeof big);
	eng_obs o = {.raw = eng_fp_of(big, sizeof big), .raw_bytes = big, .raw_len = sizeof big};
	eng_state_info si = {0, ENG_NO_STATE, NULL, 1, o.raw, NULL, 0, &o, false};
	l.on_state(l.ctx, &si);
	store_run_end(st, "complete", NULL);
	store_state_get(st, run, 0, &s);
	ok(store_blob(st, s.raw_blob, &data, &dl, &full) == 0 && dl == 10 && full == 100,
	   "raw snapshot capped at 10 of 100 bytes");
	free(data);
	store_state_clear(&s);
	store_close(st);
}

/* ---- schema and bad files ------------------------------------------------ */

static bool file_equals(const char *path, const void *bytes, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[8192];
	size_t got = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return got == n && memcmp(buf, bytes, n) == 0;
}

static void t_schema(void)
{
	char err[512];
	/* an older database: only migration 1, with a run in it */
	const char *old = path_in("old.db");
	sqlite3 *db;
	sqlite3_open(old, &db);
	sqlite3_exec(db, store_migrations[0], NULL, NULL, NULL);
	char sql[256];
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 1;"
		 "INSERT INTO runs(kind, name, version, started, status)"
		 " VALUES('model', 'old', '0.0.1', 0, 'complete')", STORE_APP_ID);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	store *st = store_open(old, NULL, err, sizeof err);
	ok(st != NULL, "an older schema opens (%s)", st ? "" : err);
	if (st) {
		store_run *r;
		size_t n;
		ok(store_runs(st, &r, &n) == 0 && n == 1 && strcmp(r[0].name, "old") == 0,
		   "its run survives the upgrade");
		store_runs_free(r, n);
		sqlite3_stmt *q;
		sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &q, NULL);
		sqlite3_step(q);
		ok(sqlite3_column_int(q, 0) == STORE_SCHEMA_VERSION, "upgraded to version %d",
		   STORE_SCHEMA_VERSION);
		sqlite3_finalize(q);
		store_close(st);
	}

	/* a newer one is refused and left alone */
	const char *newer = path_in("new.db");
	sqlite3_open(newer, &db);
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 99;"
		 "CREATE TABLE future(x)", STORE_APP_ID);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	FILE *f = fopen(newer, "rb");
	static char before[65536];
	size_t nb = fread(before, 1, sizeof before, f);
	fclose(f);
	st = store_open(newer, NULL, err, sizeof err);
	ok(!st && strstr(err, "newer cmc"), "a newer schema is refused: %s", err);
	ok(file_equals(newer, before, nb), "and left untouched");

	/* a foreign SQLite database */
	const char *foreign = path_in("foreign.db");
	sqlite3_open(foreign, &db);
	sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", NULL, NULL, NULL);
	sqlite3_close(db);
	st = store_open(foreign, NULL, err, sizeof err);
	ok(!st && strstr(err, "not a cmc database"), "a foreign database is refused: %s", err);

	/* garbage */
	const char *junk = path_in("junk.db");
	char garbage[4096];
	for (size_t i = 0; i < sizeof garbage; i++)
		garbage[i] = (char)(i * 7 + 3);
	f = fopen(junk, "wb");
	fwrite(garbage, 1, sizeof garbage, f);
	fclose(f);
	st = store_open(junk, NULL, err, sizeof err);
	ok(!st && strstr(err, "not a cmc database"), "a corrupt file is refused: %s", err);
	ok(file_equals(junk, garbage, sizeof garbage), "and left untouched");
	ok(access(path_in("junk.db-wal"), F_OK) != 0, "no WAL file created beside it");

	store_opts ro = {.readonly = true};
	st = store_open(path_in("missing.db"), &ro, err, sizeof err);
	ok(!st && access(path_in("missing.db"), F_OK) != 0, "read-only open does not create: %s",
	   err);
}

/* ---- killed writer and resume ----------------------------------------- */

static int kill_after;
static const char *kill_db;
/* Killed at state kill_after, once a commit point is in the file: the
 * writer thread commits in the background, so without waiting for it how
 * much is kept would depend on how the threads were scheduled. */
static void suicide(void *ctx, const eng_state_info *s)
{
	if (s->id != (uint32_t)kill_after)
		return;
	store_opts ro = {.readonly = true};
	char err[256];
	for (int i = 0; i < 2000; i++) { /* at most ~10 s */
		store *st = store_open(kill_db, &ro, err, sizeof err);
		store_run info;
		bool kept = false;
		if (st && store_run_get(st, store_latest_run(st), &info) == 0) {
			kept = info.stored_states > 0;
			store_run_clear(&info);
		}
		store_close(st);
		if (kept)
			break;
		usleep(5000);
	}
	raise(SIGKILL);
}

struct dangling {
	uint64_t n, bad, edges;
};
static bool dangling_cb(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n)
{
	struct dangling *d = ctx;
	for (size_t i = 0; i < n; i++)
		d->bad += e[i].dst >= d->n || src >= d->n;
	d->edges += n;
	return true;
}

static void t_kill_and_resume(void)
{
	ck = 16; /* 4096 states */
	const char *path = path_in("k.db");
	pid_t pid = fork();
	if (pid == 0) {
		store_opts so = {.batch_rows = 300};
		char err[256];
		store *st = store_open(path, &so, err, sizeof err);
		if (!st)
			_exit(3);
		kill_after = 2500;
		kill_db = path;
		eng_listener l = {.on_state = suicide};
		run_model(st, &counters, false, &l);
		_exit(4);
	}
	int wst;
	waitpid(pid, &wst, 0);
	ok(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL, "writer killed by SIGKILL");
	store *st = open_or_die(path);
	int64_t run = store_latest_run(st);
	store_run info;
	ok(store_run_get(st, run, &info) == 0 && strcmp(info.status, "interrupted") == 0 &&
		   !info.writer_alive,
	   "killed run reads interrupted (%s)", info.status);
	uint64_t kept = info.stored_states;
	ok(kept > 0 && kept < 2500, "committed batches kept: %llu states", (unsigned long long)kept);
	char why[128] = "";
	ok(tree_consistent(st, run, kept, why, sizeof why), "every stored state's parent present %s",
	   why);
	struct dangling d = {kept, 0, 0};
	ok(store_each_edges(st, run, dangling_cb, &d) == 0 && d.bad == 0 && d.edges > 0,
	   "no transition into a missing state (%llu edges)", (unsigned long long)d.edges);
	store_run_clear(&info);

	/* Cut back for resume; the kept prefix equals an uninterrupted run's. */
	store_resume rs;
	ok(store_resume_prepare(st, run, &rs) == 0, "resume prepared (%s)", store_error(st));
	struct checked_run full = run_model(st, &counters, false, NULL);
	bool same = rs.n > 0 && rs.expanded_below <= rs.n;
	for (uint32_t i = 0; same && i < rs.n; i++)
		same = eng_fp_eq(rs.fp[i], eng_search_fp(full.s, i)) &&
		       rs.parent[i] == eng_search_parent(full.s, i) && rs.state[i] &&
		       rs.state_len[i] == sizeof(struct cstate);
	ok(same, "resume prefix (%u states, frontier from %u) equals the full run's", rs.n,
	   rs.expanded_below);
	/* every state below the frontier has exactly its full-run successors */
	store_edge *e;
	size_t ne;
	bool edges = true;
	uint64_t stored_tr = 0;
	for (uint32_t i = 0; i < rs.n && edges; i++) {
		edges = store_successors(st, run, i, &e, &ne) == 0;
		store_edge *fe;
		size_t nfe;
		store_successors(st, full.run, i, &fe, &nfe);
		if (i < rs.expanded_below)
			edges = edges && ne == nfe;
		else
			edges = edges && ne == 0;
		stored_tr += ne;
		store_edges_free(e, ne);
		store_edges_free(fe, nfe);
	}
	ok(edges && stored_tr == rs.transitions,
	   "transitions kept only for expanded states (%llu)", (unsigned long long)stored_tr);
	store_resume_clear(&rs);
	free_run(&full);
	store_close(st);
	ck = 4;
}

/* ---- steps by hand (the workbench) and what --resume trusts ------------- */

static void stop_at(void *ctx, const eng_state_info *s)
{
	if (s->id >= 12)
		eng_search_stop(ctx);
}

static int64_t expanded_below(store *st, int64_t run)
{
	sqlite3_stmt *q;
	int64_t e = -1;
	if (sqlite3_prepare_v2(st->db, "SELECT expanded_below FROM runs WHERE id = ?1", -1, &q,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, run);
		if (sqlite3_step(q) == SQLITE_ROW)
			e = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	return e;
}

/* Successors of a counters state: one per counter below the top. */
static size_t counters_succ(store *st, int64_t run, uint32_t id)
{
	uint8_t *b;
	size_t len, n = 0;
	if (store_state_bytes(st, run, id, &b, &len) != 0 || len != sizeof(struct cstate))
		return SIZE_MAX;
	for (int i = 0; i < CN; i++)
		n += b[i] + 1u < ck;
	free(b);
	return n;
}

/*
 * As the workbench drives it: two hand steps from the initial state, one
 * further down, a search focused on a deep state and stopped, then the
 * writer killed.  Every hand step shows among the successors at once (a
 * second read handle, after store_sync), the hand steps and the focused
 * search leave expanded_below at 0, and --resume from there reaches every
 * state with exactly its successors.
 */
static void t_hand_steps(void)
{
	const char *path = path_in("h.db");
	int pfd[2];
	if (pipe(pfd) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		store *st = open_or_die(path);
		eng_opts o;
		eng_opts_default(&o);
		eng_frontend *fe = eng_model_frontend(&counters);
		eng_search *s = eng_search_new(fe, &o);
		store_run_info info = {.kind = "model", .name = "counters"};
		int64_t run = store_run_begin(st, &info);
		eng_listener l;
		store_listener(st, s, &l);
		eng_search_listen(s, &l);
		eng_listener stopper = {.on_state = stop_at, .ctx = s};
		uint32_t a = 0, b = 0, c = 0;
		int64_t e[3];
		eng_search_init(s);
		store_sync(st);
		store_hand_steps(st, true);
		eng_search_apply(s, 0, "Inc0", &a);
		store_hand_steps(st, false);
		store_sync(st);
		store_hand_steps(st, true);
		eng_search_apply(s, 0, "Inc1", &b);
		store_hand_steps(st, false);
		store_sync(st);
		/* what the UI's read-only handle sees now */
		char err[256];
		store_opts ro = {.readonly = true};
		store *rd = store_open(path, &ro, err, sizeof err);
		store_edge *ed = NULL;
		size_t ne = 0;
		int two = rd && store_successors(rd, run, 0, &ed, &ne) == 0 && ne == 2 &&
			  ed[0].to == a && strcmp(ed[0].label, "Inc0") == 0 && ed[1].to == b &&
			  strcmp(ed[1].label, "Inc1") == 0;
		store_edges_free(ed, ne);
		e[0] = rd ? expanded_below(rd, run) : -1;
		store_hand_steps(st, true);
		eng_search_apply(s, a, "Inc0", &c);
		store_hand_steps(st, false);
		store_sync(st);
		e[1] = rd ? expanded_below(rd, run) : -1;
		eng_search_focus(s, c);
		store_frontier_replaced(st);
		eng_search_listen(s, &stopper);
		eng_search_run(s);
		store_sync(st);
		e[2] = rd ? expanded_below(rd, run) : -1;
		int64_t msg[5] = {two, e[0], e[1], e[2], (int64_t)eng_search_count(s)};
		if (write(pfd[1], msg, sizeof msg) != sizeof msg)
			_exit(3);
		raise(SIGKILL);
	}
	close(pfd[1]);
	int64_t msg[5] = {0, -1, -1, -1, 0};
	ssize_t got = read(pfd[0], msg, sizeof msg);
	close(pfd[0]);
	int wst;
	waitpid(pid, &wst, 0);
	ok(got == sizeof msg && msg[0] == 1,
	   "two hand steps from one state: both edges read back at once (store_sync)");
	ok(msg[1] == 0 && msg[2] == 0, "hand steps leave expanded_below at 0 (%lld, %lld)",
	   (long long)msg[1], (long long)msg[2]);
	ok(msg[3] == 0 && msg[4] > 12,
	   "a focused search leaves it at 0 too (%lld after %lld states)", (long long)msg[3],
	   (long long)msg[4]);

	/* resume, as cmc check --resume does */
	store *st = open_or_die(path);
	int64_t run = store_latest_run(st);
	store_resume rs;
	int prep = store_resume_prepare(st, run, &rs);
	ok(prep == 0 && rs.expanded_below == 0 && rs.n == (uint32_t)msg[4],
	   "resume prepared: %u states, frontier from %u (%s)", rs.n, rs.expanded_below,
	   prep ? store_error(st) : "");
	if (prep != 0) {
		store_close(st);
		return;
	}
	eng_opts o;
	eng_opts_default(&o);
	eng_frontend *fe = eng_model_frontend(&counters);
	eng_search *s = eng_search_new(fe, &o);
	char err[256] = "";
	int rr = store_resume_search(&rs, s, 0, err, sizeof err);
	store_resume_clear(&rs);
	ok(rr == 0 && store_run_continue(st, run) == 0, "resumed %s", err);
	eng_listener l;
	store_listener(st, s, &l);
	eng_search_listen(s, &l);
	eng_search_run(s);
	eng_stats fin = *eng_search_stats(s);
	store_run_end(st, "complete", &fin);
	ok(fin.distinct == ipow(ck, CN) && fin.complete, "resumed run reaches all %llu states",
	   (unsigned long long)fin.distinct);
	bool each = true;
	uint64_t total = 0;
	for (uint32_t id = 0; id < fin.distinct && each; id++) {
		store_edge *ed;
		size_t ne;
		each = store_successors(st, run, id, &ed, &ne) == 0 && ne == counters_succ(st, run, id);
		for (size_t i = 0; each && i < ne; i++)
			for (size_t k = 0; k < i; k++)
				each = each && !(ed[k].to == ed[i].to &&
						 strcmp(ed[k].label, ed[i].label) == 0);
		if (!each)
			printf("# state %u: %zu successors\n", id, ne);
		total += ne;
		store_edges_free(ed, ne);
	}
	ok(each && total == CN * (ck - 1) * ipow(ck, CN - 1),
	   "every state has exactly its successors, merged from all its records (%llu)",
	   (unsigned long long)total);
	/* the SQL rows merge them the same: one row per merged transition */
	ok(rows_count(st, "SELECT count(*) FROM transition_rows WHERE run = ?1", run) ==
		   (int64_t)total,
	   "a transition row for each merged transition, after steps by hand and a resume");
	ok(store_rows_is_valid(st, run, (uint32_t)fin.distinct), "the rows are valid");

	/* Predecessors through the index equal the successor lists turned
	 * around: count the edges into each state, then check each one. */
	uint32_t nst = (uint32_t)fin.distinct;
	size_t *into = eng_xcalloc(nst, sizeof *into);
	bool preds = true;
	for (uint32_t id = 0; id < nst; id++) {
		store_edge *ed;
		size_t ne;
		store_successors(st, run, id, &ed, &ne);
		for (size_t i = 0; i < ne; i++)
			if (ed[i].to < nst)
				into[ed[i].to]++;
		store_edges_free(ed, ne);
	}
	for (uint32_t id = 0; id < nst && preds; id++) {
		store_edge *pe;
		size_t np;
		preds = store_predecessors(st, run, id, &pe, &np) == 0 && np == into[id];
		for (size_t i = 0; preds && i < np; i++) {
			store_edge *ed;
			size_t ne;
			bool there = false;
			store_successors(st, run, pe[i].from, &ed, &ne);
			for (size_t k = 0; k < ne; k++)
				there = there || (ed[k].to == id && strcmp(ed[k].label, pe[i].label) == 0);
			store_edges_free(ed, ne);
			preds = there && pe[i].to == id;
		}
		if (!preds)
			printf("# state %u: %zu predecessors, %zu edges into it\n", id, np, into[id]);
		store_edges_free(pe, np);
	}
	free(into);
	ok(preds, "predecessors (indexed) are exactly the edges into each state");

	/* fingerprint prefixes: every state found by a prefix of its own
	 * fingerprint, in either case; counted against a plain comparison */
	bool found_all = true;
	for (uint32_t id = 0; id < nst && found_all; id++) {
		store_state s1;
		char hex[33];
		store_state_get(st, run, id, &s1);
		eng_fp_hex(s1.fp, hex);
		store_state_clear(&s1);
		hex[id % 2 ? 5 : 32] = 0;
		if (id % 3 == 0)
			for (char *c = hex; *c; c++)
				*c = (char)(*c >= 'a' ? *c - 32 : *c);
		uint32_t ids[128];
		size_t nf = 0, want = 0;
		found_all = store_find_fp_prefix(st, run, hex, ids, 128, &nf) == 0;
		bool self = false;
		for (size_t i = 0; i < nf; i++)
			self = self || ids[i] == id;
		for (uint32_t k = 0; k < nst; k++) {
			store_state s2;
			char h2[33];
			store_state_get(st, run, k, &s2);
			eng_fp_hex(s2.fp, h2);
			store_state_clear(&s2);
			want += strncasecmp(h2, hex, strlen(hex)) == 0;
		}
		found_all = found_all && self && nf == want;
		if (!found_all)
			printf("# state %u: prefix %s found %zu, want %zu\n", id, hex, nf, want);
	}
	ok(found_all, "store_find_fp_prefix finds each state by its fingerprint's prefix");
	uint32_t one;
	size_t nf1 = 9;
	ok(store_find_fp_prefix(st, run, "zz", &one, 1, &nf1) < 0 && nf1 == 0 &&
		   strstr(store_error(st), "hex digits"),
	   "a prefix that is not hex is refused: %s", store_error(st));
	eng_search_free(s);
	fe->ops->destroy(fe);
	store_close(st);
}

/* An in-memory store is no file: opening one makes nothing in the
 * working directory (the creation lock once made an empty ":memory:"). */
static void t_memory(void)
{
	char was[4096], err[256];
	if (!getcwd(was, sizeof was) || chdir(dir) < 0) {
		ok(0, "in-memory store: into the scratch directory");
		return;
	}
	store *st = store_open(":memory:", NULL, err, sizeof err);
	ok(st != NULL, "in-memory store opens (%s)", st ? "ok" : err);
	if (st)
		store_close(st);
	ok(access(":memory:", F_OK) < 0, "... and makes no file named :memory:");
	unlink(":memory:");
	if (chdir(was) < 0)
		ok(0, "in-memory store: back to the working directory");
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/cmc-t2.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	t_diehard();
	t_violation();
	t_counters();
	t_compare();
	t_schema();
	t_kill_and_resume();
	t_hand_steps();
	t_memory();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
