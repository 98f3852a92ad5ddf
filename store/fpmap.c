/*
 * fpmap.c — a fingerprint -> uint32 hash map (open addressing, linear
 * probing), used to group a run's states by raw or canonical identity and
 * to match states across runs.  The all-zero fingerprint is the empty-slot
 * marker, which eng_fp_of() never returns.
 */
#include <stdlib.h>

#include "engine/check.h"
#include "internal.h"
#include "engine/util.h"

/*
 * Invariant (store_fpmap_is_valid()): cap a power of two, n * 2 <= cap;
 * keys[i] zero iff slot i is free; n slots are taken; each key is reached
 * from its home slot by a probe that crosses no free slot, so a lookup
 * finds it.
 */
struct store_fpmap {
	eng_fp *keys;
	uint32_t *vals;
	size_t cap, n;
};

store_fpmap *store_fpmap_new(void)
{
	store_fpmap *m = eng_xcalloc(1, sizeof *m);
	m->cap = 16; /* grows by doubling; most maps are small */
	m->keys = eng_xcalloc(m->cap, sizeof *m->keys);
	m->vals = eng_xcalloc(m->cap, sizeof *m->vals);
	return m;
}

void store_fpmap_free(store_fpmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m);
}

static size_t slot(const store_fpmap *m, eng_fp fp)
{
	size_t i = (size_t)(fp.lo ^ (fp.hi >> 7)) & (m->cap - 1);
	while (!eng_fp_zero(m->keys[i]) && !eng_fp_eq(m->keys[i], fp))
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint32_t store_fpmap_get(const store_fpmap *m, eng_fp fp)
{
	if (eng_fp_zero(fp))
		return ENG_NO_STATE;
	size_t i = slot(m, fp);
	return eng_fp_zero(m->keys[i]) ? ENG_NO_STATE : m->vals[i];
}

static void grow(store_fpmap *m)
{
	store_fpmap big = {eng_xcalloc(m->cap * 2, sizeof(eng_fp)),
			   eng_xcalloc(m->cap * 2, sizeof(uint32_t)), m->cap * 2, m->n};
	for (size_t i = 0; i < m->cap; i++)
		if (!eng_fp_zero(m->keys[i])) {
			size_t j = slot(&big, m->keys[i]);
			big.keys[j] = m->keys[i];
			big.vals[j] = m->vals[i];
		}
	free(m->keys);
	free(m->vals);
	*m = big;
	CMC_ASSERT_EXPENSIVE(store_fpmap_is_valid(m));
}

uint32_t store_fpmap_put(store_fpmap *m, eng_fp fp, uint32_t v)
{
	if (eng_fp_zero(fp))
		return ENG_NO_STATE;
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	size_t i = slot(m, fp);
	if (eng_fp_zero(m->keys[i])) {
		m->keys[i] = fp;
		m->vals[i] = v;
		m->n++;
		/* the whole map at every power of two: O(1) amortised */
		CMC_ASSERT_INTERNAL((m->n & (m->n - 1)) || store_fpmap_is_valid(m));
	}
	return m->vals[i];
}

size_t store_fpmap_count(const store_fpmap *m) { return m->n; }

bool store_fpmap_is_valid(const store_fpmap *m)
{
	CMC_VALID(m->cap && (m->cap & (m->cap - 1)) == 0, "fpmap: %zu slots, not a power of two", m->cap);
	CMC_VALID(m->n * 2 <= m->cap, "fpmap load: %zu keys in %zu slots", m->n, m->cap);
	size_t taken = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (eng_fp_zero(m->keys[i]))
			continue;
		taken++;
		CMC_VALID(slot(m, m->keys[i]) == i, "fpmap slots: the key in slot %zu is not found by a lookup", i);
	}
	CMC_VALID(taken == m->n, "fpmap count: %zu keys counted, %zu slots taken", m->n, taken);
	return true;
}
