/*
 * summary.c — the reduced graphs drawn when a run is too big to draw state
 * by state: a summary by BFS level (one node per level, from the store's
 * depth counts alone, so it is cheap at any size) and the collapse by
 * canonical state (one node per canonical identity, transitions between
 * them aggregated with their count).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

#define PAGE 4096

static void base_attrs(Agraph_t *g)
{
	viz_fonts(g);
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "rounded");
	agattr(g, AGRAPH, "label", "");
}

Agraph_t *viz_build_levels(store *st, int64_t run, const uint64_t *counts, uint32_t maxdepth,
			   uint32_t budget, viz_result *res)
{
	/* Levels that hold a violation or a fault are coloured: find them
	 * through the violation list (each names its state). */
	bool *bad = eng_xcalloc((size_t)maxdepth + 2, sizeof *bad);
	store_violation *v = NULL;
	size_t nv = 0;
	if (store_violations(st, run, &v, &nv) == 0) {
		for (size_t i = 0; i < nv; i++) {
			store_state s;
			if (v[i].state != ENG_NO_STATE && store_state_get(st, run, v[i].state, &s) == 0) {
				if (s.depth <= maxdepth)
					bad[s.depth] = true;
				store_state_clear(&s);
			}
		}
		store_violations_free(v, nv);
	}

	Agraph_t *g = agopen("cmc", Agdirected, NULL);
	base_attrs(g);
	uint32_t band = budget && maxdepth > budget ? (maxdepth + budget - 1) / budget : 1;
	Agnode_t *prev = NULL;
	viz_buf b = {0};
	for (uint32_t d = 1; d <= maxdepth; d += band) {
		uint32_t last = d + band - 1 > maxdepth ? maxdepth : d + band - 1;
		uint64_t n = 0;
		bool any_bad = false;
		for (uint32_t k = d; k <= last; k++) {
			n += counts[k];
			any_bad |= bad[k];
		}
		char name[24];
		snprintf(name, sizeof name, "L%u", d);
		Agnode_t *node = agnode(g, name, 1);
		viz_buf_reset(&b);
		if (last == d)
			viz_buf_addf(&b, "level %u\\n%llu state%s", d, (unsigned long long)n, n == 1 ? "" : "s");
		else
			viz_buf_addf(&b, "levels %u-%u\\n%llu states", d, last, (unsigned long long)n);
		if (any_bad)
			viz_buf_add(&b, "\\nviolation here");
		viz_set(node, "label", viz_buf_str(&b), "\\N");
		if (any_bad) {
			viz_set(node, "style", "rounded,filled", "");
			viz_set(node, "fillcolor", VIZ_C_VIOLATION, "");
		}
		if (prev)
			agedge(g, prev, node, NULL, 1);
		prev = node;
	}
	viz_buf_free(&b);
	free(bad);
	viz_legend(g, VIZ_LEG_LEVELS);
	return g;
}

/* ---- collapse by canonical state ----------------------------------------- */

typedef struct canon_entry {
	eng_fp canon;
	uint32_t group;            /* index into groups, UINT32_MAX: empty slot */
} canon_entry;

typedef struct group {
	eng_fp canon;
	uint32_t first;            /* first state (lowest id) */
	uint32_t n_states;
	bool bad, fault, initial;
	store_state rep;           /* the first state, for its summary */
} group;

/* An open-addressing map from canonical identity to group index. */
typedef struct canon_map {
	canon_entry *e;
	size_t cap;                /* power of two, at most half full */
	size_t n;
} canon_map;

static uint32_t *map_slot(canon_map *m, eng_fp c)
{
	size_t i = (size_t)(c.lo ^ (c.hi >> 7)) & (m->cap - 1);
	while (m->e[i].group != UINT32_MAX && !eng_fp_eq(m->e[i].canon, c))
		i = (i + 1) & (m->cap - 1);
	m->e[i].canon = c;
	return &m->e[i].group;
}

typedef struct agg {
	uint32_t from, to;
	uint64_t n;
	char *label;               /* the first transition's label */
} agg;

static int by_pair(const void *a, const void *b)
{
	const agg *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

Agraph_t *viz_build_collapsed(store *st, int64_t run, uint32_t n_total, size_t max_groups,
			      bool *too_many, viz_result *res)
{
	*too_many = false;
	canon_map m = {0};
	m.cap = 64;
	while (m.cap < 2 * ((size_t)n_total + 1))
		m.cap *= 2;
	m.e = eng_xmalloc(m.cap * sizeof *m.e);
	for (size_t i = 0; i < m.cap; i++)
		m.e[i].group = UINT32_MAX;
	uint32_t *group_of = eng_xmalloc(((size_t)n_total + 1) * sizeof *group_of);
	for (size_t i = 0; i <= n_total; i++)
		group_of[i] = UINT32_MAX;
	group *gr = NULL;
	size_t ng = 0, capg = 0;
	Agraph_t *g = NULL;
	agg *ag = NULL;
	size_t na = 0, capa = 0;

	uint32_t after = ENG_NO_STATE;
	for (;;) {
		store_state *page;
		size_t n;
		if (store_states_page(st, run, STORE_BY_DISCOVERY, 0, after, PAGE, &page, &n) < 0)
			goto out;
		uint32_t last = n ? page[n - 1].id : 0;
		for (size_t i = 0; i < n; i++) {
			store_state *s = &page[i];
			uint32_t id = s->id, parent = s->parent;
			int status = s->status;
			eng_fp c = eng_fp_zero(s->canon_fp) ? s->fp : s->canon_fp;
			uint32_t *slot = map_slot(&m, c);
			if (*slot == UINT32_MAX) {
				if (ng == capg) {
					capg = capg ? capg * 2 : 64;
					gr = eng_xrealloc(gr, capg * sizeof *gr);
				}
				memset(&gr[ng], 0, sizeof gr[ng]);
				gr[ng].canon = c;
				gr[ng].first = id;
				gr[ng].rep = *s; /* takes the strings */
				memset(s, 0, sizeof *s);
				*slot = (uint32_t)ng++;
			}
			group *G = &gr[*slot];
			G->n_states++;
			if (id < n_total)
				group_of[id] = *slot;
			G->bad |= status == STORE_VIOLATION;
			G->fault |= status == STORE_FAULT;
			G->initial |= parent == ENG_NO_STATE;
		}
		if (n)
			after = last;
		store_states_free(page, n);
		if (ng > max_groups) {
			*too_many = true;
			goto out;
		}
		if (n < PAGE)
			break;
	}
	for (uint32_t lo = 0; lo < n_total; lo += PAGE) {
		uint32_t hi = n_total - lo < PAGE ? n_total : lo + PAGE;
		store_edge *e;
		size_t n;
		if (store_edges_range(st, run, lo, hi, &e, &n) < 0)
			goto out;
		for (size_t k = 0; k < n; k++) {
			if (e[k].from >= n_total || e[k].to >= n_total)
				continue;
			if (na == capa) {
				capa = capa ? capa * 2 : 256;
				ag = eng_xrealloc(ag, capa * sizeof *ag);
			}
			ag[na].from = group_of[e[k].from];
			ag[na].to = group_of[e[k].to];
			ag[na].n = 1;
			ag[na].label = e[k].label;
			e[k].label = NULL;
			na++;
		}
		store_edges_free(e, n);
	}
	/* stable order within a pair keeps the first label seen */
	qsort(ag, na, sizeof *ag, by_pair);

	g = agopen("cmc", Agdirected, NULL);
	base_attrs(g);
	Agnode_t **node = eng_xmalloc((ng + 1) * sizeof *node);
	viz_buf b = {0};
	for (size_t k = 0; k < ng; k++) {
		char name[24];
		snprintf(name, sizeof name, "c%zu", k);
		node[k] = agnode(g, name, 1);
		viz_buf_reset(&b);
		viz_buf_addf(&b, "c%zu: %u state%s\\n", k, gr[k].n_states, gr[k].n_states == 1 ? "" : "s");
		viz_state_summary(st, &gr[k].rep, &b, false);
		viz_set(node[k], "label", viz_buf_str(&b), "\\N");
		if (gr[k].bad || gr[k].fault) {
			viz_set(node[k], "style", "rounded,filled", "");
			viz_set(node[k], "fillcolor", gr[k].bad ? VIZ_C_VIOLATION : VIZ_C_FAULT, "");
		} else if (gr[k].initial) {
			viz_set(node[k], "style", "rounded,filled", "");
			viz_set(node[k], "fillcolor", VIZ_C_INIT, "");
		}
		if (gr[k].initial)
			viz_set(node[k], "peripheries", "2", "1");
	}
	for (size_t i = 0; i < na;) {
		size_t j = i;
		while (j < na && ag[j].from == ag[i].from && ag[j].to == ag[i].to)
			j++;
		if (ag[i].from < ng && ag[i].to < ng) {
			Agedge_t *e = agedge(g, node[ag[i].from], node[ag[i].to], NULL, 1);
			viz_buf_reset(&b);
			viz_label_str(&b, ag[i].label, 24);
			if (j - i > 1)
				viz_buf_addf(&b, " (x%zu)", j - i);
			viz_set(e, "label", viz_buf_str(&b), "");
			res->edges++;
		}
		i = j;
	}
	res->nodes = 0;
	res->clusters = ng;
	viz_buf_free(&b);
	free(node);
	viz_legend(g, VIZ_LEG_COLLAPSED | VIZ_LEG_MARKS);
out:
	for (size_t k = 0; k < ng; k++)
		store_state_clear(&gr[k].rep);
	free(gr);
	for (size_t i = 0; i < na; i++)
		free(ag[i].label);
	free(ag);
	free(group_of);
	free(m.e);
	return g;
}
