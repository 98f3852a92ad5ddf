/*
 * DiningPhilosophers — the Chandy-Misra solution, after
 * specifications/DiningPhilosophers/DiningPhilosophers.tla in
 * tlaplus/Examples (Jeff Hemphill's PlusCal, NP = 5 as in its .cfg).
 * Variables forks (holder and clean per fork), hungry and pc per
 * philosopher.
 *
 * The model follows the TLA+ translation, not the PlusCal text: in
 * Loop(self) the test CanEat(self) reads the forks of the current state,
 * before the hand-over in the same step (the translation writes
 * `IF CanEat(self)` unprimed).  Next == \E self : Loop(self) \/
 * Think(self) \/ Eat(self); exactly one is enabled per philosopher (they
 * test pc[self]), so every state has NP successors — some of them the
 * state itself — and TLC's generated count is 1 + NP * distinct.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

#define PH_N 5

enum { PH_LOOP, PH_EAT, PH_THINK };

/* Index i is philosopher / fork i+1.  holder holds a philosopher number
 * 1..PH_N as in the spec; clean and hungry are 0 or 1.  All uint8_t: no
 * padding. */
struct ph_state {
	uint8_t holder[PH_N];
	uint8_t clean[PH_N];
	uint8_t hungry[PH_N];
	uint8_t pc[PH_N];
};

static const char *const ph_pc_name[] = {"Loop", "Eat", "Think"};

/* Forks and neighbours, 1-based as in the spec. */
static int ph_left_fork(int p) { return p; }
static int ph_right_fork(int p) { return p == PH_N ? 1 : p + 1; }
static int ph_left_phil(int p) { return p == 1 ? PH_N : p - 1; }
static int ph_right_phil(int p) { return p == PH_N ? 1 : p + 1; }

static bool ph_can_eat(const struct ph_state *s, int p)
{
	int l = ph_left_fork(p) - 1, r = ph_right_fork(p) - 1;
	return s->holder[l] == p && s->holder[r] == p && s->clean[l] && s->clean[r];
}

static void ph_init(cmc_out *out)
{
	struct ph_state s;
	memset(&s, 0, sizeof s);
	for (int f = 1; f <= PH_N; f++) {
		s.holder[f - 1] = (uint8_t)(f == 2 ? 1 : f);
		s.clean[f - 1] = 0;
		s.hungry[f - 1] = 1;
		s.pc[f - 1] = PH_LOOP;
	}
	cmc_yield(out, &s, NULL);
}

static const char *const ph_loop_labels[PH_N] = {"Loop(1)", "Loop(2)", "Loop(3)", "Loop(4)",
						 "Loop(5)"};
static const char *const ph_eat_labels[PH_N] = {"Eat(1)", "Eat(2)", "Eat(3)", "Eat(4)", "Eat(5)"};
static const char *const ph_think_labels[PH_N] = {"Think(1)", "Think(2)", "Think(3)", "Think(4)",
						  "Think(5)"};

static void ph_loop(const void *v, cmc_out *out)
{
	const struct ph_state *s = v;
	for (int p = 1; p <= PH_N; p++) {
		if (s->pc[p - 1] != PH_LOOP)
			continue;
		struct ph_state n = *s;
		int l = ph_left_fork(p) - 1, r = ph_right_fork(p) - 1;
		/* Hand a dirty fork over, cleaned; left first. */
		if (s->holder[l] == p && !s->clean[l]) {
			n.holder[l] = (uint8_t)ph_left_phil(p);
			n.clean[l] = 1;
		} else if (s->holder[r] == p && !s->clean[r]) {
			n.holder[r] = (uint8_t)ph_right_phil(p);
			n.clean[r] = 1;
		}
		if (s->hungry[p - 1])
			n.pc[p - 1] = ph_can_eat(s, p) ? PH_EAT : PH_LOOP;
		else
			n.pc[p - 1] = PH_THINK;
		cmc_yield(out, &n, ph_loop_labels[p - 1]);
	}
}

static void ph_think(const void *v, cmc_out *out)
{
	const struct ph_state *s = v;
	for (int p = 1; p <= PH_N; p++) {
		if (s->pc[p - 1] != PH_THINK)
			continue;
		struct ph_state n = *s;
		n.hungry[p - 1] = 1;
		n.pc[p - 1] = PH_LOOP;
		cmc_yield(out, &n, ph_think_labels[p - 1]);
	}
}

static void ph_eat(const void *v, cmc_out *out)
{
	const struct ph_state *s = v;
	for (int p = 1; p <= PH_N; p++) {
		if (s->pc[p - 1] != PH_EAT)
			continue;
		struct ph_state n = *s;
		n.hungry[p - 1] = 0;
		n.clean[ph_left_fork(p) - 1] = 0;
		n.clean[ph_right_fork(p) - 1] = 0;
		n.pc[p - 1] = PH_LOOP;
		cmc_yield(out, &n, ph_eat_labels[p - 1]);
	}
}

static bool ph_type_ok(const void *v)
{
	const struct ph_state *s = v;
	for (int i = 0; i < PH_N; i++)
		if (s->holder[i] < 1 || s->holder[i] > PH_N || s->clean[i] > 1 || s->hungry[i] > 1 ||
		    s->pc[i] > PH_THINK)
			return false;
	return true;
}

/* Two philosophers who share a fork never eat at once.  With NP >= 3 the
 * ones sharing a fork are the ring neighbours. */
static bool ph_exclusive_access(const void *v)
{
	const struct ph_state *s = v;
	for (int p = 1; p <= PH_N; p++)
		if (s->pc[p - 1] == PH_EAT && s->pc[ph_right_phil(p) - 1] == PH_EAT)
			return false;
	return true;
}

static void ph_print(const void *v, FILE *out)
{
	const struct ph_state *s = v;
	for (int i = 0; i < PH_N; i++)
		fprintf(out, "%sfork%d=%u%s", i ? " " : "", i + 1, s->holder[i],
			s->clean[i] ? "c" : "d");
	for (int i = 0; i < PH_N; i++)
		fprintf(out, " p%d=%s%s", i + 1, s->pc[i] <= PH_THINK ? ph_pc_name[s->pc[i]] : "?",
			s->hungry[i] ? ",hungry" : "");
}

static const struct cmc_action ph_actions[] = {
	{"Loop", ph_loop},
	{"Think", ph_think},
	{"Eat", ph_eat},
};

static const struct cmc_invariant ph_invariants[] = {
	{"TypeOK", ph_type_ok},
	{"ExclusiveAccess", ph_exclusive_access},
};

const struct cmc_model cmc_model_philosophers = {
	.abi = CMC_MODEL_ABI,
	.name = "philosophers",
	.summary = "Dining philosophers, Chandy-Misra, NP = 5 "
		   "(tlaplus/Examples DiningPhilosophers/DiningPhilosophers.tla)",
	.state_size = sizeof(struct ph_state),
	.init = ph_init,
	.actions = ph_actions,
	.n_actions = sizeof ph_actions / sizeof ph_actions[0],
	.invariants = ph_invariants,
	.n_invariants = sizeof ph_invariants / sizeof ph_invariants[0],
	.deadlock_ok = false,
	.print = ph_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_philosophers; }
#endif
