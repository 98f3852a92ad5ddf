/*
 * cmd-runs.c — `cmc runs`: the runs a database holds, oldest first, with
 * their status (a 'running' run whose writer is gone reads interrupted, a
 * complete one a bound cut short bounded: store/read.c)
 * and final counts.  Two transition counts, labelled: TRANSITIONS, every
 * successor the search generated (also those to states already seen, as
 * TLC counts), and STORED, the transitions the database keeps, which
 * `cmc graph` and `cmc show` read: fewer when a bound or a stop cut a
 * state's successors short, or a failed write lost some.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "storeargs.h"

extern const struct tui_cmd tui_cmd_runs;

static const struct tui_option runs_options[] = {
	TUI_OPT_STRING(0, "db", struct tui_store_opts, db, "FILE", "the database (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "json", struct tui_store_opts, json, "one JSON object with every run"),
	TUI_OPT_TEXT("STATUS: complete, the whole state space explored; bounded, everything within\n"
		     "a depth or state bound (--max-depth, --max-states, a scenario's depth): the\n"
		     "search was cut short there; violation; interrupted (a signal, a killed\n"
		     "writer: --resume continues it); running; error.\n"),
	TUI_OPT_END(),
};

static void when(double t, char buf[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	if (t <= 0 || !gmtime_r(&s, &tm)) {
		snprintf(buf, 32, "-");
		return;
	}
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void run_json(struct tui_json *j, const store_run *r)
{
	char t0[32], t1[32];
	when(r->started, t0);
	when(r->ended, t1);
	/* Every string from the database through the JSON writer: a crafted
	 * database may hold any byte in any column. */
	tui_json_object(j);
	tui_json_i64(tui_json_key(j, "id"), r->id);
	tui_json_string(tui_json_key(j, "status"), r->status);
	tui_json_string(tui_json_key(j, "kind"), r->kind);
	tui_json_string(tui_json_key(j, "name"), r->name);
	tui_json_string(tui_json_key(j, "source_path"), r->source_path);
	tui_json_string(tui_json_key(j, "options"), r->options);
	tui_json_string(tui_json_key(j, "version"), r->version);
	tui_json_string(tui_json_key(j, "order"), r->order ? r->order : "bfs");
	tui_json_string(tui_json_key(j, "started"), t0);
	tui_json_string(tui_json_key(j, "ended"), r->ended > 0 ? t1 : NULL);
	tui_json_u64(tui_json_key(j, "distinct"), r->distinct);
	tui_json_u64(tui_json_key(j, "generated"), r->generated);
	tui_json_u64(tui_json_key(j, "transitions"), r->transitions);
	tui_json_u64(tui_json_key(j, "depth"), r->depth);
	tui_json_u64(tui_json_key(j, "violations"), r->violations);
	tui_json_u64(tui_json_key(j, "raw_distinct"), r->raw_distinct);
	tui_json_u64(tui_json_key(j, "canon_distinct"), r->canon_distinct);
	tui_json_number(tui_json_key(j, "elapsed_s"), "%.3f", r->elapsed_s);
	tui_json_bool(tui_json_key(j, "complete"), r->complete);
	tui_json_bool(tui_json_key(j, "bounded"), r->bounded);
	tui_json_u64(tui_json_key(j, "stored_states"), r->stored_states);
	tui_json_u64(tui_json_key(j, "stored_transitions"), r->stored_transitions);
	tui_json_key(j, "resumed_from");
	if (r->resumed_from)
		tui_json_i64(j, r->resumed_from);
	else
		tui_json_null(j);
	tui_json_end(j);
}

static int runs_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_runs, argc, argv, &so))
		return TUI_EXIT_USAGE;
	const char *db = so.db;
	bool json = so.json;
	if (optind != argc)
		return tui_usage_error(&tui_cmd_runs, "unexpected argument '%s'", argv[optind]);
	store *st = tui_store_open(&tui_cmd_runs, db);
	if (!st)
		return TUI_EXIT_USAGE;
	store_run *r;
	size_t n;
	if (store_runs(st, &r, &n) < 0) {
		fprintf(stderr, "cmc runs: %s\n", store_error(st));
		store_close(st);
		return TUI_EXIT_USAGE;
	}
	if (json) {
		struct tui_json j;
		tui_json_begin(&j, stdout);
		tui_json_object(&j);
		tui_json_string(tui_json_key(&j, "db"), store_path(st));
		tui_json_array_lines(tui_json_key(&j, "runs"));
		for (size_t i = 0; i < n; i++)
			run_json(&j, &r[i]);
		tui_json_end(&j);
		tui_json_end(&j);
		tui_json_finish(&j);
	} else if (n == 0) {
		printf("%s holds no run yet\n", store_path(st));
	} else {
		printf("%-5s %-12s %-8s %-20s %10s %12s %10s %6s %5s  %s\n", "RUN", "STATUS", "KIND",
		       "NAME", "STATES", "TRANSITIONS", "STORED", "DEPTH", "VIOL", "STARTED");
		for (size_t i = 0; i < n; i++) {
			char t0[32];
			when(r[i].started, t0);
			printf("%-5lld %-12s %-8s ", (long long)r[i].id, r[i].status,
			       r[i].kind ? r[i].kind : "-");
			/* a long name (a scenario path) keeps its end */
			const char *name = r[i].name ? r[i].name : "";
			size_t nl = strlen(name);
			if (nl > 20) {
				fputs("...", stdout);
				name += nl - 17;
				nl = 20;
				tui_escape(stdout, name, 17, 17);
			} else {
				tui_escape(stdout, name, nl, 20);
			}
			printf("%*s %10llu %12llu %10llu %6u %5llu  %s%s\n", nl < 20 ? (int)(20 - nl) : 0, "",
			       /* an unfinished run: what it stored so far */
			       (unsigned long long)(r[i].distinct ? r[i].distinct
								  : r[i].stored_states),
			       (unsigned long long)r[i].transitions,
			       (unsigned long long)r[i].stored_transitions, r[i].depth,
			       (unsigned long long)r[i].violations, t0,
			       r[i].resumed_from ? " (resumed)" : "");
		}
	}
	if (!json && n)
		puts("TRANSITIONS: successors generated, also to states seen before; STORED: "
		     "transitions kept, which graph and show draw");
	store_runs_free(r, n);
	store_close(st);
	return TUI_EXIT_OK;
}

const struct tui_cmd tui_cmd_runs = {
	.name = "runs",
	.usage = "runs [--db FILE] [--json]",
	.summary = "list the runs stored in a database",
	.options = runs_options,
	.exec = runs_exec,
};
