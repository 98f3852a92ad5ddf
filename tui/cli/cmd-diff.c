/*
 * cmd-diff.c — `cmc diff RUN_A RUN_B`: which canonical states one run
 * reached and the other did not (say, before and after a code change),
 * with the shortest trace to each, and the first transition where the two
 * graphs part.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "storeargs.h"

extern const struct tui_cmd tui_cmd_diff;

static const struct tui_option diff_options[] = {
	TUI_OPT_STRING(0, "db", struct tui_store_opts, db, "FILE", "the database (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "json", struct tui_store_opts, json, "one JSON object"),
	TUI_OPT_END(),
};

static void side_json(struct tui_json *j, store *st, int64_t run, const store_diff_side *s)
{
	char buf[33];
	tui_json_object(j);
	tui_json_i64(tui_json_key(j, "run"), run);
	tui_json_u64(tui_json_key(j, "count"), s->n);
	tui_json_array(tui_json_key(j, "states"));
	for (size_t i = 0; i < s->n; i++) {
		store_trace t;
		bool ht = store_trace_to(st, run, s->states[i], &t) == 0;
		tui_json_object(j);
		tui_json_u64(tui_json_key(j, "state"), s->states[i]);
		tui_json_string(tui_json_key(j, "canon"), eng_fp_hex(s->canon[i], buf));
		tui_json_array(tui_json_key(j, "trace"));
		for (size_t k = 0; ht && k < t.len; k++)
			tui_json_string(j, t.labels[k]);
		tui_json_end(j);
		tui_json_end(j);
		if (ht)
			store_trace_clear(&t);
	}
	tui_json_end(j);
	tui_json_end(j);
}

static void side(store *st, int64_t run, const store_diff_side *s)
{
	char buf[33];
	printf("only in run %lld: %zu canonical state%s\n", (long long)run, s->n,
	       s->n == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++) {
		store_trace t;
		bool ht = store_trace_to(st, run, s->states[i], &t) == 0;
		printf("  state %-6u %s  ", s->states[i], eng_fp_hex(s->canon[i], buf));
		for (size_t k = 0; ht && k < t.len; k++) {
			if (k)
				fputs(" ; ", stdout);
			tui_escape(stdout, t.labels[k], strlen(t.labels[k]), 64);
		}
		if (ht && t.len == 0)
			fputs("(initial)", stdout);
		putchar('\n');
		if (ht)
			store_trace_clear(&t);
	}
}

static void id_or_none(uint32_t id)
{
	if (id == ENG_NO_STATE)
		fputs("(no such step)", stdout);
	else
		printf("state %u", id);
}

static int diff_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_diff, argc, argv, &so))
		return TUI_EXIT_USAGE;
	const char *db = so.db;
	bool json = so.json;
	if (argc - optind != 2)
		return tui_usage_error(&tui_cmd_diff, "expected two runs");
	store *st = tui_store_open(&tui_cmd_diff, db);
	if (!st)
		return TUI_EXIT_USAGE;
	int64_t a, b;
	int rc = tui_store_run(&tui_cmd_diff, st, argv[optind], &a);
	if (rc == 0)
		rc = tui_store_run(&tui_cmd_diff, st, argv[optind + 1], &b);
	store_diff d;
	if (rc == 0 && store_diff_runs(st, a, b, &d) < 0) {
		fprintf(stderr, "cmc diff: %s\n", store_error(st));
		rc = TUI_EXIT_USAGE;
	} else if (rc == 0) {
		if (json) {
			struct tui_json j;
			tui_json_begin(&j, stdout);
			tui_json_object(&j);
			tui_json_i64(tui_json_key(&j, "a"), a);
			tui_json_i64(tui_json_key(&j, "b"), b);
			side_json(tui_json_key(&j, "only_a"), st, a, &d.only_a);
			side_json(tui_json_key(&j, "only_b"), st, b, &d.only_b);
			tui_json_key(&j, "parting");
			if (!d.parted) {
				tui_json_null(&j);
			} else {
				tui_json_object(&j);
				tui_json_state(tui_json_key(&j, "from_a"), d.from_a);
				tui_json_state(tui_json_key(&j, "from_b"), d.from_b);
				tui_json_string(tui_json_key(&j, "label"), d.label);
				tui_json_state(tui_json_key(&j, "to_a"), d.to_a);
				tui_json_state(tui_json_key(&j, "to_b"), d.to_b);
				tui_json_end(&j);
			}
			tui_json_end(&j);
			tui_json_finish(&j);
		} else {
			side(st, a, &d.only_a);
			side(st, b, &d.only_b);
			if (!d.parted) {
				puts("the two graphs do not part: same canonical states, same steps");
			} else if (d.from_a == ENG_NO_STATE && d.to_a != ENG_NO_STATE) {
				printf("the graphs part at the start: run %lld's initial ", (long long)a);
				id_or_none(d.to_a);
				printf(" is not an initial state of run %lld\n", (long long)b);
			} else if (d.from_a == ENG_NO_STATE) {
				printf("the graphs part at the start: run %lld's initial ", (long long)b);
				id_or_none(d.to_b);
				printf(" is not an initial state of run %lld\n", (long long)a);
			} else {
				printf("the graphs first part at: from run %lld ", (long long)a);
				id_or_none(d.from_a);
				printf(" / run %lld ", (long long)b);
				id_or_none(d.from_b);
				fputs(", step ", stdout);
				tui_escape(stdout, d.label ? d.label : "?",
					   d.label ? strlen(d.label) : 1, 64);
				printf(" leads to run %lld ", (long long)a);
				id_or_none(d.to_a);
				printf(" / run %lld ", (long long)b);
				id_or_none(d.to_b);
				puts("");
			}
		}
		store_diff_clear(&d);
	}
	store_close(st);
	return rc;
}

const struct tui_cmd tui_cmd_diff = {
	.name = "diff",
	.usage = "diff [--db FILE] [--json] RUN_A RUN_B",
	.summary = "canonical states one run reached and the other did not; where they part",
	.options = diff_options,
	.exec = diff_exec,
};
