/*
 * cmd-graph.c — `cmc graph`: draw a stored run's state graph (viz/).
 * Exit 0 when the picture was written, 2 on usage or input errors (no such
 * run, state or violation; an output name that is not .svg/.png/.pdf/.dot).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hgtable.h"
#include "opts.h"
#include "viz/viz.h"
#include "engine/util.h"

extern const struct tui_cmd tui_cmd_graph;

/* What the options fill; copied into viz_graph_opts once parsed. */
struct graph_args {
	const char *db, *out, *layout;
	uint64_t run, trace, around, radius, depth, budget, heap;
	bool around_set, have_radius, raw_vs_canonical, summary, heap_set;
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
	TUI_OPT_COUNT(0, "heap", A, heap, "STATE", 0, UINT32_MAX - 1, "a count", TUI_SEEN(A, heap_set),
		      "draw STATE's heap graph instead: blocks, pointers, roots (its trace\n"
		      "is replayed on the run's scenario; --budget caps the blocks drawn)"),
	TUI_OPT_END(),
};
#undef A

/* --heap STATE: replay the state, walk its heap, draw it (hgtable.h). */
static int graph_heap(store *st, int64_t run, uint32_t state, size_t cap, const char *out)
{
	if (run == 0 && tui_store_run(&tui_cmd_graph, st, NULL, &run) != 0)
		return TUI_EXIT_USAGE;
	proc_hg_table t;
	store_trace tr;
	char err[1200];
	int rc = TUI_EXIT_USAGE;
	if (tui_hg_replay(st, run, state, &t, &tr, err, sizeof err) < 0) {
		fprintf(stderr, "cmc graph: --heap: %s\n", err);
		goto out;
	}
	/* The viz types mirror proc's field for field; copied, so viz/ does
	 * not depend on process mode. */
	viz_hg_region *roots = eng_xcalloc(t.n_roots + 1, sizeof *roots);
	viz_hg_region *blocks = eng_xcalloc(t.n_blocks + 1, sizeof *blocks);
	viz_hg_edge *edges = eng_xcalloc(t.n_edges + 1, sizeof *edges);
	for (size_t i = 0; i < t.n_roots; i++)
		roots[i] = (viz_hg_region){t.roots[i].addr, t.roots[i].len};
	for (size_t i = 0; i < t.n_blocks; i++)
		blocks[i] = (viz_hg_region){t.blocks[i].addr, t.blocks[i].len};
	for (size_t i = 0; i < t.n_edges; i++) {
		const proc_hg_edge *e = &t.edges[i];
		edges[i] = (viz_hg_edge){e->from, e->root, e->off, e->to, e->to_off};
	}
	size_t n = 128;
	for (size_t i = 0; i < tr.len; i++)
		n += strlen(tr.labels[i]) + 3;
	char *caption = eng_xmalloc(n), *p = caption;
	p += sprintf(p, "cmc run %lld, state %u: the heap graph after ", (long long)run, state);
	if (!tr.len)
		p += sprintf(p, "(initial)");
	for (size_t i = 0; i < tr.len; i++)
		p += sprintf(p, "%s%s", i ? " ; " : "", tr.labels[i]);
	viz_hgraph h = {roots, blocks, t.n_roots, t.n_blocks, edges, t.n_edges, cap, caption};
	viz *v = viz_new();
	viz_hg_result res;
	if (viz_heap_graph(v, &h, out, &res, err, sizeof err) == 0) {
		if (res.cut_blocks)
			fprintf(stderr, "cmc graph: the first %zu of %zu blocks drawn (--budget)\n",
				res.blocks, t.n_blocks);
		printf("%s: %zu block%s, %zu pointer%s, %zu root%s\n", out, res.blocks, tui_s(res.blocks),
		       res.edges, tui_s(res.edges), res.roots, tui_s(res.roots));
		rc = TUI_EXIT_OK;
	} else {
		fprintf(stderr, "cmc graph: %s\n", err);
	}
	viz_free(v);
	free(caption);
	free(roots);
	free(blocks);
	free(edges);
out:
	proc_hg_table_clear(&t);
	store_trace_clear(&tr);
	return rc;
}

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
	if (a.heap_set) {
		rc = graph_heap(st, o.run, (uint32_t)a.heap, o.budget, out);
		store_close(st);
		return rc;
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
