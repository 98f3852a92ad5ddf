/*
 * cmd-trace.c — `cmc trace [VIOLATION]`: a stored violation with its
 * counterexample, step by step with the states and fingerprints passed.
 * Without an id: the violations of a run (the latest by default).  With
 * --file, the counterexample is written as a trace file that `cmc replay
 * --file` reads back (the format: tui/cli/cmd-replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "storeargs.h"

extern const struct tui_cmd tui_cmd_trace;

static const struct tui_option trace_options[] = {
	TUI_OPT_STRING(0, "run", struct tui_store_opts, run, "R", "without VIOLATION: that run's (default: the latest)"),
	TUI_OPT_STRING(0, "db", struct tui_store_opts, db, "FILE", "the database (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "json", struct tui_store_opts, json, "one JSON object"),
	TUI_OPT_STRING(0, "file", struct tui_store_opts, file, "TRACE",
		       "write VIOLATION's counterexample (without one: the\n"
		       "run's first) to TRACE, as `cmc replay --file TRACE\n"
		       "TARGET` reads it back"),
	TUI_OPT_END(),
};

/* The engine could not rebuild the trace (the target did not repeat
 * itself): stored without steps, though a transition's trace has at least
 * its own. */
static bool trace_lost(const store_violation *v)
{
	return v->trace.len == 0 && v->source != ENG_NO_STATE;
}

static void violation_json(struct tui_json *j, const store_violation *v)
{
	tui_json_object(j);
	tui_json_i64(tui_json_key(j, "violation"), v->id);
	tui_json_i64(tui_json_key(j, "run"), v->run);
	tui_json_string(tui_json_key(j, "property"), v->property);
	tui_json_string(tui_json_key(j, "message"), v->message);
	tui_json_state(tui_json_key(j, "state"), v->state);
	tui_json_u64(tui_json_key(j, "length"), v->trace.len);
	tui_json_bool(tui_json_key(j, "trace_lost"), trace_lost(v));
	tui_trace_json(tui_json_key(j, "trace"), &v->trace);
	/* the violating transition (nulls: a state's violation, or one
	 * stored before schema 4) */
	tui_json_state(tui_json_key(j, "from"), v->source);
	tui_json_string(tui_json_key(j, "label"), v->label);
	tui_json_state(tui_json_key(j, "to"), v->target);
	tui_json_end(j);
}

static void print_violation(const store_violation *v)
{
	printf("violation %lld (run %lld): ", (long long)v->id, (long long)v->run);
	tui_escape(stdout, v->property, strlen(v->property), 256);
	if (v->message && *v->message) {
		fputs(": ", stdout);
		tui_escape(stdout, v->message, strlen(v->message), 1024);
	}
	if (trace_lost(v)) {
		fputs("\nno trace: cmc could not rebuild it, because ", stdout);
		tui_say_not_repeated(stdout, SIZE_MAX);
		printf("\nthe violating step: state %u --", v->source);
		tui_escape(stdout, v->label ? v->label : "?", v->label ? strlen(v->label) : 1, 64);
		if (v->target != ENG_NO_STATE)
			printf("--> state %u\n", v->target);
		else
			puts("-->");
		return;
	}
	printf("\n%zu step%s", v->trace.len, tui_s(v->trace.len));
	if (v->state != ENG_NO_STATE)
		printf(" to state %u", v->state);
	if (v->source != ENG_NO_STATE)
		printf(", the last from state %u", v->source);
	puts(":");
	tui_trace_print(stdout, &v->trace);
}

/* The counterexample as a trace file: its initial state, the property it
 * should violate, then each label with the fingerprint recorded after it.
 * 0, or TUI_EXIT_USAGE with a message. */
static int write_trace_file(const char *path, const store_violation *v)
{
	const store_trace *t = &v->trace;
	if (trace_lost(v)) {
		fprintf(stderr, "cmc trace: violation %lld has no trace to write: cmc could not rebuild "
			"it, because ", (long long)v->id);
		tui_say_not_repeated(stderr, SIZE_MAX);
		fputc('\n', stderr);
		return TUI_EXIT_USAGE;
	}
	for (size_t i = 0; i < t->len; i++) {
		const char *l = t->labels[i];
		if (!*l || strpbrk(l, "\t\n\r") || (i == 0 && (!strncmp(l, "init ", 5) ||
						  !strncmp(l, "expect ", 7) || l[0] == '#'))) {
			fprintf(stderr, "cmc trace: step %zu's label cannot be written in a trace file "
				"(empty, a tab or a line break, or read as a header line)\n", i + 1);
			return TUI_EXIT_USAGE;
		}
	}
	if (strpbrk(v->property, "\t\n\r")) {
		fprintf(stderr, "cmc trace: the property name cannot be written in a trace file\n");
		return TUI_EXIT_USAGE;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cmc trace: cannot write '%s'\n", path);
		return TUI_EXIT_USAGE;
	}
	char buf[33];
	fprintf(f, "# cmc trace: violation %lld (run %lld): ", (long long)v->id, (long long)v->run);
	tui_escape(f, v->property, strlen(v->property), 256);
	if (v->message && *v->message) {
		fputs(": ", f);
		tui_escape(f, v->message, strlen(v->message), 1024);
	}
	fputs("\n# replay it: cmc replay --file THIS-FILE TARGET\n", f);
	if (!eng_fp_zero(t->init_fp))
		fprintf(f, "init %s\n", eng_fp_hex(t->init_fp, buf));
	fprintf(f, "expect %s\n", v->property);
	for (size_t i = 0; i < t->len; i++) {
		eng_fp fp = t->fps ? t->fps[i] : (eng_fp){0, 0};
		fputs(t->labels[i], f);
		if (!eng_fp_zero(fp))
			fprintf(f, "\t%s", eng_fp_hex(fp, buf));
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "cmc trace: cannot write '%s'\n", path);
		return TUI_EXIT_USAGE;
	}
	return 0;
}

static int trace_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_trace, argc, argv, &so))
		return TUI_EXIT_USAGE;
	const char *db = so.db;
	const char *runarg = so.run;
	bool json = so.json;
	int64_t vid = -1;
	if (argc - optind > 1)
		return tui_usage_error(&tui_cmd_trace, "at most one violation id");
	if (optind < argc && !tui_parse_id(argv[optind], &vid))
		return tui_usage_error(&tui_cmd_trace, "expected a violation id, got '%s'",
				       argv[optind]);
	store *st = tui_store_open(&tui_cmd_trace, db);
	if (!st)
		return TUI_EXIT_USAGE;
	int rc = 0;
	if (vid >= 0) {
		store_violation v;
		int r = store_violation_get(st, vid, &v);
		if (r != 0) {
			fprintf(stderr, "cmc trace: %s\n", store_error(st));
			rc = TUI_EXIT_USAGE;
		} else {
			if (so.file) {
				rc = write_trace_file(so.file, &v);
			} else if (json) {
				struct tui_json j;
				tui_json_begin(&j, stdout);
				violation_json(&j, &v);
				tui_json_finish(&j);
			} else {
				print_violation(&v);
			}
			store_violation_clear(&v);
		}
	} else {
		int64_t run;
		rc = tui_store_run(&tui_cmd_trace, st, runarg, &run);
		store_violation *v = NULL;
		size_t n = 0;
		if (rc == 0 && store_violations(st, run, &v, &n) < 0) {
			fprintf(stderr, "cmc trace: %s\n", store_error(st));
			rc = TUI_EXIT_USAGE;
		} else if (rc == 0 && so.file) {
			/* the run's first violation, as a trace file */
			if (n == 0) {
				fprintf(stderr, "cmc trace: run %lld has no violation to write\n", (long long)run);
				rc = TUI_EXIT_USAGE;
			} else {
				rc = write_trace_file(so.file, &v[0]);
			}
			store_violations_free(v, n);
		} else if (rc == 0 && json) {
			struct tui_json j;
			tui_json_begin(&j, stdout);
			tui_json_object(&j);
			tui_json_i64(tui_json_key(&j, "run"), run);
			/* one violation a line */
			tui_json_array_sep(tui_json_key(&j, "violations"), "", ",\n ");
			for (size_t i = 0; i < n; i++)
				violation_json(&j, &v[i]);
			tui_json_end(&j);
			tui_json_end(&j);
			tui_json_finish(&j);
			store_violations_free(v, n);
		} else if (rc == 0) {
			if (n == 0)
				printf("run %lld has no violation\n", (long long)run);
			for (size_t i = 0; i < n; i++) {
				if (i)
					putchar('\n');
				print_violation(&v[i]);
			}
			store_violations_free(v, n);
		}
	}
	store_close(st);
	return rc;
}

const struct tui_cmd tui_cmd_trace = {
	.name = "trace",
	.usage = "trace [--run R] [--db FILE] [--json] [--file TRACE] [VIOLATION]",
	.summary = "show a stored violation's counterexample (or a run's violations)",
	.options = trace_options,
	.exec = trace_exec,
};
