/*
 * TCommit — the abstract transaction-commit spec of Gray and Lamport, after
 * specifications/transaction_commit/TCommit.tla in tlaplus/Examples, with
 * the constant RM = {r1, r2, r3} of TCommit.cfg.  One variable, rmState.
 *
 * TCNext == \E rm \in RM : Prepare(rm) \/ Decide(rm), and Decide(rm) is
 * itself a disjunction (commit when canCommit, abort when notCommitted).
 * TLC yields one successor per satisfied disjunct per rm, so the model has
 * three actions — Prepare, DecideCommit, DecideAbort — each yielding one
 * successor per rm that enables it, labelled "Prepare(r1)" and so on.
 * TCommit.cfg says CHECK_DEADLOCK FALSE: every RM ends committed or
 * aborted and nothing is enabled any more, which is fine.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

#define TC_N 3

enum { TC_WORKING, TC_PREPARED, TC_COMMITTED, TC_ABORTED };

/* One byte per RM, no padding: rm[i] is one of the TC_* values. */
struct tc_state {
	uint8_t rm[TC_N];
};

static const char *const tc_rm_state[] = {"working", "prepared", "committed", "aborted"};

static void tc_init(cmc_out *out)
{
	struct tc_state s;
	memset(&s, 0, sizeof s);
	for (int i = 0; i < TC_N; i++)
		s.rm[i] = TC_WORKING;
	cmc_yield(out, &s, NULL);
}

/* canCommit: every RM is prepared or committed. */
static bool tc_can_commit(const struct tc_state *s)
{
	for (int i = 0; i < TC_N; i++)
		if (s->rm[i] != TC_PREPARED && s->rm[i] != TC_COMMITTED)
			return false;
	return true;
}

/* notCommitted: no RM has committed. */
static bool tc_not_committed(const struct tc_state *s)
{
	for (int i = 0; i < TC_N; i++)
		if (s->rm[i] == TC_COMMITTED)
			return false;
	return true;
}

static void tc_prepare(const void *p, cmc_out *out)
{
	static const char *const labels[TC_N] = {"Prepare(r1)", "Prepare(r2)", "Prepare(r3)"};
	const struct tc_state *s = p;
	for (int i = 0; i < TC_N; i++) {
		if (s->rm[i] != TC_WORKING)
			continue;
		struct tc_state n = *s;
		n.rm[i] = TC_PREPARED;
		cmc_yield(out, &n, labels[i]);
	}
}

static void tc_decide_commit(const void *p, cmc_out *out)
{
	static const char *const labels[TC_N] = {"DecideCommit(r1)", "DecideCommit(r2)",
						 "DecideCommit(r3)"};
	const struct tc_state *s = p;
	if (!tc_can_commit(s))
		return;
	for (int i = 0; i < TC_N; i++) {
		if (s->rm[i] != TC_PREPARED)
			continue;
		struct tc_state n = *s;
		n.rm[i] = TC_COMMITTED;
		cmc_yield(out, &n, labels[i]);
	}
}

static void tc_decide_abort(const void *p, cmc_out *out)
{
	static const char *const labels[TC_N] = {"DecideAbort(r1)", "DecideAbort(r2)",
						 "DecideAbort(r3)"};
	const struct tc_state *s = p;
	if (!tc_not_committed(s))
		return;
	for (int i = 0; i < TC_N; i++) {
		if (s->rm[i] != TC_WORKING && s->rm[i] != TC_PREPARED)
			continue;
		struct tc_state n = *s;
		n.rm[i] = TC_ABORTED;
		cmc_yield(out, &n, labels[i]);
	}
}

static bool tc_type_ok(const void *p)
{
	const struct tc_state *s = p;
	for (int i = 0; i < TC_N; i++)
		if (s->rm[i] > TC_ABORTED)
			return false;
	return true;
}

/* TCConsistent: no RM aborted while another committed. */
static bool tc_consistent(const void *p)
{
	const struct tc_state *s = p;
	bool aborted = false, committed = false;
	for (int i = 0; i < TC_N; i++) {
		aborted |= s->rm[i] == TC_ABORTED;
		committed |= s->rm[i] == TC_COMMITTED;
	}
	return !(aborted && committed);
}

static void tc_print(const void *p, FILE *out)
{
	const struct tc_state *s = p;
	for (int i = 0; i < TC_N; i++)
		fprintf(out, "%sr%d=%s", i ? " " : "", i + 1,
			s->rm[i] <= TC_ABORTED ? tc_rm_state[s->rm[i]] : "?");
}

static const struct cmc_action tc_actions[] = {
	{"Prepare", tc_prepare},
	{"DecideCommit", tc_decide_commit},
	{"DecideAbort", tc_decide_abort},
};

static const struct cmc_invariant tc_invariants[] = {
	{"TCTypeOK", tc_type_ok},
	{"TCConsistent", tc_consistent},
};

const struct cmc_model cmc_model_tcommit = {
	.abi = CMC_MODEL_ABI,
	.name = "tcommit",
	.summary = "Transaction commit, 3 RMs (tlaplus/Examples transaction_commit/TCommit.tla)",
	.state_size = sizeof(struct tc_state),
	.init = tc_init,
	.actions = tc_actions,
	.n_actions = sizeof tc_actions / sizeof tc_actions[0],
	.invariants = tc_invariants,
	.n_invariants = sizeof tc_invariants / sizeof tc_invariants[0],
	.deadlock_ok = true,
	.print = tc_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_tcommit; }
#endif
