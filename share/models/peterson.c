/*
 * Peterson — Peterson's two-process mutual exclusion, after
 * specifications/locks_auxiliary_vars/Peterson.tla in tlaplus/Examples
 * (the PlusCal algorithm from ULiège's course; Peterson.cfg checks the
 * invariants TypeOK and Inv, deadlock included).  Variables pc, c, turn;
 * processes 1 and 2.
 *
 * Next == \E self \in 1..2 : a0(self) \/ a1(self) \/ a2(self) \/ a3(self)
 * \/ cs(self) \/ a4(self).  At most one of the six is enabled per process
 * (they test pc[self]), so each action here yields at most one successor
 * per process, labelled "a3(1)" and so on.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

enum { PT_A0, PT_A1, PT_A2, PT_A3, PT_CS, PT_A4, PT_NPC };

/* Index 0 is process 1.  turn holds a process number, 1 or 2, as in the
 * spec.  All uint8_t: no padding. */
struct pt_state {
	uint8_t pc[2];
	uint8_t c[2];
	uint8_t turn;
};

static const char *const pt_pc_name[PT_NPC] = {"a0", "a1", "a2", "a3", "cs", "a4"};

static int pt_other(int self) { return self == 1 ? 2 : 1; }

static void pt_init(cmc_out *out)
{
	struct pt_state s;
	memset(&s, 0, sizeof s);   /* pc = a0, c = FALSE */
	s.turn = 1;
	cmc_yield(out, &s, NULL);
}

/* One step of process self (1 or 2) at label `at`, if it is there and,
 * for a3, the await lets it through. */
static void pt_step(const struct pt_state *s, cmc_out *out, int at, const char *const labels[2])
{
	for (int self = 1; self <= 2; self++) {
		int i = self - 1, o = pt_other(self) - 1;
		if (s->pc[i] != at)
			continue;
		struct pt_state n = *s;
		switch (at) {
		case PT_A1: n.c[i] = 1; break;
		case PT_A2: n.turn = (uint8_t)pt_other(self); break;
		case PT_A3:
			if (s->c[o] && s->turn != self)
				continue;
			break;
		case PT_A4: n.c[i] = 0; break;
		default: break;
		}
		n.pc[i] = (uint8_t)((at + 1) % PT_NPC);   /* a4 goes back to a0 */
		cmc_yield(out, &n, labels[i]);
	}
}

#define PT_ACTION(fn, at, name)                                                 \
	static void fn(const void *p, cmc_out *out)                             \
	{                                                                       \
		static const char *const labels[2] = {name "(1)", name "(2)"};  \
		pt_step(p, out, at, labels);                                    \
	}

PT_ACTION(pt_a0, PT_A0, "a0")
PT_ACTION(pt_a1, PT_A1, "a1")
PT_ACTION(pt_a2, PT_A2, "a2")
PT_ACTION(pt_a3, PT_A3, "a3")
PT_ACTION(pt_cs, PT_CS, "cs")
PT_ACTION(pt_a4, PT_A4, "a4")

static bool pt_type_ok(const void *p)
{
	const struct pt_state *s = p;
	for (int i = 0; i < 2; i++)
		if (s->c[i] > 1 || s->pc[i] >= PT_NPC)
			return false;
	return s->turn == 1 || s->turn == 2;
}

static bool pt_lockcs(const struct pt_state *s, int i)
{
	return s->pc[i] == PT_CS || s->pc[i] == PT_A4;
}

/* Inv of the spec: c mirrors pc, the turn rule for whoever holds the lock,
 * and mutual exclusion of {cs, a4}. */
static bool pt_inv(const void *p)
{
	const struct pt_state *s = p;
	for (int self = 1; self <= 2; self++) {
		int i = self - 1, o = pt_other(self) - 1;
		bool wants = s->pc[i] == PT_A2 || s->pc[i] == PT_A3 || pt_lockcs(s, i);
		if ((s->c[i] != 0) != wants)
			return false;
		if (pt_lockcs(s, i) && !(s->turn == self || s->pc[o] <= PT_A2))
			return false;
	}
	return !(pt_lockcs(s, 0) && pt_lockcs(s, 1));
}

static void pt_print(const void *p, FILE *out)
{
	const struct pt_state *s = p;
	fprintf(out, "pc=<<%s,%s>> c=<<%d,%d>> turn=%u",
		s->pc[0] < PT_NPC ? pt_pc_name[s->pc[0]] : "?",
		s->pc[1] < PT_NPC ? pt_pc_name[s->pc[1]] : "?", s->c[0], s->c[1], s->turn);
}

static const struct cmc_action pt_actions[] = {
	{"a0", pt_a0}, {"a1", pt_a1}, {"a2", pt_a2},
	{"a3", pt_a3}, {"cs", pt_cs}, {"a4", pt_a4},
};

static const struct cmc_invariant pt_invariants[] = {
	{"TypeOK", pt_type_ok},
	{"Inv", pt_inv},
};

const struct cmc_model cmc_model_peterson = {
	.abi = CMC_MODEL_ABI,
	.name = "peterson",
	.summary = "Peterson's mutex, 2 processes (tlaplus/Examples locks_auxiliary_vars/Peterson.tla)",
	.state_size = sizeof(struct pt_state),
	.init = pt_init,
	.actions = pt_actions,
	.n_actions = sizeof pt_actions / sizeof pt_actions[0],
	.invariants = pt_invariants,
	.n_invariants = sizeof pt_invariants / sizeof pt_invariants[0],
	.deadlock_ok = false,
	.print = pt_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_peterson; }
#endif
