/*
 * graph.c — the state graph as cgraph builds it: one node per selected
 * state ("sID"), one edge per stored transition between selected states,
 * styled by what the edge is (BFS tree edge, edge into an already-seen
 * state, back edge), the initial, violating and faulty states marked, an
 * optional counterexample highlighted and optional clusters grouping raw
 * variants by canonical state.  All label text from the store is escaped
 * through label.c.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

#define SUMMARY_BYTES 24
#define EDGE_LABEL_BYTES 24

void viz_state_summary(store *st, const store_state *s, viz_buf *out, bool html)
{
	if (!eng_fp_zero(s->canon_blob)) {
		uint8_t *data = NULL;
		size_t len = 0, full = 0;
		if (store_blob(st, s->canon_blob, &data, &len, &full) == 0) {
			/* Mostly text: shown escaped.  Mostly binary (records of
			 * integers): hex is shorter than a run of \xHH. */
			size_t printable = 0;
			for (size_t i = 0; i < len; i++)
				printable += data[i] >= 0x20 && data[i] < 0x7f;
			if (2 * printable >= len) {
				(html ? viz_html_bytes : viz_label_bytes)(out, data, len, SUMMARY_BYTES);
			} else {
				for (size_t i = 0; i < len && i < SUMMARY_BYTES / 2; i++)
					viz_buf_addf(out, "%02x%s", data[i], i % 8 == 7 ? " " : "");
				if (len > SUMMARY_BYTES / 2)
					viz_buf_add(out, "...");
			}
			free(data);
			return;
		}
		free(data);
	}
	char hex[33];
	eng_fp_hex(s->fp, hex);
	hex[8] = 0;
	viz_buf_add(out, hex);
}

/*
 * Where a state goes in the raw-vs-canonical picture: its canonical
 * state's cluster, that cluster's number (by discovery) and size, and the
 * cluster's first state (lowest id), which carries the canonical record;
 * the other raw variants say how their raw bytes differ from it.
 */
typedef struct placement {
	Agraph_t *cluster;
	size_t rank, members;
	size_t rep;                /* index in sel->states of the first state */
} placement;

/* How the raw snapshot of `s` differs from that of `rep`: the first
 * differing offset, the bytes there, how many bytes differ. */
static void raw_difference(store *st, const store_state *rep, const store_state *s, viz_buf *b)
{
	uint8_t *x = NULL, *y = NULL;
	size_t xl = 0, yl = 0, full;
	if (eng_fp_zero(rep->raw_blob) || eng_fp_zero(s->raw_blob) ||
	    store_blob(st, rep->raw_blob, &x, &xl, &full) != 0 || store_blob(st, s->raw_blob, &y, &yl, &full) != 0) {
		char hex[33];
		eng_fp_hex(eng_fp_zero(s->raw_fp) ? s->fp : s->raw_fp, hex);
		hex[8] = 0;
		viz_buf_addf(b, "raw variant of #%u\\nraw fingerprint %s", rep->id, hex);
		free(x);
		free(y);
		return;
	}
	size_t n = xl < yl ? xl : yl, first = n, ndiff = 0;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i]) {
			if (first == n)
				first = i;
			ndiff++;
		}
	ndiff += (xl > yl ? xl - yl : yl - xl);
	if (ndiff == 0) {
		viz_buf_addf(b, "raw bytes as #%u", rep->id);
	} else if (first == n) {
		viz_buf_addf(b, "raw: #%u's bytes and %zu more", rep->id, yl > xl ? yl - xl : 0);
	} else {
		viz_buf_addf(b, "raw vs #%u: +0x%zx", rep->id, first);
		size_t show = n - first < 4 ? n - first : 4;
		viz_buf_add(b, "\\n");
		for (size_t i = 0; i < show; i++)
			viz_buf_addf(b, "%02x", x[first + i]);
		viz_buf_add(b, " -> ");
		for (size_t i = 0; i < show; i++)
			viz_buf_addf(b, "%02x", y[first + i]);
		viz_buf_addf(b, "\\n%zu byte%s differ%s", ndiff, ndiff == 1 ? "" : "s", ndiff == 1 ? "s" : "");
	}
	free(x);
	free(y);
}

static Agnode_t *state_node(Agraph_t *g, Agsym_t *label, viz_sel *sel, const store_state *s,
			    const placement *pl, viz_buf *b, bool on_trace)
{
	char name[16];
	snprintf(name, sizeof name, "s%u", s->id);
	Agnode_t *n = agnode(g, name, 1);

	viz_buf_reset(b);
	viz_buf_addf(b, "#%u d=%u\\n", s->id, s->depth);
	if (!pl) {
		viz_state_summary(sel->st, s, b, false);
	} else if (&sel->states[pl->rep] == s) {
		/* the cluster's title, in a node so no edge crosses it */
		viz_buf_addf(b, "canonical c%zu: %zu raw variant%s\\n", pl->rank, pl->members,
			     pl->members == 1 ? "" : "s");
		viz_state_summary(sel->st, s, b, false);
	} else {
		raw_difference(sel->st, &sel->states[pl->rep], s, b);
	}
	uint32_t left = sel->out_left[sel->pos[s->id] - 1];
	if (left)
		viz_buf_addf(b, "\\n(+%u not drawn)", left);
	agxset(n, label, (char *)viz_buf_str(b));

	char hex[33];
	viz_buf_reset(b);
	viz_buf_addf(b, "state %u, depth %u, fingerprint %s", s->id, s->depth, eng_fp_hex(s->fp, hex));
	if (s->fault) {
		viz_buf_add(b, ", fault: ");
		viz_label_str(b, s->fault, 200);
	}
	viz_set(n, "tooltip", viz_buf_str(b), "");

	const char *fill = NULL, *border = NULL;
	if (s->status == STORE_VIOLATION)
		fill = VIZ_C_VIOLATION, border = VIZ_C_VIOLATION_EDGE;
	else if (s->status == STORE_FAULT)
		fill = VIZ_C_FAULT, border = VIZ_C_FAULT_EDGE;
	else if (s->parent == ENG_NO_STATE)
		fill = VIZ_C_INIT;
	if (fill) {
		viz_set(n, "style", "rounded,filled", "");
		viz_set(n, "fillcolor", fill, "");
	}
	if (border)
		viz_set(n, "color", border, "");
	if (s->parent == ENG_NO_STATE)
		viz_set(n, "peripheries", "2", "1");
	if (on_trace) {
		viz_set(n, "color", VIZ_C_TRACE, "");
		viz_set(n, "penwidth", "2.5", "1");
	}
	return n;
}

/* Index of the trace step that `e` takes, or -1: trace->states[i] ->
 * trace->states[i + 1] by trace->labels[i]. */
static long trace_step(const store_trace *t, const store_edge *e, bool *used)
{
	for (size_t i = 0; t && i < t->len; i++)
		if (!used[i] && t->states[i] == e->from && t->states[i + 1] == e->to &&
		    t->labels[i] && e->label && strcmp(t->labels[i], e->label) == 0)
			return (long)i;
	return -1;
}

static bool on_trace(const store_trace *t, uint32_t id)
{
	for (size_t i = 0; t && i <= t->len; i++)
		if (t->states[i] == id)
			return true;
	return false;
}

static int by_canon(const void *a, const void *b, void *ctx)
{
	const store_state *s = ctx;
	const store_state *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];
	eng_fp cx = eng_fp_zero(x->canon_fp) ? x->fp : x->canon_fp;
	eng_fp cy = eng_fp_zero(y->canon_fp) ? y->fp : y->canon_fp;
	if (cx.hi != cy.hi)
		return cx.hi < cy.hi ? -1 : 1;
	if (cx.lo != cy.lo)
		return cx.lo < cy.lo ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* One cluster per canonical identity, named by order of first discovery;
 * returns per selected state where it goes.  A cluster has no label of its
 * own (dot routes edges across cluster labels, never across nodes): its
 * first state's node carries the title, its tooltip says the rest. */
static placement *make_clusters(Agraph_t *g, viz_sel *sel, viz_result *res)
{
	size_t n = sel->n;
	size_t *ix = eng_xmalloc((n + 1) * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof *ix, by_canon, sel->states);
	/* group starts, then order groups by their first state's id */
	size_t *gstart = eng_xmalloc((n + 1) * sizeof *gstart), ng = 0;
	for (size_t i = 0; i < n; i++) {
		const store_state *a = &sel->states[ix[i]];
		eng_fp ca = eng_fp_zero(a->canon_fp) ? a->fp : a->canon_fp;
		if (i == 0) {
			gstart[ng++] = 0;
			continue;
		}
		const store_state *p = &sel->states[ix[i - 1]];
		eng_fp cp = eng_fp_zero(p->canon_fp) ? p->fp : p->canon_fp;
		if (!eng_fp_eq(ca, cp))
			gstart[ng++] = i;
	}
	gstart[ng] = n;
	placement *where = eng_xcalloc(n + 1, sizeof *where);
	/* first state's id is ix[gstart[k]] (ids ascend within a group);
	 * number clusters by that, so names follow discovery. */
	uint32_t *first = eng_xmalloc((ng + 1) * sizeof *first);
	for (size_t k = 0; k < ng; k++)
		first[k] = sel->states[ix[gstart[k]]].id;
	viz_buf b = {0};
	for (size_t k = 0; k < ng; k++) {
		size_t rank = 0;
		for (size_t j = 0; j < ng; j++)
			rank += first[j] < first[k];
		char name[32];
		snprintf(name, sizeof name, "cluster_c%zu", rank);
		Agraph_t *c = agsubg(g, name, 1);
		const store_state *rep = &sel->states[ix[gstart[k]]];
		size_t members = gstart[k + 1] - gstart[k];
		viz_buf_reset(&b);
		viz_buf_addf(&b, "canonical c%zu: %zu raw variant%s, first #%u: ", rank, members,
			     members == 1 ? "" : "s", rep->id);
		viz_state_summary(sel->st, rep, &b, false);
		viz_set(c, "tooltip", viz_buf_str(&b), "");
		viz_set(c, "label", "", ""); /* not the root's caption */
		viz_set(c, "style", "rounded", "");
		viz_set(c, "color", "#6a8caf", "");
		for (size_t i = gstart[k]; i < gstart[k + 1]; i++)
			where[ix[i]] = (placement){c, rank, members, ix[gstart[k]]};
	}
	res->clusters = ng;
	viz_buf_free(&b);
	free(first);
	free(gstart);
	free(ix);
	return where;
}

Agraph_t *viz_build_states(viz_sel *sel, const viz_draw *d, viz_result *res)
{
	Agraph_t *g = agopen("cmc", Agdirected, NULL);
	viz_set(g, "rankdir", "TB", "");
	viz_fonts(g);
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "rounded");

	Agsym_t *nlabel = agattr(g, AGNODE, "label", "\\N");
	agattr(g, AGRAPH, "label", "");
	placement *where = d->clusters ? make_clusters(g, sel, res) : NULL;
	Agnode_t **node = eng_xmalloc((sel->n + 1) * sizeof *node);
	viz_buf b = {0};
	for (size_t i = 0; i < sel->n; i++) {
		const store_state *s = &sel->states[i];
		node[i] = state_node(where ? where[i].cluster : g, nlabel, sel, s, where ? &where[i] : NULL, &b,
				     on_trace(d->trace, s->id));
		if (where) /* the node belongs to the root graph too */
			node[i] = agsubnode(g, node[i], 1);
		res->nodes++;
	}

	bool *used = d->trace ? eng_xcalloc(d->trace->len + 1, sizeof *used) : NULL;
	Agsym_t *lab = agattr(g, AGEDGE, "label", "");
	for (size_t k = 0; k < sel->n_edges; k++) {
		const store_edge *e = &sel->edges[k];
		size_t fi = sel->pos[e->from] - 1, ti = sel->pos[e->to] - 1;
		Agedge_t *ed = agedge(g, node[fi], node[ti], NULL, 1);
		res->edges++;
		if (d->edge_labels) {
			viz_buf_reset(&b);
			viz_label_str(&b, e->label, EDGE_LABEL_BYTES);
			agxset(ed, lab, (char *)viz_buf_str(&b));
		} else {
			viz_buf_reset(&b);
			viz_label_str(&b, e->label, EDGE_LABEL_BYTES);
			viz_set(ed, "tooltip", viz_buf_str(&b), "");
		}
		uint32_t fd = sel->states[fi].depth, td = sel->states[ti].depth;
		if (!e->new_state && td <= fd) {
			viz_set(ed, "style", "dashed", "");
			viz_set(ed, "color", VIZ_C_BACK, "");
			viz_set(ed, "constraint", "false", "true");
		} else if (!e->new_state) {
			viz_set(ed, "style", "dashed", "");
			viz_set(ed, "color", VIZ_C_SEEN, "");
		}
		long step = d->trace ? trace_step(d->trace, e, used) : -1;
		if (step >= 0) {
			used[step] = true;
			viz_set(ed, "color", VIZ_C_TRACE, "");
			viz_set(ed, "penwidth", "3", "1");
			viz_set(ed, "style", "bold", "");
			res->trace_edges++;
		}
	}
	free(used);
	viz_buf_free(&b);
	free(node);
	free(where);
	viz_legend(g, VIZ_LEG_STATES | (d->trace ? VIZ_LEG_TRACE : 0) |
			      (d->clusters ? VIZ_LEG_CLUSTERS : 0));
	return g;
}
