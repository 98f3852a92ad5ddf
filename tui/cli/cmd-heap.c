/*
 * cmd-heap.c — `cmc heap STATE`: draw the allocator at a stored state
 * (chunks, slots, headers, invariants with pass/fail) through viz/.
 * Exit 0 when the picture was written, 2 on usage or input errors, among
 * them a state with nothing to draw (no allocator status and no heap: a
 * model's state, or raw capture off): then no file is written.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opts.h"
#include "viz/viz.h"

extern const struct tui_cmd tui_cmd_heap;

struct heap_args {
	const char *db, *out;
	uint64_t run; /* 0: the latest */
};

#define A struct heap_args
static const struct tui_option heap_options[] = {
	TUI_OPT_STRING('o', "output", A, out, "FILE",
		       "where to write (default cmc-heap.svg); the extension picks the format"),
	TUI_OPT_STRING(0, "db", A, db, "FILE", "the database (default cmc.db)"),
	TUI_OPT_COUNT(0, "run", A, run, "R", 1, INT64_MAX, "a run id", -1, "which run (default: the latest)"),
	TUI_OPT_END(),
};
#undef A

static int heap_exec(int argc, char **argv)
{
	struct heap_args a = {.db = STORE_DEFAULT_PATH, .out = "cmc-heap.svg"};
	int rc = tui_options_parse(&tui_cmd_heap, argc, argv, &a);
	if (rc)
		return rc;
	const char *db = a.db, *out = a.out;
	int64_t run = (int64_t)a.run;
	uint64_t x;
	if (optind != argc - 1)
		return tui_usage_error(&tui_cmd_heap, optind == argc ? "which state? name a state id"
								    : "one state at a time");
	if (!tui_parse_u64(argv[optind], &x) || x >= UINT32_MAX)
		return tui_usage_error(&tui_cmd_heap, "STATE: expected a state id, got '%s'", argv[optind]);
	uint32_t state = (uint32_t)x;

	store_opts so;
	memset(&so, 0, sizeof so);
	so.readonly = true;
	char err[1024];
	store *st = store_open(db, &so, err, sizeof err);
	if (!st) {
		fprintf(stderr, "cmc heap: %s\n", err);
		return TUI_EXIT_USAGE;
	}
	viz_heap h;
	rc = viz_heap_load(st, run, state, &h, err, sizeof err);
	if (rc == 0 && !h.has_alloc && !h.n_chunks) {
		snprintf(err, sizeof err, "run %lld state %u: nothing to draw: no allocator data and %s",
			 (long long)h.run, h.state, h.why_no_chunks);
		rc = -1;
	} else if (rc == 0) {
		viz *v = viz_new();
		rc = viz_heap_render(v, &h, out, err, sizeof err);
		viz_free(v);
	}
	if (rc == 0) {
		unsigned failed = 0;
		for (unsigned i = 0; i < h.n_inv; i++)
			failed += h.inv[i].failed;
		printf("%s: run %lld state %u: ", out, (long long)h.run, h.state);
		if (h.has_alloc)
			printf("%u invariant%s checked, %u failing, %zu chunk%s\n", h.n_inv, tui_s(h.n_inv),
			       failed, h.n_chunks, tui_s(h.n_chunks));
		else
			printf("no allocator data recorded for this state\n");
		if (!h.n_chunks)
			fprintf(stderr, "cmc heap: %s\n", h.why_no_chunks);
	} else {
		fprintf(stderr, "cmc heap: %s\n", err);
	}
	viz_heap_clear(&h);
	store_close(st);
	return rc == 0 ? TUI_EXIT_OK : TUI_EXIT_USAGE;
}

const struct tui_cmd tui_cmd_heap = {
	.name = "heap",
	.usage = "heap [OPTIONS] STATE [-o FILE.svg|.png|.pdf|.dot]",
	.summary = "draw the allocator at a stored state: chunks, slots, invariants",
	.options = heap_options,
	.exec = heap_exec,
};
