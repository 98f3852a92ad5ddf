/*
 * t3-viz.c — the helper the viz tests (tests/t3*.sh) reach inside with.
 *
 *   t3-viz hostile DB      store a run of a tiny transition system whose
 *                          operation labels, canonical records, fault text
 *                          and violation carry hostile bytes (quotes,
 *                          braces, angle brackets, HTML, backslash escapes,
 *                          control bytes, invalid UTF-8)
 *   t3-viz count F.dot     read F back through cgraph (agread) and print
 *                          "nodes N edges E clusters C trace T legend L"
 *                          (nodes "sID" and the edges between them; trace
 *                          edges are those drawn with penwidth 3)
 *   t3-viz nodes F.dot     the state ids drawn, one per line, ascending
 *   t3-viz names F.dot     every node's name, one per line
 *   t3-viz trace F.dot     the highlighted edges "FROM TO", one per line
 *   t3-viz labels F.dot    every node, edge and graph label, one per line
 *
 * Exit 0, or 1 when the file does not parse (reported on stderr).
 */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "store.h"

/* ---- a hostile transition system --------------------------------------- */

#define N_HOSTILE 4

static const char *const hostile_label[N_HOSTILE] = {
	"INS \"q\" {b} <i>&amp;</i>",
	"SET \\N\\G\\l\\n \x1b[31mred\x1b[0m",
	"DEL \xff\xfe\xc3\x28 </text><script>x</script>",
	"END ]]> <!-- --> '",
};
static const char hostile_rec[N_HOSTILE][24] = {
	"rec\"0\" {<&>}",
	"rec\\1\\N \x01\x02\x7f",
	"rec<2> \xc3\x28\xa0\xa1",
	"<table>&lt;3",
};

typedef struct hostile_fe {
	eng_frontend fe;
} hostile_fe;

static int emit(uint8_t k, const char *label, eng_succ_fn fn, void *ctx)
{
	eng_obs obs;
	memset(&obs, 0, sizeof obs);
	obs.canon_rec = (const uint8_t *)hostile_rec[k];
	obs.canon_len = sizeof hostile_rec[k];
	obs.canon = eng_fp_of(obs.canon_rec, obs.canon_len);
	obs.raw_bytes = &k;
	obs.raw_len = 1;
	obs.raw = eng_fp_of(&k, 1);
	obs.flags = ENG_OBS_CANON;
	if (k == N_HOSTILE - 1) {
		obs.flags |= ENG_OBS_FAULT;
		obs.fault = "hung \"<forever>\" \x1b]0;title\x07";
	}
	eng_succ s = {
		.label = label,
		.state = &k,
		.state_len = 1,
		.fp = eng_fp_combine(obs.raw, obs.canon),
		.obs = &obs,
	};
	fn(ctx, &s);
	return 0;
}

static int h_initial(eng_frontend *fe, eng_succ_fn fn, void *ctx) { return emit(0, NULL, fn, ctx); }

static int h_next(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx)
{
	uint8_t k = *(const uint8_t *)state;
	if (k + 1 < N_HOSTILE)
		emit((uint8_t)(k + 1), hostile_label[k], fn, ctx);
	if (k > 0)
		emit(0, hostile_label[N_HOSTILE - 1], fn, ctx);
	return 0;
}

static void h_check(eng_frontend *fe, const void *state, size_t len, const eng_obs *obs, eng_bad_fn bad,
		    void *ctx)
{
	if (*(const uint8_t *)state == 2)
		bad(ctx, "invariant:<b>\"Hostile\"</b>", "message \x1b[2J & <br/> \xff");
}

static void h_destroy(eng_frontend *fe) {}

static const struct eng_frontend_ops hostile_ops = {
	.kind = "process",
	.initial = h_initial,
	.next = h_next,
	.check = h_check,
	.destroy = h_destroy,
};

static int hostile(const char *db)
{
	char err[512];
	store *st = store_open(db, NULL, err, sizeof err);
	if (!st) {
		fprintf(stderr, "t3-viz: %s\n", err);
		return 1;
	}
	hostile_fe h = {.fe = {.ops = &hostile_ops, .deadlock_ok = true, .name = "hostile<\"&\">"}};
	eng_opts o;
	eng_opts_default(&o);
	o.keep_going = true;
	eng_search *s = eng_search_new(&h.fe, &o);
	store_run_info info = {.kind = "process", .name = "hostile<\"&\">"};
	if (store_run_begin(st, &info) < 0) {
		fprintf(stderr, "t3-viz: %s\n", store_error(st));
		return 1;
	}
	eng_listener l;
	store_listener(st, s, &l);
	eng_search_listen(s, &l);
	int rc = eng_search_run(s);
	store_run_end(st, "violation", eng_search_stats(s));
	if (store_failed(st)) {
		fprintf(stderr, "t3-viz: the store failed: %s\n", store_error(st));
		rc = -1;
	}
	eng_search_free(s);
	store_close(st);
	return rc < 0;
}

/* ---- reading DOT back ---------------------------------------------------- */

static Agraph_t *read_dot(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return NULL;
	}
	Agraph_t *g = agread(f, NULL);
	fclose(f);
	if (!g)
		fprintf(stderr, "t3-viz: %s: does not parse as DOT\n", path);
	return g;
}

static bool is_state(Agnode_t *n, unsigned long *id)
{
	const char *s = agnameof(n);
	char *end;
	if (s[0] != 's' || s[1] < '0' || s[1] > '9')
		return false;
	*id = strtoul(s + 1, &end, 10);
	return *end == 0;
}

static bool is_trace(Agraph_t *g, Agedge_t *e)
{
	char *pw = agget(e, "penwidth");
	return pw && strcmp(pw, "3") == 0;
}

static int count_clusters(Agraph_t *g)
{
	int n = 0;
	for (Agraph_t *c = agfstsubg(g); c; c = agnxtsubg(c))
		n += strncmp(agnameof(c), "cluster", 7) == 0;
	return n;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

static void print_label(const char *what, const char *s)
{
	if (s && *s)
		printf("%s %s\n", what, s);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "hostile") == 0)
		return hostile(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: t3-viz hostile DB | count|nodes|names|trace|labels FILE.dot\n");
		return 2;
	}
	Agraph_t *g = read_dot(argv[2]);
	if (!g)
		return 1;
	unsigned long a, b;
	if (strcmp(argv[1], "count") == 0) {
		long nodes = 0, edges = 0, trace = 0;
		for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
			if (!is_state(n, &a))
				continue;
			nodes++;
			for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
				if (is_state(aghead(e), &b)) {
					edges++;
					trace += is_trace(g, e);
				}
		}
		printf("nodes %ld edges %ld clusters %d trace %ld legend %d\n", nodes, edges,
		       count_clusters(g), trace, agnode(g, "legend", 0) != NULL);
	} else if (strcmp(argv[1], "nodes") == 0) {
		unsigned long *ids = malloc(((size_t)agnnodes(g) + 1) * sizeof *ids);
		size_t k = 0;
		for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
			if (is_state(n, &a))
				ids[k++] = a;
		qsort(ids, k, sizeof *ids, cmp_ul);
		for (size_t i = 0; i < k; i++)
			printf("%lu\n", ids[i]);
		free(ids);
	} else if (strcmp(argv[1], "names") == 0) {
		for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
			printf("%s\n", agnameof(n));
	} else if (strcmp(argv[1], "trace") == 0) {
		for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
			for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
				if (is_state(n, &a) && is_state(aghead(e), &b) && is_trace(g, e))
					printf("%lu %lu\n", a, b);
	} else if (strcmp(argv[1], "labels") == 0) {
		print_label("graph", agget(g, "label"));
		for (Agraph_t *c = agfstsubg(g); c; c = agnxtsubg(c))
			print_label("cluster", agget(c, "label"));
		for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
			print_label("node", agget(n, "label"));
			print_label("tooltip", agget(n, "tooltip"));
			for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
				print_label("edge", agget(e, "label"));
		}
	} else {
		fprintf(stderr, "t3-viz: unknown command '%s'\n", argv[1]);
		agclose(g);
		return 2;
	}
	agclose(g);
	return 0;
}
