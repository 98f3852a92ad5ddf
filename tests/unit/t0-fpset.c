/*
 * t0-fpset.c — the visited set: ids are dense and stable across growth,
 * lookups find exactly what was put, parents are kept, and the memory held
 * per state stays within the budget the design promises.
 */
#include <stdlib.h>

#include "fpset.h"
#include "tap.h"

static eng_fp nth(uint64_t i)
{
	return eng_fp_of(&i, sizeof i);
}

int main(void)
{
	const uint64_t n = 1000000;
	fpset *s = fpset_new(0);
	bool fresh0;
	int bad_put = 0, bad_dup = 0, bad_get = 0, bad_parent = 0, bad_fp = 0;
	for (uint64_t i = 0; i < n; i++) {
		bool fresh;
		uint32_t id = fpset_put(s, nth(i), i ? (uint32_t)(i / 2) : ENG_NO_STATE, &fresh);
		if (!fresh || id != i)
			bad_put++;
	}
	for (uint64_t i = 0; i < n; i++) {
		bool fresh;
		if (fpset_put(s, nth(i), 0, &fresh) != i || fresh)
			bad_dup++;
		if (fpset_get(s, nth(i)) != i)
			bad_get++;
		if (fpset_parent(s, (uint32_t)i) != (i ? (uint32_t)(i / 2) : ENG_NO_STATE))
			bad_parent++;
		if (!eng_fp_eq(fpset_fp(s, (uint32_t)i), nth(i)))
			bad_fp++;
	}
	ok(bad_put == 0, "%llu puts got ids 0..n-1 in order (%d wrong)", (unsigned long long)n, bad_put);
	ok(bad_dup == 0, "putting again finds the same id, not fresh (%d wrong)", bad_dup);
	ok(bad_get == 0, "every fingerprint is found after growth (%d wrong)", bad_get);
	ok(bad_parent == 0, "parents survive growth (%d wrong)", bad_parent);
	ok(bad_fp == 0, "fingerprints by id survive growth (%d wrong)", bad_fp);
	ok(fpset_is_valid(s), "the set is valid, every subtable within its load");
	ok(fpset_count(s) == n, "count is %llu", (unsigned long long)fpset_count(s));
	int absent = 0;
	for (uint64_t i = n; i < n + 100000; i++)
		if (fpset_get(s, nth(i)) != ENG_NO_STATE)
			absent++;
	ok(absent == 0, "100000 fingerprints never put are not found (%d were)", absent);
	/* 16 bytes of records per state (parents go to a file), an index at load >= 0.6 (<= 6.7 bytes),
	 * plus at most one partly filled 64Ki-record chunk. */
	double per = (double)fpset_bytes(s) / (double)n;
	double bound = 16.0 + 4.0 / 0.5 + 65536.0 * 16.0 / (double)n;
	ok(per <= bound, "%.2f bytes per state (bound %.2f)", per, bound);
	fpset_free(s);

	/* many at once, as parallel.c's bulk admission adds them: records by
	 * any thread, then each subtable's slots by the one thread that
	 * handles it (here: subtable by subtable), then the ids handed out */
	fpset *b = fpset_new(0);
	const uint64_t first = 3000, more = 20000;
	for (uint64_t k = 0; k < first; k++)
		fpset_put(b, nth(k), ENG_NO_STATE, &fresh0);
	uint64_t add[FPSET_SUBS] = {0};
	uint32_t *par = malloc(more * sizeof *par);
	for (uint64_t k = 0; k < more; k++) {
		add[fpset_sub(nth(first + k))]++;
		par[k] = (uint32_t)(k % first);
	}
	int uneven = 0;
	for (unsigned t = 0; t < FPSET_SUBS; t++)
		if (add[t] < more / FPSET_SUBS / 2 || add[t] > more / FPSET_SUBS * 2)
			uneven++;
	ok(uneven == 0, "fingerprints spread over the %d subtables (%d far from even)", FPSET_SUBS, uneven);
	ok(fpset_reserve(b, more, add), "room is reserved for %llu more", (unsigned long long)more);
	for (uint64_t k = 0; k < more; k++)
		fpset_place(b, (uint32_t)(first + k), nth(first + k));
	for (unsigned t = 0; t < FPSET_SUBS; t++)
		for (uint64_t k = 0; k < more; k++)
			if (fpset_sub(nth(first + k)) == t)
				fpset_index(b, (uint32_t)(first + k), nth(first + k));
	ok(fpset_commit(b, more, par) && fpset_count(b) == first + more && fpset_is_valid(b),
	   "committed: %llu ids, the set valid", (unsigned long long)fpset_count(b));
	int bad_bulk = 0;
	for (uint64_t k = 0; k < first + more; k++)
		if (fpset_get(b, nth(k)) != k ||
		    (k >= first && fpset_parent(b, (uint32_t)k) != par[k - first]))
			bad_bulk++;
	ok(bad_bulk == 0, "every state added at once is found under its id, with its parent (%d wrong)",
	   bad_bulk);
	fpset_truncate(b, first + more / 2);
	int bad_cut = 0;
	for (uint64_t k = 0; k < first + more; k++)
		if (fpset_get(b, nth(k)) != (k < first + more / 2 ? k : ENG_NO_STATE))
			bad_cut++;
	ok(bad_cut == 0 && fpset_is_valid(b), "truncated: ids past the cut are gone, the rest found (%d wrong)",
	   bad_cut);
	ok(fpset_put(b, nth(first + more - 1), 0, &fresh0) == first + more / 2 && fresh0,
	   "a state taken back is new again, under the next id");
	free(par);
	fpset_free(b);

	/* pending states (level.c's): added under ids from the count on,
	 * found again as pending, then numbered in another order, committed
	 * with their parents; or taken back whole */
	{
		fpset *p = fpset_new(0);
		for (uint64_t k = 0; k < 1000; k++)
			fpset_put(p, nth(k), k ? (uint32_t)(k - 1) : ENG_NO_STATE, &fresh0);
		enum { NP = 5000 };
		static eng_fp pfp[NP];
		static uint64_t where[NP];
		for (int round = 0; round < 2; round++) {
			uint64_t room = NP;
			ok(fpset_pend_begin(p, room, pfp, sizeof *pfp) && fpset_pend_room(p, 1) >= NP,
			   "pending: room for %d in every subtable", NP);
			int bad = 0;
			uint32_t base = (uint32_t)fpset_count(p);
			for (uint32_t k = 0; k < NP; k++) {
				pfp[k] = nth(500 + k); /* the first 500 are in the set */
				uint64_t w;
				uint32_t id = fpset_pend_put(p, pfp[k], base + k, &w);
				if (500 + k < 1000 ? id != 500 + k : id != base + k)
					bad++;
				where[k] = w;
			}
			for (uint32_t k = 0; k < NP; k++) { /* again: found, pending or not */
				uint64_t w;
				if (fpset_pend_put(p, pfp[k], base + NP, &w) != (500 + k < 1000 ? 500 + k : base + k))
					bad++;
			}
			ok(bad == 0, "pending: each new state added once, each lookup finds it (%d wrong)", bad);
			if (round == 0) {
				fpset_pend_abort(p);
				ok(fpset_count(p) == 1000 && fpset_is_valid(p) && fpset_get(p, nth(1200)) == ENG_NO_STATE &&
					   fpset_get(p, nth(999)) == 999,
				   "pending: an abort takes every pending state back, the rest stays");
				continue;
			}
			/* number the new ones (500 + k, k >= 500) backwards */
			uint64_t m = NP - 500, add[FPSET_SUBS] = {0};
			static uint32_t par[NP];
			for (uint32_t k = 500; k < NP; k++)
				add[fpset_sub(pfp[k])]++;
			ok(fpset_pend_chunks(p, m, add), "pending: records for %llu", (unsigned long long)m);
			for (uint32_t k = 500; k < NP; k++) {
				uint32_t id = base + (uint32_t)(NP - 1 - k);
				fpset_pend_settle(p, where[k], id, pfp[k]);
				fpset_place(p, id, pfp[k]);
				par[NP - 1 - k] = k; /* the set keeps parents, never checks them */
			}
			ok(fpset_pend_commit(p, m, par, add) && fpset_is_valid(p), "pending: committed, the set is whole");
			bad = 0;
			for (uint32_t k = 500; k < NP; k++)
				if (fpset_get(p, pfp[k]) != base + NP - 1 - k || fpset_parent(p, base + NP - 1 - k) != k)
					bad++;
			ok(bad == 0 && fpset_count(p) == base + m, "pending: found under their ids, with parents (%d wrong)",
			   bad);
		}
		fpset_free(p);
	}

	/* a memory limit is honoured and reported, never a crash */
	fpset *t = fpset_new(4u << 20);
	uint64_t i = 0;
	bool fresh;
	while (fpset_put(t, nth(i), 0, &fresh) != ENG_NO_STATE)
		i++;
	ok(i > 10000 && fpset_bytes(t) <= (4u << 20), "a 4 MiB limit stops the set at %llu states, %zu bytes",
	   (unsigned long long)i, fpset_bytes(t));
	ok(fpset_get(t, nth(0)) == 0 && fpset_get(t, nth(i - 1)) == i - 1,
	   "a full set still answers lookups");
	fpset_free(t);
	return tap_done();
}
