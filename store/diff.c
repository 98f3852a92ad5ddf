/*
 * diff.c — two runs side by side (say, before and after a code change):
 * the canonical states each reached that the other did not, each with a
 * representative whose tree trace is a shortest one, and the first
 * transition where the graphs part.  States are matched across runs by
 * canonical identity and steps by label (labels.id is shared by the runs
 * of one database), walking both graphs breadth-first from matching
 * initial states, so the parting reported is one nearest the start.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

static void only_in(const store_graph *x, const store_graph *y, store_diff_side *out)
{
	store_fpmap *in_y = store_fpmap_new(), *seen = store_fpmap_new();
	for (uint32_t i = 0; i < y->n; i++)
		store_fpmap_put(in_y, y->canon[i], i);
	size_t cap = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		if (eng_fp_zero(x->canon[i]) || store_fpmap_get(in_y, x->canon[i]) != ENG_NO_STATE ||
		    store_fpmap_put(seen, x->canon[i], i) != i)
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->states = eng_xrealloc(out->states, cap * sizeof *out->states);
			out->canon = eng_xrealloc(out->canon, cap * sizeof *out->canon);
		}
		out->states[out->n] = i;
		out->canon[out->n] = x->canon[i];
		out->n++;
	}
	store_fpmap_free(in_y);
	store_fpmap_free(seen);
}

/* The edge of b's state with this label, or UINT64_MAX. */
static uint64_t edge_with(const store_graph *g, uint32_t s, int64_t label)
{
	for (uint64_t e = g->off[s]; e < g->off[s + 1]; e++)
		if (g->label[e] == label)
			return e;
	return UINT64_MAX;
}

static bool part_at(store *st, store_diff *d, uint32_t fa, uint32_t fb, uint32_t ta, uint32_t tb,
		    int64_t label)
{
	d->parted = true;
	d->from_a = fa;
	d->from_b = fb;
	d->to_a = ta;
	d->to_b = tb;
	sqlite3_stmt *s = store_q(st, Q_LABEL_TEXT);
	if (s) {
		sqlite3_bind_int64(s, 1, label);
		if (sqlite3_step(s) == SQLITE_ROW)
			d->label = store_col_strdup(s, 0);
		store_q_done(s);
	}
	return true;
}

/* Breadth-first over pairs (a, b) of states with one canonical identity. */
static void first_parting(store *st, const store_graph *a, const store_graph *b, store_diff *d)
{
	uint32_t *qa = eng_xmalloc(((size_t)a->n + 1) * sizeof *qa);
	uint32_t *qb = eng_xmalloc(((size_t)a->n + 1) * sizeof *qb);
	bool *seen = eng_xcalloc((size_t)a->n + 1, 1);
	size_t head = 0, tail = 0;
	store_fpmap *b_init = store_fpmap_new();
	for (uint32_t i = 0; i < b->n; i++)
		if (b->initial[i])
			store_fpmap_put(b_init, b->canon[i], i);
	for (uint32_t i = 0; i < a->n; i++) {
		if (!a->initial[i])
			continue;
		uint32_t j = store_fpmap_get(b_init, a->canon[i]);
		if (j == ENG_NO_STATE) {
			part_at(st, d, ENG_NO_STATE, ENG_NO_STATE, i, ENG_NO_STATE, 0);
			goto out;
		}
		seen[i] = true;
		qa[tail] = i;
		qb[tail++] = j;
	}
	/* and an initial state of B that A lacks */
	store_fpmap *a_init = store_fpmap_new();
	for (uint32_t i = 0; i < a->n; i++)
		if (a->initial[i])
			store_fpmap_put(a_init, a->canon[i], i);
	uint32_t lone = ENG_NO_STATE;
	for (uint32_t j = 0; j < b->n && lone == ENG_NO_STATE; j++)
		if (b->initial[j] && store_fpmap_get(a_init, b->canon[j]) == ENG_NO_STATE)
			lone = j;
	store_fpmap_free(a_init);
	if (lone != ENG_NO_STATE) {
		part_at(st, d, ENG_NO_STATE, ENG_NO_STATE, ENG_NO_STATE, lone, 0);
		goto out;
	}
	while (head < tail) {
		uint32_t x = qa[head], y = qb[head++];
		for (uint64_t e = a->off[x]; e < a->off[x + 1]; e++) {
			uint64_t f = edge_with(b, y, a->label[e]);
			uint32_t ta = a->dst[e];
			if (f == UINT64_MAX) {
				part_at(st, d, x, y, ta, ENG_NO_STATE, a->label[e]);
				goto out;
			}
			if (!eng_fp_eq(a->canon[ta], b->canon[b->dst[f]])) {
				part_at(st, d, x, y, ta, b->dst[f], a->label[e]);
				goto out;
			}
			if (!seen[ta]) {
				seen[ta] = true;
				qa[tail] = ta;
				qb[tail++] = b->dst[f];
			}
		}
		for (uint64_t f = b->off[y]; f < b->off[y + 1]; f++)
			if (edge_with(a, x, b->label[f]) == UINT64_MAX) {
				part_at(st, d, x, y, ENG_NO_STATE, b->dst[f], b->label[f]);
				goto out;
			}
	}
out:
	store_fpmap_free(b_init);
	free(qa);
	free(qb);
	free(seen);
}

int store_diff_runs(store *st, int64_t ra, int64_t rb, store_diff *d)
{
	memset(d, 0, sizeof *d);
	store_graph a, b;
	if (store_graph_load(st, ra, true, &a) < 0)
		return -1;
	if (store_graph_load(st, rb, true, &b) < 0) {
		store_graph_clear(&a);
		return -1;
	}
	only_in(&a, &b, &d->only_a);
	only_in(&b, &a, &d->only_b);
	first_parting(st, &a, &b, d);
	store_graph_clear(&a);
	store_graph_clear(&b);
	return 0;
}

void store_diff_clear(store_diff *d)
{
	free(d->only_a.states);
	free(d->only_a.canon);
	free(d->only_b.states);
	free(d->only_b.canon);
	free(d->label);
	memset(d, 0, sizeof *d);
}
