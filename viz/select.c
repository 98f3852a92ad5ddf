/*
 * select.c — which states and transitions a picture shows: the whole run,
 * the first D levels, the neighbourhood of a state, or a hand-picked set
 * (a counterexample and its surroundings).  Reads through the store's API
 * only; owns the viz_sel it fills (freed by viz_sel_free).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

#define PAGE 4096

int viz_sel_init(viz_sel *s, store *st, int64_t run, uint32_t n_total)
{
	memset(s, 0, sizeof *s);
	s->st = st;
	s->run = run;
	s->n_total = n_total;
	s->pos = eng_xcalloc((size_t)n_total + 1, sizeof *s->pos);
	return 0;
}

void viz_sel_free(viz_sel *s)
{
	store_states_free(s->states, s->n);
	store_edges_free(s->edges, s->n_edges);
	free(s->pos);
	free(s->out_left);
	memset(s, 0, sizeof *s);
}

static store_state *slot(viz_sel *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->states = eng_xrealloc(s->states, s->cap * sizeof *s->states);
	}
	return &s->states[s->n];
}

/* Takes ownership of *st's strings. */
static void keep(viz_sel *s, store_state *st)
{
	if (st->id >= s->n_total || s->pos[st->id]) {
		store_state_clear(st);
		return;
	}
	*slot(s) = *st;
	s->n++;
	s->pos[st->id] = (uint32_t)s->n;
}

int viz_sel_add(viz_sel *s, uint32_t id)
{
	if (id >= s->n_total || s->pos[id])
		return 0;
	store_state st;
	int rc = store_state_get(s->st, s->run, id, &st);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	keep(s, &st);
	return 0;
}

static int add_page_loop(viz_sel *s, store_order order, uint32_t depth)
{
	uint32_t after = ENG_NO_STATE;
	for (;;) {
		store_state *page;
		size_t n;
		if (store_states_page(s->st, s->run, order, depth, after, PAGE, &page, &n) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			keep(s, &page[i]);
		if (n)
			after = page[n - 1].id;
		free(page); /* the strings moved into s->states */
		if (n < PAGE)
			return 0;
	}
}

int viz_sel_add_depth(viz_sel *s, uint32_t max_depth)
{
	if (max_depth == 0)
		return add_page_loop(s, STORE_BY_DISCOVERY, 0);
	for (uint32_t d = 1; d <= max_depth; d++)
		if (add_page_loop(s, STORE_BY_DEPTH, d) < 0)
			return -1;
	return 0;
}

int viz_sel_add_around(viz_sel *s, uint32_t id, uint32_t radius, size_t cap, bool *cut)
{
	*cut = false;
	if (id >= s->n_total)
		return 0;
	/* Breadth-first over transitions in both directions; the frontier is
	 * the tail of s->states added in the previous round. */
	size_t start = s->n;
	if (viz_sel_add(s, id) < 0)
		return -1;
	size_t lo = start, hi = s->n;
	for (uint32_t r = 0; r < radius && lo < hi; r++) {
		for (size_t i = lo; i < hi; i++) {
			uint32_t from = s->states[i].id;
			for (int dir = 0; dir < 2; dir++) {
				store_edge *e;
				size_t n;
				int rc = dir ? store_predecessors(s->st, s->run, from, &e, &n)
					     : store_successors(s->st, s->run, from, &e, &n);
				if (rc < 0)
					return -1;
				for (size_t k = 0; k < n; k++) {
					uint32_t other = dir ? e[k].from : e[k].to;
					if (other < s->n_total && !s->pos[other]) {
						if (s->n - start >= cap) {
							*cut = true;
							break;
						}
						if (viz_sel_add(s, other) < 0) {
							store_edges_free(e, n);
							return -1;
						}
					}
				}
				store_edges_free(e, n);
			}
		}
		lo = hi;
		hi = s->n;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const store_state *)a)->id, y = ((const store_state *)b)->id;
	return x < y ? -1 : x > y;
}

static void add_edge(viz_sel *s, store_edge *e)
{
	if (s->n_edges == s->cap_edges) {
		s->cap_edges = s->cap_edges ? s->cap_edges * 2 : 256;
		s->edges = eng_xrealloc(s->edges, s->cap_edges * sizeof *s->edges);
	}
	s->edges[s->n_edges++] = *e;
	e->label = NULL;
}

/* Keep the edges of `e` that stay inside the selection; count the others. */
static void take_edges(viz_sel *s, store_edge *e, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (e[k].from >= s->n_total || !s->pos[e[k].from])
			continue;
		if (e[k].to < s->n_total && s->pos[e[k].to])
			add_edge(s, &e[k]);
		else
			s->out_left[s->pos[e[k].from] - 1]++;
	}
	store_edges_free(e, n);
}

int viz_sel_finish(viz_sel *s, bool whole_run)
{
	qsort(s->states, s->n, sizeof *s->states, by_id);
	for (size_t i = 0; i < s->n; i++)
		s->pos[s->states[i].id] = (uint32_t)(i + 1);
	s->out_left = eng_xcalloc(s->n + 1, sizeof *s->out_left);
	if (whole_run) {
		for (uint32_t lo = 0; lo < s->n_total; lo += PAGE) {
			uint32_t hi = s->n_total - lo < PAGE ? s->n_total : lo + PAGE;
			store_edge *e;
			size_t n;
			if (store_edges_range(s->st, s->run, lo, hi, &e, &n) < 0)
				return -1;
			take_edges(s, e, n);
		}
		return 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		store_edge *e;
		size_t n;
		if (store_successors(s->st, s->run, s->states[i].id, &e, &n) < 0)
			return -1;
		take_edges(s, e, n);
	}
	return 0;
}
