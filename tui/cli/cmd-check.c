/*
 * cmd-check.c — `cmc check`: exhaustive search of a model or a scenario.
 * Exit 0 when nothing is violated, 1 on a violation, 2 on usage, input or
 * target set-up errors (and when the visited set runs out of memory).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "opts.h"
#include "proc/proc.h"
#include "storeargs.h"
#include "engine/util.h"

extern const struct tui_cmd tui_cmd_check;

struct check_args {
	bool json;
	const char *db, *resume; /* the store: tui/cli/checkstore.c */
	bool no_store, no_sql_rows, force;
	size_t raw_cap;       /* store_opts.raw_cap; 0: the store's default */
	int order;            /* -1: as the scenario says */
	uint64_t max_depth, max_states, mem, jobs;
	bool have_jobs;
	bool have_depth, have_states, keep_going, no_deadlock;
	const char *target;
	/* process-mode overrides, applied in order: key, value */
	const char *ov_key[32], *ov_val[32];
	int nov;
};

static int add_override(void *args, const char *key, const char *val)
{
	struct check_args *a = args;
	if (a->nov == 32)
		return tui_usage_error(&tui_cmd_check, "too many process-mode overrides");
	a->ov_key[a->nov] = key;
	a->ov_val[a->nov] = val;
	a->nov++;
	return 0;
}

static int ov_hash(const struct tui_cmd *c, void *a, const char *v) { return add_override(a, "hash", v); }
static int ov_merge(const struct tui_cmd *c, void *a, const char *v) { return add_override(a, "merge", v); }
static int ov_timeout(const struct tui_cmd *c, void *a, const char *v) { return add_override(a, "timeout", v); }
static int ov_exec(const struct tui_cmd *c, void *a, const char *v) { return add_override(a, "exec", v); }

static int ov_set(const struct tui_cmd *c, void *a, const char *arg)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return tui_usage_error(c, "--set: expected KEY=VALUE, got '%s'", arg);
	*eq = 0; /* argv's own storage: the key and the value stay in place */
	return add_override(a, arg, eq + 1);
}

static int raw_cap(const struct tui_cmd *c, void *args, const char *arg)
{
	struct check_args *a = args;
	uint64_t cap;
	if (!tui_parse_size(arg, &cap))
		return tui_usage_error(c, "--raw-cap: expected a size such as 64K (0: keep none), got '%s'", arg);
	a->raw_cap = cap == 0 ? STORE_RAW_NONE : cap >= SIZE_MAX ? SIZE_MAX - 1 : (size_t)cap;
	return 0;
}

#define A struct check_args
static const struct tui_option check_options[] = {
	TUI_OPT_BOOL(0, "json", A, json, "print one JSON object instead of the summary"),
	{.type = TUI_OPT_SET_INT_, .long_name = "bfs", .off = offsetof(A, order), .set = ENG_BFS,
	 .seen = -1, .left = "--bfs | --dfs",
	 .help = "breadth-first (default: shortest traces) or depth-first"},
	TUI_OPT_SET_INT(0, "dfs", A, order, ENG_DFS, NULL),
	TUI_OPT_COUNT(0, "max-depth", A, max_depth, "N", 0, UINT32_MAX, "a count", TUI_SEEN(A, have_depth),
		      "explore at most N levels (initial states are level 1: a scenario's\n"
		      "`depth N`, N operations, is --max-depth N+1)"),
	TUI_OPT_COUNT(0, "max-states", A, max_states, "N", 0, 0, "a count", TUI_SEEN(A, have_states),
		      "admit at most N distinct states"),
	TUI_OPT_BOOL(0, "keep-going", A, keep_going,
		     "report every violation instead of stopping at the first"),
	TUI_OPT_BOOL(0, "no-deadlock", A, no_deadlock, "states without successors are not a violation"),
	TUI_OPT_COUNT(0, "jobs", A, jobs, "N", 1, 256, "1 to 256", TUI_SEEN(A, have_jobs),
		      "worker threads; results do not depend on N (default:\n"
		      "the cores, less one for the store's writer when a model\n"
		      "is stored, if a first measurement shows they pay)"),
	TUI_OPT_SIZE(0, "mem", A, mem, "SIZE", "a size such as 512M", -1,
		     "memory for the visited set (e.g. 2G); exceeding it is reported"),
	/* these two share a wider column */
	{.type = TUI_OPT_CALLBACK_, .long_name = "hash", .arg = "raw|canonical|both|heap-graph|raw+heap-graph", .cb = ov_hash,
	 .seen = -1, .col = 30, .help = "process mode: what identifies a state"},
	{.type = TUI_OPT_CALLBACK_, .long_name = "merge", .arg = "raw|canonical", .cb = ov_merge,
	 .seen = -1, .col = 30, .help = "process mode: which fingerprint merges states"},
	TUI_OPT_CALLBACK(0, "timeout", "MS", ov_timeout, "process mode: per-operation timeout"),
	TUI_OPT_CALLBACK(0, "exec", "fork|replay", ov_exec,
			 "process mode: fork snapshots (default) or stateless replay"),
	TUI_OPT_CALLBACK(0, "set", "KEY=VALUE", ov_set, "process mode: override any scenario setting"),
	TUI_OPT_STRING(0, "db", A, db, "FILE", "store the run in FILE (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "no-store", A, no_store, "do not store the run"),
	TUI_OPT_BOOL(0, "no-sql-rows", A, no_sql_rows,
		     "store states and transitions in blocks only, not also as\n"
		     "rows of the states and transitions views (half the store's\n"
		     "time and size on a large model run)"),
	TUI_OPT_CALLBACK(0, "raw-cap", "SIZE", raw_cap,
			 "bytes of each raw snapshot the store keeps (default 1M;\n"
			 "0: none); the fingerprint covers the whole window"),
	TUI_OPT_STRING(0, "resume", A, resume, "RUN",
		       "continue an interrupted breadth-first run of the same target,\n"
		       "with the options that decide its state space"),
	TUI_OPT_BOOL(0, "force", A, force, "--resume even though those options differ (the run is then\n"
		     "reported bounded)"),
	TUI_OPT_END(),
};
#undef A

static int parse_args(int argc, char **argv, struct check_args *a)
{
	memset(a, 0, sizeof *a);
	a->order = -1;
	int rc = tui_options_parse(&tui_cmd_check, argc, argv, a);
	if (rc)
		return rc;
	if (optind != argc - 1)
		return tui_usage_error(&tui_cmd_check, optind == argc ? "what to check? name a model or a scenario"
								     : "one model or scenario at a time");
	a->target = argv[optind];
	return 0;
}

/* runs.space (tui/cli/checkstore.c): what decides the state space, resolved
 * (the scenario's bounds with the command line's over them).  The
 * executor is not part of it: both explore the same space. */
static char *check_space(const struct check_args *a, const eng_opts *o)
{
	char *text = tui_target_text(a->target);
	char hex[33];
	eng_fp_hex(eng_fp_of(text ? text : "", text ? strlen(text) : 0), hex);
	free(text);
	size_t n = 256;
	for (int i = 0; i < a->nov; i++)
		n += strlen(a->ov_key[i]) + strlen(a->ov_val[i]) + 8;
	char *sp = eng_xmalloc(n), *p = sp;
	p += sprintf(p, "depth=%u\nstates=%llu\nkeep-going=%d\ndeadlock=%d\nsource=%s", o->max_depth,
		     (unsigned long long)o->max_states, o->keep_going, o->check_deadlock, hex);
	for (int i = 0; i < a->nov; i++) {
		const char *k = a->ov_key[i];
		if (!strcmp(k, "exec") || !strcmp(k, "depth") || !strcmp(k, "states"))
			continue;
		p += sprintf(p, "\nset:%s=", k);
		for (const char *v = a->ov_val[i]; *v; v++)
			*p++ = *v == '\n' ? ' ' : *v;
		*p = 0;
	}
	return sp;
}

static int check_exec(int argc, char **argv)
{
	struct check_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;

	eng_opts o;
	eng_opts_default(&o);
	char err[1024];
	eng_frontend *fe = tui_open_target(a.target, &o, err, sizeof err);
	if (!fe) {
		fprintf(stderr, "cmc check: %s\n", err);
		return TUI_EXIT_USAGE;
	}
	bool is_model = strcmp(fe->ops->kind, "model") == 0;
	if (a.nov && is_model) {
		fprintf(stderr, "cmc check: --hash/--merge/--timeout/--set apply to scenarios, not models\n");
		fe->ops->destroy(fe);
		return TUI_EXIT_USAGE;
	}
	for (int i = 0; i < a.nov; i++)
		if (proc_override(fe, a.ov_key[i], a.ov_val[i], err, sizeof err) < 0) {
			fprintf(stderr, "cmc check: %s\n", err);
			fe->ops->destroy(fe);
			return TUI_EXIT_USAGE;
		}
	if (a.order >= 0)
		o.order = (eng_order)a.order;
	if (a.have_depth)
		o.max_depth = (uint32_t)a.max_depth;
	if (a.have_states)
		o.max_states = a.max_states;
	if (a.keep_going)
		o.keep_going = true;
	if (a.no_deadlock)
		o.check_deadlock = false;
	if (a.mem)
		o.mem_limit = (size_t)a.mem;
	/* Results do not depend on the number of jobs (engine/level.c,
	 * engine/parallel.c), so
	 * every core is used unless told otherwise. */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	o.jobs = a.have_jobs ? (unsigned)a.jobs : cores > 0 ? (unsigned)cores : 1;
	/* A model's states arrive faster than anything else cmc does, and
	 * the store's writer thread (store/flush.c) keeps a core busy with
	 * them: left to their default, the workers leave it that core. */
	if (!a.have_jobs && !a.no_store && o.jobs > 1 && strcmp(fe->ops->kind, "model") == 0)
		o.jobs--;
	o.jobs_auto = !a.have_jobs;
	if (o.jobs > 1 && (!fe->ops->clone || o.order != ENG_BFS)) {
		if (a.have_jobs)
			fprintf(stderr, "cmc check: running one job: %s\n",
				o.order != ENG_BFS ? "--jobs applies to breadth-first search"
						   : "this target cannot be run by several workers");
		o.jobs = 1;
	}

	eng_search *s = eng_search_new(fe, &o);
	tui_report *rep = tui_report_new(fe);
	eng_listener l = tui_report_listener(rep);
	eng_search_listen(s, &l);
	l = tui_progress_listener();
	eng_search_listen(s, &l);
	tui_signals_stop(s);
	char *space = check_space(&a, &o);
	struct tui_check_store *cs = tui_check_store_begin(a.db, a.no_store, a.raw_cap, a.no_sql_rows,
							   a.resume, space,
							   a.force, s, fe, a.target, &o, argc, argv, &rc);
	free(space);
	if (rc) {
		tui_signals_stop(NULL);
		tui_report_free(rep);
		eng_search_free(s);
		fe->ops->destroy(fe);
		return rc;
	}

	/* a signal while the store was being prepared: nothing more to do */
	int run = tui_signals_caught() ? 0 : eng_search_run(s);
	eng_stats stats = *eng_search_stats(s);
	const eng_stats *st = &stats;
	if (tui_check_store_forced(cs)) {
		/* parts of it were searched with other options (--force) */
		stats.bounded = true;
		stats.complete = false;
	}
	const char *error = run < 0 ? eng_search_error(s) : NULL;
	int sig = error ? 0 : tui_signals_which();
	tui_report_interrupted(rep, sig);
	tui_report_print(rep, st, a.target, a.json, error, stdout);
	if (error && !a.json)
		fprintf(stderr, "cmc check: %s\n", error);

	rc = error ? TUI_EXIT_USAGE : sig ? TUI_EXIT_SIGNAL(sig)
	   : tui_report_violations(rep) ? TUI_EXIT_VIOLATION : TUI_EXIT_OK;
	int64_t run_id = tui_check_store_run(cs);
	if (tui_check_store_end(cs, error ? "error" : sig ? "interrupted"
				    : rc == TUI_EXIT_VIOLATION ? "violation" : "complete", st))
		rc = TUI_EXIT_USAGE;
	else if (sig && run_id > 0 && o.order == ENG_BFS)
		fprintf(stderr, "cmc check: interrupted by %s after %llu state%s; stored as run %lld:"
			" continue it with `cmc check --resume %lld%s%s [the same options] %s`\n", tui_signal_name(sig),
			(unsigned long long)st->distinct, tui_s(st->distinct), (long long)run_id, (long long)run_id,
			a.db ? " --db " : "", a.db ? a.db : "", a.target);
	else if (sig)
		fprintf(stderr, "cmc check: interrupted by %s after %llu states%s\n",
			tui_signal_name(sig), (unsigned long long)st->distinct,
			run_id > 0 ? " (a depth-first run: it cannot be resumed)" : " (not stored)");
	tui_signals_stop(NULL);
	tui_report_free(rep);
	eng_search_free(s);
	fe->ops->destroy(fe);
	return rc;
}

const struct tui_cmd tui_cmd_check = {
	.name = "check",
	.usage = "check [OPTIONS] MODEL|MODEL.so|SCENARIO",
	.summary = "explore every reachable state and check the properties",
	.options = check_options,
	.exec = check_exec,
};
