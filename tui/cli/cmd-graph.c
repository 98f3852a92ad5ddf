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
#include "viz.h"

extern const struct tui_cmd tui_cmd_graph;

enum { O_DB = 256, O_RUN, O_OUT, O_TRACE, O_AROUND, O_RADIUS, O_DEPTH, O_RVC, O_BUDGET, O_LAYOUT,
       O_SUMMARY };

static const struct option graph_longopts[] = {
	{"db", required_argument, NULL, O_DB},
	{"run", required_argument, NULL, O_RUN},
	{"output", required_argument, NULL, O_OUT},
	{"trace", required_argument, NULL, O_TRACE},
	{"around", required_argument, NULL, O_AROUND},
	{"radius", required_argument, NULL, O_RADIUS},
	{"depth", required_argument, NULL, O_DEPTH},
	{"raw-vs-canonical", no_argument, NULL, O_RVC},
	{"budget", required_argument, NULL, O_BUDGET},
	{"layout", required_argument, NULL, O_LAYOUT},
	{"summary", no_argument, NULL, O_SUMMARY},
	{0, 0, 0, 0},
};

static bool count_arg(const char *opt, const char *s, uint64_t max, uint64_t *out, int *rc)
{
	if (tui_parse_u64(s, out) && *out <= max)
		return true;
	*rc = tui_usage_error(&tui_cmd_graph, "%s: expected a count, got '%s'", opt, s);
	return false;
}

static int graph_exec(int argc, char **argv)
{
	const char *db = STORE_DEFAULT_PATH, *out = "cmc-graph.svg";
	viz_graph_opts o;
	memset(&o, 0, sizeof o);
	o.radius = 2;
	bool have_radius = false;
	uint64_t x;
	int rc = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:", graph_longopts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case 'o':
		case O_OUT: out = optarg; break;
		case O_RUN:
			if (!count_arg("--run", optarg, INT64_MAX, &x, &rc)) return rc;
			o.run = (int64_t)x;
			break;
		case O_TRACE:
			if (!count_arg("--trace", optarg, INT64_MAX, &x, &rc)) return rc;
			o.violation = (int64_t)x;
			break;
		case O_AROUND:
			if (!count_arg("--around", optarg, UINT32_MAX - 1, &x, &rc)) return rc;
			o.around = (uint32_t)x;
			o.around_set = true;
			break;
		case O_RADIUS:
			if (!count_arg("--radius", optarg, 1000, &x, &rc)) return rc;
			o.radius = (uint32_t)x;
			have_radius = true;
			break;
		case O_DEPTH:
			if (!count_arg("--depth", optarg, UINT32_MAX - 1, &x, &rc)) return rc;
			if (x == 0)
				return tui_usage_error(&tui_cmd_graph, "--depth: expected at least 1 level");
			o.depth = (uint32_t)x;
			break;
		case O_RVC: o.raw_vs_canonical = true; break;
		case O_BUDGET:
			if (!count_arg("--budget", optarg, 1000000, &x, &rc)) return rc;
			if (x == 0)
				return tui_usage_error(&tui_cmd_graph, "--budget: expected at least 1 node");
			o.budget = (uint32_t)x;
			break;
		case O_LAYOUT:
			if (strcmp(optarg, "dot") != 0 && strcmp(optarg, "sfdp") != 0)
				return tui_usage_error(&tui_cmd_graph, "--layout: expected dot or sfdp, got '%s'", optarg);
			o.layout = optarg;
			break;
		case O_SUMMARY: o.summary = true; break;
		default:
			return tui_usage_error(&tui_cmd_graph, "unknown option '%s'", argv[optind - 1]);
		}
	}
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
		printf("%s: %llu states, %llu transitions", out, (unsigned long long)res.nodes,
		       (unsigned long long)res.edges);
		if (res.clusters)
			printf(", %llu canonical states", (unsigned long long)res.clusters);
		if (o.violation)
			printf(", %llu trace steps highlighted", (unsigned long long)res.trace_edges);
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
	.help = "  -o, --output FILE   where to write (default cmc-graph.svg); the extension picks the format\n"
		"  --db FILE           the database (default cmc.db)\n"
		"  --run R             which run (default: the latest)\n"
		"  --trace VIOLATION   highlight that violation's counterexample in its surroundings\n"
		"  --around STATE      only the neighbourhood of STATE ...\n"
		"  --radius K          ... up to K steps either way (default 2)\n"
		"  --depth D           only the first D BFS levels\n"
		"  --raw-vs-canonical  one cluster per canonical state holding its raw variants\n"
		"  --budget N          nodes dot lays out (default 600); up to 8 N go to sfdp, beyond that\n"
		"                      the graph is reduced (depth cut, canonical collapse, level summary)\n"
		"  --layout dot|sfdp   force the layout engine\n"
		"  --summary           draw one node per BFS level\n",
	.exec = graph_exec,
};
