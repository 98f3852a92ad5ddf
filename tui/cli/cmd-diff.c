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

static void side(store *st, int64_t run, const store_diff_side *s, bool json)
{
	char buf[33];
	if (json)
		printf("{\"run\": %lld, \"count\": %zu, \"states\": [", (long long)run, s->n);
	else
		printf("only in run %lld: %zu canonical state%s\n", (long long)run, s->n,
		       s->n == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++) {
		store_trace t;
		bool ht = store_trace_to(st, run, s->states[i], &t) == 0;
		if (json) {
			printf("%s{\"state\": %u, \"canon\": \"%s\", \"trace\": [", i ? ", " : "",
			       s->states[i], eng_fp_hex(s->canon[i], buf));
			for (size_t k = 0; ht && k < t.len; k++) {
				if (k)
					fputs(", ", stdout);
				tui_json_str(stdout, t.labels[k]);
			}
			fputs("]}", stdout);
		} else {
			printf("  state %-6u %s  ", s->states[i], eng_fp_hex(s->canon[i], buf));
			for (size_t k = 0; ht && k < t.len; k++) {
				if (k)
					fputs(" ; ", stdout);
				tui_escape(stdout, t.labels[k], strlen(t.labels[k]), 64);
			}
			if (ht && t.len == 0)
				fputs("(initial)", stdout);
			putchar('\n');
		}
		if (ht)
			store_trace_clear(&t);
	}
	if (json)
		fputs("]}", stdout);
}

static void id_or_none(uint32_t id, bool json)
{
	if (id == ENG_NO_STATE)
		fputs(json ? "null" : "(no such step)", stdout);
	else
		printf(json ? "%u" : "state %u", id);
}

static int diff_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_diff, argc, argv, 0, &so))
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
			printf("{\"a\": %lld, \"b\": %lld, \"only_a\": ", (long long)a, (long long)b);
			side(st, a, &d.only_a, true);
			fputs(", \"only_b\": ", stdout);
			side(st, b, &d.only_b, true);
			fputs(", \"parting\": ", stdout);
			if (!d.parted) {
				fputs("null", stdout);
			} else {
				fputs("{\"from_a\": ", stdout);
				id_or_none(d.from_a, true);
				fputs(", \"from_b\": ", stdout);
				id_or_none(d.from_b, true);
				fputs(", \"label\": ", stdout);
				tui_json_str(stdout, d.label);
				fputs(", \"to_a\": ", stdout);
				id_or_none(d.to_a, true);
				fputs(", \"to_b\": ", stdout);
				id_or_none(d.to_b, true);
				fputc('}', stdout);
			}
			puts("}");
		} else {
			side(st, a, &d.only_a, false);
			side(st, b, &d.only_b, false);
			if (!d.parted) {
				puts("the two graphs do not part: same canonical states, same steps");
			} else if (d.from_a == ENG_NO_STATE && d.to_a != ENG_NO_STATE) {
				printf("the graphs part at the start: run %lld's initial ", (long long)a);
				id_or_none(d.to_a, false);
				printf(" is not an initial state of run %lld\n", (long long)b);
			} else if (d.from_a == ENG_NO_STATE) {
				printf("the graphs part at the start: run %lld's initial ", (long long)b);
				id_or_none(d.to_b, false);
				printf(" is not an initial state of run %lld\n", (long long)a);
			} else {
				printf("the graphs first part at: from run %lld ", (long long)a);
				id_or_none(d.from_a, false);
				printf(" / run %lld ", (long long)b);
				id_or_none(d.from_b, false);
				fputs(", step ", stdout);
				tui_escape(stdout, d.label ? d.label : "?",
					   d.label ? strlen(d.label) : 1, 64);
				printf(" leads to run %lld ", (long long)a);
				id_or_none(d.to_a, false);
				printf(" / run %lld ", (long long)b);
				id_or_none(d.to_b, false);
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
	.help = "  --db FILE           the database (default ./cmc.db)\n"
		"  --json              one JSON object\n",
	.exec = diff_exec,
};
