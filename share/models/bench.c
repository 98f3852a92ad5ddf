/*
 * bench-counters — the engine benchmark's models (tests/bench/engine.sh):
 * BENCH_N independent counters 0..K-1, one action per counter that
 * advances it while it is below K-1.  Every valuation is reachable, so
 * distinct = K^N, and generated = 1 + N * (K-1) * K^(N-1) (a counter can
 * advance in the (K-1) * K^(N-1) states where it is not at the top).
 *
 *   bench-counters        K = 29: 20,511,149 states of 20 bytes
 *   bench-counters-small  K = 22:  5,153,632 states
 *   bench-counters-1m     K = 16:  1,048,576 states (the memory benchmark)
 *   bench-wide            1,048,576 states of 88 bytes, a wide frontier
 *                         (below)
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

BENCH_MODEL(cmc_model_bench_counters_1m, bench_1m, "bench-counters-1m", 16u,
	    "Benchmark: 5 saturating counters 0..15, 1,048,576 states (tests/bench/memory.sh)")

/* bench-wide: 20 flags that each can be set once, in 88 bytes (a word a
 * flag and two that follow from them).  2^20 states, as many as
 * bench-counters-1m, but a wide and shallow graph: 21 levels, the widest
 * C(20,10) = 184,756 states, so the breadth-first frontier peaks at a
 * sixth of the states where the counters' stays small. */
#define WIDE_FLAGS 20

struct wide_state {
	uint32_t flag[WIDE_FLAGS];
	uint32_t set, mix; /* how many are set; a hash of which */
};

static void wide_fill(struct wide_state *s)
{
	s->set = s->mix = 0;
	for (int i = 0; i < WIDE_FLAGS; i++) {
		s->set += s->flag[i];
		s->mix = s->mix * 2654435761u + s->flag[i];
	}
}

static void wide_init(cmc_out *out)
{
	struct wide_state s;
	memset(&s, 0, sizeof s);
	wide_fill(&s);
	cmc_yield(out, &s, NULL);
}

static void wide_set(const void *p, cmc_out *out, int i)
{
	struct wide_state n = *(const struct wide_state *)p;
	if (n.flag[i])
		return;
	n.flag[i] = 1;
	wide_fill(&n);
	cmc_yield(out, &n, NULL);
}

static void wide_print(const void *p, FILE *out)
{
	const struct wide_state *s = p;
	fputs("flags=", out);
	for (int i = 0; i < WIDE_FLAGS; i++)
		fputc(s->flag[i] ? '1' : '0', out);
}

static bool wide_consistent(const void *p)
{
	struct wide_state s = *(const struct wide_state *)p;
	wide_fill(&s);
	return memcmp(&s, p, sizeof s) == 0;
}

#define WIDE_ACTION(i) static void wide_set##i(const void *p, cmc_out *o) { wide_set(p, o, i); }
WIDE_ACTION(0) WIDE_ACTION(1) WIDE_ACTION(2) WIDE_ACTION(3) WIDE_ACTION(4)
WIDE_ACTION(5) WIDE_ACTION(6) WIDE_ACTION(7) WIDE_ACTION(8) WIDE_ACTION(9)
WIDE_ACTION(10) WIDE_ACTION(11) WIDE_ACTION(12) WIDE_ACTION(13) WIDE_ACTION(14)
WIDE_ACTION(15) WIDE_ACTION(16) WIDE_ACTION(17) WIDE_ACTION(18) WIDE_ACTION(19)

static const struct cmc_action wide_actions[WIDE_FLAGS] = {
	{"Set0", wide_set0},   {"Set1", wide_set1},   {"Set2", wide_set2},   {"Set3", wide_set3},
	{"Set4", wide_set4},   {"Set5", wide_set5},   {"Set6", wide_set6},   {"Set7", wide_set7},
	{"Set8", wide_set8},   {"Set9", wide_set9},   {"Set10", wide_set10}, {"Set11", wide_set11},
	{"Set12", wide_set12}, {"Set13", wide_set13}, {"Set14", wide_set14}, {"Set15", wide_set15},
	{"Set16", wide_set16}, {"Set17", wide_set17}, {"Set18", wide_set18}, {"Set19", wide_set19},
};
static const struct cmc_invariant wide_invariants[] = {{"Consistent", wide_consistent}};

const struct cmc_model cmc_model_bench_wide = {
	.abi = CMC_MODEL_ABI,
	.name = "bench-wide",
	.summary = "Benchmark: 20 set-once flags in an 88-byte state, 1,048,576 states, a wide frontier (tests/bench/memory.sh)",
	.state_size = sizeof(struct wide_state),
	.init = wide_init,
	.actions = wide_actions,
	.n_actions = WIDE_FLAGS,
	.invariants = wide_invariants,
	.n_invariants = 1,
	.deadlock_ok = true,
	.print = wide_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_bench_counters; }
#endif
