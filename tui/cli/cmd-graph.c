/*
 * cmd-graph.c — `cmc graph`: draw a stored run's state graph (viz/).
 * Exit 0 when the picture was written, 2 on usage or input errors (no such
 * run, state or violation; an output name that is not .svg/.png/.pdf/.dot).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opts.h"
#include "viz/viz.h"

extern const struct tui_cmd tui_cmd_graph;

/* What the options fill; copied into viz_graph_opts once parsed. */
struct graph_args {
	const char *db, *out, *layout;
	uint64_t run, trace, around, radius, depth, budget;
	bool around_set, have_radius, raw_vs_canonical, summary;
};

/* A count of at least 1 in [1, max], into *out; `what` names the unit in
 * the message for 0 ("--depth: expected at least 1 level"). */
static int positive(const struct tui_cmd *c, const char *opt, const char *what, const char *s,
		    uint64_t max, uint64_t *out)
{
	uint64_t x;
	if (!tui_parse_u64(s, &x) || x > max)
		return tui_usage_error(c, "%s: expected a count, got '%s'", opt, s);
	if (x == 0)
		return tui_usage_error(c, "%s: expected at least 1 %s", opt, what);
	*out = x;
	return 0;
}

static int depth_arg(const struct tui_cmd *c, void *args, const char *s)
{
	return positive(c, "--depth", "level", s, UINT32_MAX - 1, &((struct graph_args *)args)->depth);
}

static int budget_arg(const struct tui_cmd *c, void *args, const char *s)
{
	return positive(c, "--budget", "node", s, 1000000, &((struct graph_args *)args)->budget);
}

static int layout_arg(const struct tui_cmd *c, void *args, const char *s)
{
	if (strcmp(s, "dot") != 0 && strcmp(s, "sfdp") != 0)
		return tui_usage_error(c, "--layout: expected dot or sfdp, got '%s'", s);
	((struct graph_args *)args)->layout = s;
	return 0;
}

#define A struct graph_args
static const struct tui_option graph_options[] = {
	TUI_OPT_STRING('o', "output", A, out, "FILE",
		       "where to write (default cmc-graph.svg); the extension picks the format"),
	TUI_OPT_STRING(0, "db", A, db, "FILE", "the database (default cmc.db)"),
	TUI_OPT_COUNT(0, "run", A, run, "R", 0, INT64_MAX, "a count", -1, "which run (default: the latest)"),
	TUI_OPT_COUNT(0, "trace", A, trace, "VIOLATION", 0, INT64_MAX, "a count", -1,
		      "highlight that violation's counterexample in its surroundings"),
	TUI_OPT_COUNT(0, "around", A, around, "STATE", 0, UINT32_MAX - 1, "a count", TUI_SEEN(A, around_set),
		      "only the neighbourhood of STATE ..."),
	TUI_OPT_COUNT(0, "radius", A, radius, "K", 0, 1000, "a count", TUI_SEEN(A, have_radius),
		      "... up to K steps either way (default 2)"),
	TUI_OPT_CALLBACK(0, "depth", "D", depth_arg, "only the first D BFS levels"),
	TUI_OPT_BOOL(0, "raw-vs-canonical", A, raw_vs_canonical,
		     "one cluster per canonical state holding its raw variants"),
	TUI_OPT_CALLBACK(0, "budget", "N", budget_arg,
			 "nodes dot lays out (default 600); up to 8 N go to sfdp, beyond that\n"
			 "the graph is reduced (depth cut, canonical collapse, level summary)"),
	TUI_OPT_CALLBACK(0, "layout", "dot|sfdp", layout_arg, "force the layout engine"),
	TUI_OPT_BOOL(0, "summary", A, summary, "draw one node per BFS level"),
	TUI_OPT_END(),
};
#undef A

static int graph_exec(int argc, char **argv)
{
	struct graph_args a = {.db = STORE_DEFAULT_PATH, .out = "cmc-graph.svg", .radius = 2};
	int rc = tui_options_parse(&tui_cmd_graph, argc, argv, &a);
	if (rc)
		return rc;
	const char *db = a.db, *out = a.out;
	viz_graph_opts o;
	memset(&o, 0, sizeof o);
	o.run = (int64_t)a.run;
	o.violation = (int64_t)a.trace;
	o.around = (uint32_t)a.around;
	o.around_set = a.around_set;
	o.radius = (uint32_t)a.radius;
	o.depth = (uint32_t)a.depth;
	o.raw_vs_canonical = a.raw_vs_canonical;
	o.budget = (uint32_t)a.budget;
	o.layout = a.layout;
	o.summary = a.summary;
	bool have_radius = a.have_radius;
	if (optind != argc)
		return tui_usage_error(&tui_cmd_graph, "unexpected argument '%s'", argv[optind]);
	if (have_radius && !o.around_set)
		return tui_usage_error(&tui_cmd_graph, "--radius goes with --around STATE");

	store_opts so;
	memset(&so, 0, sizeof so);
	so.readonly = true;
	char err[1024];
	store *st = store_open(db, &so, err, sizeof err);
	if (!st) {
		fprintf(stderr, "cmc graph: %s\n", err);
		return TUI_EXIT_USAGE;
	}
	viz *v = viz_new();
	viz_result res;
	rc = viz_graph(v, st, &o, out, &res, err, sizeof err);
	if (rc == 0) {
		if (res.reduction[0])
			fprintf(stderr, "cmc graph: %s\n", res.reduction);
		printf("%s: %llu state%s, %llu transition%s", out, (unsigned long long)res.nodes,
		       tui_s(res.nodes), (unsigned long long)res.edges, tui_s(res.edges));
		if (res.clusters)
			printf(", %llu canonical state%s", (unsigned long long)res.clusters, tui_s(res.clusters));
		if (o.violation)
			printf(", %llu trace step%s highlighted", (unsigned long long)res.trace_edges,
			       tui_s(res.trace_edges));
		printf(" (%s)\n", res.layout);
	} else {
		fprintf(stderr, "cmc graph: %s\n", err);
	}
	viz_free(v);
	store_close(st);
	return rc == 0 ? TUI_EXIT_OK : TUI_EXIT_USAGE;
}

const struct tui_cmd tui_cmd_graph = {
	.name = "graph",
	.usage = "graph [OPTIONS] [-o FILE.svg|.png|.pdf|.dot]",
	.summary = "draw a stored run's state graph with Graphviz",
	.options = graph_options,
	.options_first = true,
	.exec = graph_exec,
};
