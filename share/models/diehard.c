/*
 * DieHard — the water-jug puzzle from Die Hard 3, after DieHard.tla in the
 * tlaplus/Examples collection (specifications/DieHard).  Two jugs of 3 and 5
 * gallons; six actions, each always enabled, so every state yields six
 * successors (TLC counts all of them as generated).  The invariant
 * NotSolved (big /= 4) is the planted "bug": TLC's counterexample is the
 * shortest way to measure 4 gallons.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

struct dh_state {
	uint8_t small, big;
};

static void dh_init(cmc_out *out)
{
	struct dh_state s = {0, 0};
	cmc_yield(out, &s, NULL);
}

#define DH_ACTION(fn, body)                                                     \
	static void fn(const void *p, cmc_out *out)                             \
	{                                                                       \
		struct dh_state s = *(const struct dh_state *)p;                \
		body;                                                           \
		cmc_yield(out, &s, NULL);                                       \
	}

static unsigned dh_min(unsigned a, unsigned b) { return a < b ? a : b; }

DH_ACTION(dh_fill_small, s.small = 3)
DH_ACTION(dh_fill_big, s.big = 5)
DH_ACTION(dh_empty_small, s.small = 0)
DH_ACTION(dh_empty_big, s.big = 0)
DH_ACTION(dh_small_to_big, {
	unsigned pour = dh_min(s.small, 5u - s.big);
	s.big += pour; s.small -= pour;
})
DH_ACTION(dh_big_to_small, {
	unsigned pour = dh_min(s.big, 3u - s.small);
	s.small += pour; s.big -= pour;
})

static bool dh_type_ok(const void *p)
{
	const struct dh_state *s = p;
	return s->small <= 3 && s->big <= 5;
}

static bool dh_not_solved(const void *p)
{
	return ((const struct dh_state *)p)->big != 4;
}

static void dh_print(const void *p, FILE *out)
{
	const struct dh_state *s = p;
	fprintf(out, "small=%u big=%u", s->small, s->big);
}

static const struct cmc_action dh_actions[] = {
	{"FillSmallJug", dh_fill_small},   {"FillBigJug", dh_fill_big},
	{"EmptySmallJug", dh_empty_small}, {"EmptyBigJug", dh_empty_big},
	{"SmallToBig", dh_small_to_big},   {"BigToSmall", dh_big_to_small},
};

static const struct cmc_invariant dh_invariants[] = {
	{"TypeOK", dh_type_ok},
};

static const struct cmc_invariant dh_invariants_bug[] = {
	{"TypeOK", dh_type_ok},
	{"NotSolved", dh_not_solved},
};

const struct cmc_model cmc_model_diehard = {
	.abi = CMC_MODEL_ABI,
	.name = "diehard",
	.summary = "Die Hard water jugs (tlaplus/Examples DieHard.tla), invariant TypeOK",
	.state_size = sizeof(struct dh_state),
	.init = dh_init,
	.actions = dh_actions,
	.n_actions = sizeof dh_actions / sizeof dh_actions[0],
	.invariants = dh_invariants,
	.n_invariants = 1,
	.deadlock_ok = false,
	.print = dh_print,
};

/* The TLA+ original's NotSolved invariant: its violation is the solution. */
const struct cmc_model cmc_model_diehard_solve = {
	.abi = CMC_MODEL_ABI,
	.name = "diehard-solve",
	.summary = "Die Hard with invariant NotSolved (big /= 4): the counterexample solves it",
	.state_size = sizeof(struct dh_state),
	.init = dh_init,
	.actions = dh_actions,
	.n_actions = sizeof dh_actions / sizeof dh_actions[0],
	.invariants = dh_invariants_bug,
	.n_invariants = 2,
	.deadlock_ok = false,
	.print = dh_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_diehard; }
#endif
