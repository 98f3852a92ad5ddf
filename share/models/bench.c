/*
 * bench-counters — the engine benchmark's models (tests/bench/engine.sh):
 * BENCH_N independent counters 0..K-1, one action per counter that
 * advances it while it is below K-1.  Every valuation is reachable, so
 * distinct = K^N, and generated = 1 + N * (K-1) * K^(N-1) (a counter can
 * advance in the (K-1) * K^(N-1) states where it is not at the top).
 *
 *   bench-counters        K = 29: 20,511,149 states of 20 bytes
 *   bench-counters-small  K = 22:  5,153,632 states
 *
 * Counters saturate rather than wrap so that SPIN's depth-first search
 * stays N * (K-1) deep; the all-top state has no successor, which is fine
 * (deadlock_ok).  The same models in Promela are
 * share/models/promela/bench.pml (K is a -D define there); keep the two in
 * step.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

#define BENCH_N 5

/* uint32_t like Promela's int, so both sides hash a 20-byte vector. */
struct bench_state {
	uint32_t x[BENCH_N];
};

static void bench_init(cmc_out *out)
{
	struct bench_state s;
	memset(&s, 0, sizeof s);
	cmc_yield(out, &s, NULL);
}

static void bench_inc(const void *p, cmc_out *out, int i, uint32_t k)
{
	struct bench_state n = *(const struct bench_state *)p;
	if (n.x[i] + 1 >= k)
		return;
	n.x[i]++;
	cmc_yield(out, &n, NULL);
}

static void bench_print(const void *p, FILE *out)
{
	const struct bench_state *s = p;
	for (int i = 0; i < BENCH_N; i++)
		fprintf(out, "%sx%d=%u", i ? " " : "", i, s->x[i]);
}

/* One model per size: the step functions cannot see which model they
 * belong to, so each size gets its own set. */
#define BENCH_MODEL(var, id, name_text, k, summary_text)                                  \
	static void id##_inc0(const void *p, cmc_out *o) { bench_inc(p, o, 0, k); }       \
	static void id##_inc1(const void *p, cmc_out *o) { bench_inc(p, o, 1, k); }       \
	static void id##_inc2(const void *p, cmc_out *o) { bench_inc(p, o, 2, k); }       \
	static void id##_inc3(const void *p, cmc_out *o) { bench_inc(p, o, 3, k); }       \
	static void id##_inc4(const void *p, cmc_out *o) { bench_inc(p, o, 4, k); }       \
	static bool id##_in_range(const void *p)                                          \
	{                                                                                 \
		const struct bench_state *s = p;                                          \
		for (int i = 0; i < BENCH_N; i++)                                         \
			if (s->x[i] >= (k))                                               \
				return false;                                             \
		return true;                                                              \
	}                                                                                 \
	static const struct cmc_action id##_actions[BENCH_N] = {                          \
		{"Inc0", id##_inc0}, {"Inc1", id##_inc1}, {"Inc2", id##_inc2},            \
		{"Inc3", id##_inc3}, {"Inc4", id##_inc4},                                 \
	};                                                                                \
	static const struct cmc_invariant id##_invariants[] = {{"InRange", id##_in_range}}; \
	const struct cmc_model var = {                                                    \
		.abi = CMC_MODEL_ABI,                                                     \
		.name = name_text,                                                        \
		.summary = summary_text,                                                  \
		.state_size = sizeof(struct bench_state),                                 \
		.init = bench_init,                                                       \
		.actions = id##_actions,                                                  \
		.n_actions = BENCH_N,                                                     \
		.invariants = id##_invariants,                                            \
		.n_invariants = 1,                                                        \
		.deadlock_ok = true,                                                      \
		.print = bench_print,                                                     \
	};

BENCH_MODEL(cmc_model_bench_counters, bench_big, "bench-counters", 29u,
	    "Benchmark: 5 saturating counters 0..28, 20,511,149 states (tests/bench/engine.sh)")
BENCH_MODEL(cmc_model_bench_counters_small, bench_small, "bench-counters-small", 22u,
	    "Benchmark: 5 saturating counters 0..21, 5,153,632 states (tests/bench/engine.sh)")

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_bench_counters; }
#endif
