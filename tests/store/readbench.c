/*
 * readbench.c — read latencies of the store API on the latest run of a
 * database, for tests/bench/store.sh: a state, its successors, a page of
 * states by depth, the trace to a state, predecessors (through the
 * predecessor index) and a fingerprint-prefix search (the `/` jump: one
 * pass over the states).  Prints "NAME median_ms max_ms" lines.
 * Usage: store-readbench DB [SAMPLES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "util.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_d);
	printf("read_%s_ms_median %.3f\nread_%s_ms_max %.3f\n", name, t[n / 2] * 1e3, name,
	       t[n - 1] * 1e3);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: store-readbench DB [SAMPLES]\n");
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 200;
	if (n < 1)
		n = 1;
	char err[512];
	store_opts o = {.readonly = true};
	store *st = store_open(argv[1], &o, err, sizeof err);
	if (!st) {
		fprintf(stderr, "store-readbench: %s\n", err);
		return 2;
	}
	int64_t run = store_latest_run(st);
	store_run r;
	if (!run || store_run_get(st, run, &r) != 0 || r.stored_states == 0) {
		fprintf(stderr, "store-readbench: no stored run in %s\n", argv[1]);
		return 2;
	}
	uint64_t states = r.stored_states;
	store_run_clear(&r);
	printf("read_states_in_run %llu\n", (unsigned long long)states);
	double *t = eng_xcalloc((size_t)n, sizeof *t);
	uint64_t seed = 88172645463325252ull;
#define RND() (seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed)

	for (int i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(RND() % states);
		store_state s;
		double t0 = eng_now();
		store_state_get(st, run, id, &s);
		t[i] = eng_now() - t0;
		store_state_clear(&s);
	}
	report("state", t, n);

	for (int i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(RND() % states);
		store_edge *e;
		size_t ne;
		double t0 = eng_now();
		store_successors(st, run, id, &e, &ne);
		t[i] = eng_now() - t0;
		store_edges_free(e, ne);
	}
	report("successors", t, n);

	uint64_t *counts;
	uint32_t maxd;
	store_depth_counts(st, run, &counts, &maxd);
	uint32_t widest = 1;
	for (uint32_t d = 1; d <= maxd; d++)
		if (counts[d] > counts[widest])
			widest = d;
	for (int i = 0; i < n; i++) {
		/* a page of 100 from a random place in the widest level */
		store_state one;
		uint32_t after = ENG_NO_STATE;
		store_state *p;
		size_t np;
		store_states_page(st, run, STORE_BY_DEPTH, widest, ENG_NO_STATE, 1, &p, &np);
		if (np) {
			after = p[0].id + (uint32_t)(RND() % (counts[widest] > 100 ? counts[widest] - 100 : 1));
		}
		store_states_free(p, np);
		(void)one;
		double t0 = eng_now();
		store_states_page(st, run, STORE_BY_DEPTH, widest, after, 100, &p, &np);
		t[i] = eng_now() - t0;
		store_states_free(p, np);
	}
	report("page100_by_depth", t, n);
	free(counts);

	for (int i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(states - 1 - RND() % (states / 10 + 1)); /* deep states */
		store_trace tr;
		double t0 = eng_now();
		if (store_trace_to(st, run, id, &tr) == 0)
			store_trace_clear(&tr);
		t[i] = eng_now() - t0;
	}
	report("trace", t, n);

	int m = n < 5 ? n : 5;
	/* the workbench's `/` jump: a prefix of a random state's fingerprint
	 * (found at its place in the scan), and one that matches nothing
	 * (a whole pass) */
	for (int i = 0; i < m; i++) {
		uint32_t id = (uint32_t)(RND() % states), got[4];
		store_state s;
		char hex[33];
		size_t nf;
		store_state_get(st, run, id, &s);
		eng_fp_hex(s.fp, hex);
		store_state_clear(&s);
		hex[8] = 0;
		double t0 = eng_now();
		store_find_fp_prefix(st, run, hex, got, 1, &nf);
		t[i] = eng_now() - t0;
	}
	report("find_fp_prefix_hit", t, m);
	for (int i = 0; i < m; i++) {
		uint32_t got[4];
		size_t nf;
		double t0 = eng_now();
		store_find_fp_prefix(st, run, "0123456789abcdef0123456789abcdef", got, 1, &nf);
		t[i] = eng_now() - t0;
	}
	report("find_fp_prefix_miss", t, m);

	for (int i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(RND() % states);
		store_edge *e;
		size_t ne;
		double t0 = eng_now();
		store_predecessors(st, run, id, &e, &ne);
		t[i] = eng_now() - t0;
		store_edges_free(e, ne);
	}
	report("predecessors", t, n);
	free(t);
	store_close(st);
	return 0;
}
