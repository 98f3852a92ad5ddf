/*
 * cmd-runs.c — `cmc runs`: the runs a database holds, oldest first, with
 * their status (a 'running' run whose writer is gone reads interrupted)
 * and final counts.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "storeargs.h"

extern const struct tui_cmd tui_cmd_runs;

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

static void run_json(FILE *out, const store_run *r)
{
	char t0[32], t1[32];
	when(r->started, t0);
	when(r->ended, t1);
	/* Every string from the database through the JSON writer: a crafted
	 * database may hold any byte in any column. */
	fprintf(out, "{\"id\": %lld, \"status\": ", (long long)r->id);
	tui_json_str(out, r->status);
	fputs(", \"kind\": ", out);
	tui_json_str(out, r->kind);
	fputs(", \"name\": ", out);
	tui_json_str(out, r->name);
	fputs(", \"source_path\": ", out);
	tui_json_str(out, r->source_path);
	fputs(", \"options\": ", out);
	tui_json_str(out, r->options);
	fputs(", \"version\": ", out);
	tui_json_str(out, r->version);
	fputs(", \"order\": ", out);
	tui_json_str(out, r->order ? r->order : "bfs");
	fprintf(out,
		", \"started\": \"%s\", \"ended\": %s%s%s, \"distinct\": %llu,"
		" \"generated\": %llu, \"transitions\": %llu, \"depth\": %u, \"violations\": %llu,"
		" \"raw_distinct\": %llu, \"canon_distinct\": %llu, \"elapsed_s\": %.3f,"
		" \"complete\": %s, \"bounded\": %s, \"stored_states\": %llu,"
		" \"stored_transitions\": %llu, \"resumed_from\": ",
		t0, r->ended > 0 ? "\"" : "",
		r->ended > 0 ? t1 : "null", r->ended > 0 ? "\"" : "",
		(unsigned long long)r->distinct, (unsigned long long)r->generated,
		(unsigned long long)r->transitions, r->depth, (unsigned long long)r->violations,
		(unsigned long long)r->raw_distinct, (unsigned long long)r->canon_distinct,
		r->elapsed_s, r->complete ? "true" : "false", r->bounded ? "true" : "false",
		(unsigned long long)r->stored_states, (unsigned long long)r->stored_transitions);
	if (r->resumed_from)
		fprintf(out, "%lld}", (long long)r->resumed_from);
	else
		fputs("null}", out);
}

static int runs_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_runs, argc, argv, 0, &so))
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
		fputs("{\"db\": ", stdout);
		tui_json_str(stdout, store_path(st));
		fputs(", \"runs\": [", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n  " : "\n  ", stdout);
			run_json(stdout, &r[i]);
		}
		fputs("]}\n", stdout);
	} else if (n == 0) {
		printf("%s holds no run yet\n", store_path(st));
	} else {
		printf("%-5s %-12s %-8s %-20s %10s %12s %6s %5s  %s\n", "RUN", "STATUS", "KIND",
		       "NAME", "STATES", "TRANSITIONS", "DEPTH", "VIOL", "STARTED");
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
			printf("%*s %10llu %12llu %6u %5llu  %s%s\n", nl < 20 ? (int)(20 - nl) : 0, "",
			       /* an unfinished run: what it stored so far */
			       (unsigned long long)(r[i].distinct ? r[i].distinct
								  : r[i].stored_states),
			       (unsigned long long)r[i].transitions, r[i].depth,
			       (unsigned long long)r[i].violations, t0,
			       r[i].resumed_from ? " (resumed)" : "");
		}
	}
	store_runs_free(r, n);
	store_close(st);
	return TUI_EXIT_OK;
}

const struct tui_cmd tui_cmd_runs = {
	.name = "runs",
	.usage = "runs [--db FILE] [--json]",
	.summary = "list the runs stored in a database",
	.help = "  --db FILE           the database (default ./cmc.db)\n"
		"  --json              one JSON object with every run\n",
	.exec = runs_exec,
};
