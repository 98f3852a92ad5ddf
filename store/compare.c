/*
 * compare.c — raw against canonical within one run: how many distinct raw
 * and canonical identities the run's states span, the merge factor, and
 * each canonical state with its raw variants (one representative state per
 * variant, the first discovered, so its tree trace is a shortest one).
 * Also loading a run's graph into memory, which diff.c shares.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

struct gload {
	store_graph *g;
	size_t cap;
	uint64_t ne, ecap;
	int64_t last_src;
	bool sorted;
};

static bool gstate_cb(void *ctx, uint32_t id, const struct store_rec *r)
{
	struct gload *l = ctx;
	store_graph *g = l->g;
	if (id >= l->cap) {
		size_t nc = l->cap ? l->cap : 1024;
		while (nc <= id)
			nc *= 2;
		g->canon = eng_xrealloc(g->canon, nc * sizeof *g->canon);
		g->raw = eng_xrealloc(g->raw, nc * sizeof *g->raw);
		g->initial = eng_xrealloc(g->initial, nc * sizeof *g->initial);
		g->parent = eng_xrealloc(g->parent, nc * sizeof *g->parent);
		memset(g->canon + l->cap, 0, (nc - l->cap) * sizeof *g->canon);
		memset(g->raw + l->cap, 0, (nc - l->cap) * sizeof *g->raw);
		memset(g->initial + l->cap, 0, (nc - l->cap) * sizeof *g->initial);
		memset(g->parent + l->cap, 0xff, (nc - l->cap) * sizeof *g->parent);
		l->cap = nc;
	}
	/* canonical identity: the canonical fingerprint, else the one that
	 * deduplicated; raw likewise */
	g->canon[id] = eng_fp_zero(r->canon_fp) ? r->fp : r->canon_fp;
	g->raw[id] = eng_fp_zero(r->raw_fp) ? r->fp : r->raw_fp;
	g->initial[id] = r->parent == ENG_NO_STATE;
	g->parent[id] = r->parent;
	if (id + 1 > g->n)
		g->n = id + 1;
	return true;
}

/* Edge records of one source, appended in CSR order; sources must come
 * in increasing order (BFS), else the edges are sorted afterwards. */
struct eitem {
	uint32_t src, dst;
	int64_t label;
	uint64_t at;               /* position written: keeps a source's order */
};

static bool gedge_cb(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n)
{
	struct gload *l = ctx;
	store_graph *g = l->g;
	if ((int64_t)src < l->last_src)
		l->sorted = false;
	l->last_src = src;
	for (size_t i = 0; i < n; i++) {
		if (l->ne == l->ecap) {
			l->ecap = l->ecap ? l->ecap * 2 : 4096;
			g->dst = eng_xrealloc(g->dst, l->ecap * sizeof *g->dst);
			g->label = eng_xrealloc(g->label, l->ecap * sizeof *g->label);
			g->esrc = eng_xrealloc(g->esrc, l->ecap * sizeof *g->esrc);
		}
		g->esrc[l->ne] = src;
		g->dst[l->ne] = e[i].dst;
		g->label[l->ne] = e[i].label;
		l->ne++;
	}
	return true;
}

static int cmp_item(const void *a, const void *b)
{
	const struct eitem *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

int store_graph_load(store *st, int64_t run, bool edges, store_graph *g)
{
	memset(g, 0, sizeof *g);
	struct gload l = {g, 0, 0, 0, -1, true};
	if (store_each_state(st, run, gstate_cb, &l) < 0) {
		store_graph_clear(g);
		return -1;
	}
	g->off = eng_xcalloc((size_t)g->n + 1, sizeof *g->off);
	if (!edges)
		return 0;
	if (store_each_edges(st, run, gedge_cb, &l) < 0) {
		store_graph_clear(g);
		return -1;
	}
	if (!l.sorted) { /* depth-first runs write sources out of order */
		struct eitem *it = eng_xmalloc((l.ne + 1) * sizeof *it);
		for (uint64_t i = 0; i < l.ne; i++)
			it[i] = (struct eitem){g->esrc[i], g->dst[i], g->label[i], i};
		qsort(it, l.ne, sizeof *it, cmp_item);
		for (uint64_t i = 0; i < l.ne; i++) {
			g->esrc[i] = it[i].src;
			g->dst[i] = it[i].dst;
			g->label[i] = it[i].label;
		}
		free(it);
	}
	/* drop edges whose ends are not stored; build offsets */
	uint64_t k = 0;
	for (uint64_t i = 0; i < l.ne; i++) {
		if (g->esrc[i] >= g->n || g->dst[i] >= g->n)
			continue;
		g->esrc[k] = g->esrc[i];
		g->dst[k] = g->dst[i];
		g->label[k] = g->label[i];
		k++;
	}
	for (uint64_t i = 0; i < k; i++)
		g->off[g->esrc[i] + 1]++;
	for (uint32_t s = 0; s < g->n; s++)
		g->off[s + 1] += g->off[s];
	return 0;
}

void store_graph_clear(store_graph *g)
{
	free(g->canon);
	free(g->raw);
	free(g->initial);
	free(g->parent);
	free(g->esrc);
	free(g->off);
	free(g->dst);
	free(g->label);
	memset(g, 0, sizeof *g);
}

int store_compare_run(store *st, int64_t run, store_compare *out)
{
	memset(out, 0, sizeof *out);
	store_graph g;
	if (store_graph_load(st, run, false, &g) < 0)
		return -1;
	store_fpmap *canon = store_fpmap_new(), *raw = store_fpmap_new(), *pair = store_fpmap_new();
	size_t cap = 0;
	for (uint32_t id = 0; id < g.n; id++) {
		if (eng_fp_zero(g.canon[id]))
			continue; /* a hole: not stored */
		out->states++;
		store_fpmap_put(raw, g.raw[id], id);
		uint32_t gi = store_fpmap_put(canon, g.canon[id], (uint32_t)out->n_groups);
		if (gi == out->n_groups) {
			if (out->n_groups == cap) {
				cap = cap ? cap * 2 : 64;
				out->groups = eng_xrealloc(out->groups, cap * sizeof *out->groups);
			}
			memset(&out->groups[gi], 0, sizeof out->groups[gi]);
			out->groups[gi].canon = g.canon[id];
			out->n_groups++;
		}
		store_canon_group *grp = &out->groups[gi];
		grp->n_states++;
		/* A variant is a (canonical, raw) pair seen for the first time. */
		eng_fp key = eng_fp_combine(g.canon[id], g.raw[id]);
		if (store_fpmap_put(pair, key, id) != id)
			continue;
		grp->states = eng_xrealloc(grp->states, (grp->n_raw + 1) * sizeof *grp->states);
		grp->raw = eng_xrealloc(grp->raw, (grp->n_raw + 1) * sizeof *grp->raw);
		grp->states[grp->n_raw] = id;
		grp->raw[grp->n_raw] = g.raw[id];
		grp->n_raw++;
	}
	out->raw_distinct = store_fpmap_count(raw);
	out->canon_distinct = store_fpmap_count(canon);
	out->merge_factor =
		out->canon_distinct ? (double)out->raw_distinct / (double)out->canon_distinct : 0.0;
	store_fpmap_free(canon);
	store_fpmap_free(raw);
	store_fpmap_free(pair);
	store_graph_clear(&g);
	return 0;
}

void store_compare_clear(store_compare *c)
{
	for (size_t i = 0; i < c->n_groups; i++) {
		free(c->groups[i].states);
		free(c->groups[i].raw);
	}
	free(c->groups);
	memset(c, 0, sizeof *c);
}
