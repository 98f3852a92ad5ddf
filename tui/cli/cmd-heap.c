/*
 * cmd-heap.c — `cmc heap STATE`: draw the allocator at a stored state
 * (chunks, slots, headers, invariants with pass/fail) through viz/.
 * Exit 0 when the picture was written, 2 on usage or input errors.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opts.h"
#include "viz.h"

extern const struct tui_cmd tui_cmd_heap;

enum { O_DB = 256, O_RUN, O_OUT };

static const struct option heap_longopts[] = {
	{"db", required_argument, NULL, O_DB},
	{"run", required_argument, NULL, O_RUN},
	{"output", required_argument, NULL, O_OUT},
	{0, 0, 0, 0},
};

static int heap_exec(int argc, char **argv)
{
	const char *db = STORE_DEFAULT_PATH, *out = "cmc-heap.svg";
	int64_t run = 0;
	uint64_t x;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:", heap_longopts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case 'o':
		case O_OUT: out = optarg; break;
		case O_RUN:
			if (!tui_parse_u64(optarg, &x) || x > INT64_MAX || x == 0)
				return tui_usage_error(&tui_cmd_heap, "--run: expected a run id, got '%s'", optarg);
			run = (int64_t)x;
			break;
		default:
			return tui_usage_error(&tui_cmd_heap, "unknown option '%s'", argv[optind - 1]);
		}
	}
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
	int rc = viz_heap_load(st, run, state, &h, err, sizeof err);
	if (rc == 0) {
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
			printf("%u invariants checked, %u failing, %zu chunks\n", h.n_inv, failed, h.n_chunks);
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
	.help = "  -o, --output FILE   where to write (default cmc-heap.svg); the extension picks the format\n"
		"  --db FILE           the database (default cmc.db)\n"
		"  --run R             which run (default: the latest)\n",
	.exec = heap_exec,
};
