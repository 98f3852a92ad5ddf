/*
 * TwoPhase — the two-phase commit protocol, after
 * specifications/transaction_commit/TwoPhase.tla in tlaplus/Examples, with
 * RM = {r1, r2, r3} as in TwoPhase.cfg (invariant TPTypeOK, deadlock
 * checked).  Variables rmState, tmState, tmPrepared and msgs, the set of
 * messages ever sent; messages are never removed.
 *
 * TPNext == TMCommit \/ TMAbort \/ \E rm : TMRcvPrepared(rm) \/
 * RMPrepare(rm) \/ RMChooseToAbort(rm) \/ RMRcvCommitMsg(rm) \/
 * RMRcvAbortMsg(rm).  Each disjunct is one action here; the per-rm ones
 * yield one successor per enabling rm, labelled "RMPrepare(r1)" etc., in
 * the order r1, r2, r3.  Several of them can yield the state they start
 * from (receiving a message twice); TLC counts those as generated too.
 *
 * twophase-bug plants a bug: TMCommit forgets its guard tmPrepared = RM,
 * and the TC!TCConsistent invariant (no RM aborted while another
 * committed) catches it.
 */
#include <stdint.h>
#include <string.h>

#include "cmc_model.h"

#define TP_N 3

enum { TP_WORKING, TP_PREPARED, TP_COMMITTED, TP_ABORTED };  /* rmState */
enum { TP_TM_INIT, TP_TM_COMMITTED, TP_TM_ABORTED };         /* tmState */

/* msgs as a bitmask: bit i is [type |-> "Prepared", rm |-> r(i+1)]. */
#define TP_MSG_COMMIT (1u << TP_N)
#define TP_MSG_ABORT (1u << (TP_N + 1))

/* All uint8_t, so no padding.  tm_prepared uses bits 0..TP_N-1, msgs bits
 * 0..TP_N+1; every other bit stays zero so equal states hash equal. */
struct tp_state {
	uint8_t rm[TP_N];
	uint8_t tm;
	uint8_t tm_prepared;
	uint8_t msgs;
};

static const char *const tp_rm_name[] = {"working", "prepared", "committed", "aborted"};
static const char *const tp_tm_name[] = {"init", "committed", "aborted"};

#define TP_LABELS(name) {name "(r1)", name "(r2)", name "(r3)"}

static void tp_init(cmc_out *out)
{
	struct tp_state s;
	memset(&s, 0, sizeof s);   /* every rm working, tm init, {} and {} */
	cmc_yield(out, &s, NULL);
}

static void tp_tm_commit(const void *p, cmc_out *out)
{
	const struct tp_state *s = p;
	if (s->tm != TP_TM_INIT || s->tm_prepared != (1u << TP_N) - 1)
		return;
	struct tp_state n = *s;
	n.tm = TP_TM_COMMITTED;
	n.msgs |= TP_MSG_COMMIT;
	cmc_yield(out, &n, NULL);
}

/* The planted bug: commits without waiting for every Prepared message. */
static void tp_tm_commit_unguarded(const void *p, cmc_out *out)
{
	const struct tp_state *s = p;
	if (s->tm != TP_TM_INIT)
		return;
	struct tp_state n = *s;
	n.tm = TP_TM_COMMITTED;
	n.msgs |= TP_MSG_COMMIT;
	cmc_yield(out, &n, NULL);
}

static void tp_tm_abort(const void *p, cmc_out *out)
{
	const struct tp_state *s = p;
	if (s->tm != TP_TM_INIT)
		return;
	struct tp_state n = *s;
	n.tm = TP_TM_ABORTED;
	n.msgs |= TP_MSG_ABORT;
	cmc_yield(out, &n, NULL);
}

static void tp_tm_rcv_prepared(const void *p, cmc_out *out)
{
	static const char *const labels[TP_N] = TP_LABELS("TMRcvPrepared");
	const struct tp_state *s = p;
	if (s->tm != TP_TM_INIT)
		return;
	for (int i = 0; i < TP_N; i++) {
		if (!(s->msgs & (1u << i)))
			continue;
		struct tp_state n = *s;
		n.tm_prepared |= 1u << i;
		cmc_yield(out, &n, labels[i]);
	}
}

static void tp_rm_prepare(const void *p, cmc_out *out)
{
	static const char *const labels[TP_N] = TP_LABELS("RMPrepare");
	const struct tp_state *s = p;
	for (int i = 0; i < TP_N; i++) {
		if (s->rm[i] != TP_WORKING)
			continue;
		struct tp_state n = *s;
		n.rm[i] = TP_PREPARED;
		n.msgs |= 1u << i;
		cmc_yield(out, &n, labels[i]);
	}
}

static void tp_rm_choose_to_abort(const void *p, cmc_out *out)
{
	static const char *const labels[TP_N] = TP_LABELS("RMChooseToAbort");
	const struct tp_state *s = p;
	for (int i = 0; i < TP_N; i++) {
		if (s->rm[i] != TP_WORKING)
			continue;
		struct tp_state n = *s;
		n.rm[i] = TP_ABORTED;
		cmc_yield(out, &n, labels[i]);
	}
}

/* Enabled for every rm once the message exists, whatever rmState is. */
static void tp_rm_rcv(const struct tp_state *s, cmc_out *out, unsigned msg, uint8_t to,
		      const char *const labels[TP_N])
{
	if (!(s->msgs & msg))
		return;
	for (int i = 0; i < TP_N; i++) {
		struct tp_state n = *s;
		n.rm[i] = to;
		cmc_yield(out, &n, labels[i]);
	}
}

static void tp_rm_rcv_commit(const void *p, cmc_out *out)
{
	static const char *const labels[TP_N] = TP_LABELS("RMRcvCommitMsg");
	tp_rm_rcv(p, out, TP_MSG_COMMIT, TP_COMMITTED, labels);
}

static void tp_rm_rcv_abort(const void *p, cmc_out *out)
{
	static const char *const labels[TP_N] = TP_LABELS("RMRcvAbortMsg");
	tp_rm_rcv(p, out, TP_MSG_ABORT, TP_ABORTED, labels);
}

static bool tp_type_ok(const void *p)
{
	const struct tp_state *s = p;
	for (int i = 0; i < TP_N; i++)
		if (s->rm[i] > TP_ABORTED)
			return false;
	return s->tm <= TP_TM_ABORTED && s->tm_prepared < (1u << TP_N) &&
	       s->msgs < (1u << (TP_N + 2));
}

/* TC!TCConsistent through the refinement mapping (rmState is shared). */
static bool tp_consistent(const void *p)
{
	const struct tp_state *s = p;
	bool aborted = false, committed = false;
	for (int i = 0; i < TP_N; i++) {
		aborted |= s->rm[i] == TP_ABORTED;
		committed |= s->rm[i] == TP_COMMITTED;
	}
	return !(aborted && committed);
}

static void tp_print(const void *p, FILE *out)
{
	const struct tp_state *s = p;
	for (int i = 0; i < TP_N; i++)
		fprintf(out, "r%d=%s ", i + 1, s->rm[i] <= TP_ABORTED ? tp_rm_name[s->rm[i]] : "?");
	fprintf(out, "tm=%s prepared={", s->tm <= TP_TM_ABORTED ? tp_tm_name[s->tm] : "?");
	for (int i = 0, first = 1; i < TP_N; i++)
		if (s->tm_prepared & (1u << i)) {
			fprintf(out, "%sr%d", first ? "" : ",", i + 1);
			first = 0;
		}
	fprintf(out, "} msgs={");
	int first = 1;
	for (int i = 0; i < TP_N; i++)
		if (s->msgs & (1u << i)) {
			fprintf(out, "%sPrepared(r%d)", first ? "" : ",", i + 1);
			first = 0;
		}
	if (s->msgs & TP_MSG_COMMIT) {
		fprintf(out, "%sCommit", first ? "" : ",");
		first = 0;
	}
	if (s->msgs & TP_MSG_ABORT)
		fprintf(out, "%sAbort", first ? "" : ",");
	fputc('}', out);
}

/* The order of TPNext; it fixes the order of siblings in a BFS. */
static const struct cmc_action tp_actions[] = {
	{"TMCommit", tp_tm_commit},
	{"TMAbort", tp_tm_abort},
	{"TMRcvPrepared", tp_tm_rcv_prepared},
	{"RMPrepare", tp_rm_prepare},
	{"RMChooseToAbort", tp_rm_choose_to_abort},
	{"RMRcvCommitMsg", tp_rm_rcv_commit},
	{"RMRcvAbortMsg", tp_rm_rcv_abort},
};

static const struct cmc_action tp_actions_bug[] = {
	{"TMCommit", tp_tm_commit_unguarded},
	{"TMAbort", tp_tm_abort},
	{"TMRcvPrepared", tp_tm_rcv_prepared},
	{"RMPrepare", tp_rm_prepare},
	{"RMChooseToAbort", tp_rm_choose_to_abort},
	{"RMRcvCommitMsg", tp_rm_rcv_commit},
	{"RMRcvAbortMsg", tp_rm_rcv_abort},
};

static const struct cmc_invariant tp_invariants[] = {
	{"TPTypeOK", tp_type_ok},
};

static const struct cmc_invariant tp_invariants_bug[] = {
	{"TPTypeOK", tp_type_ok},
	{"TCConsistent", tp_consistent},
};

const struct cmc_model cmc_model_twophase = {
	.abi = CMC_MODEL_ABI,
	.name = "twophase",
	.summary = "Two-phase commit, 3 RMs (tlaplus/Examples transaction_commit/TwoPhase.tla)",
	.state_size = sizeof(struct tp_state),
	.init = tp_init,
	.actions = tp_actions,
	.n_actions = sizeof tp_actions / sizeof tp_actions[0],
	.invariants = tp_invariants,
	.n_invariants = sizeof tp_invariants / sizeof tp_invariants[0],
	.deadlock_ok = false,
	.print = tp_print,
};

const struct cmc_model cmc_model_twophase_bug = {
	.abi = CMC_MODEL_ABI,
	.name = "twophase-bug",
	.summary = "Two-phase commit with TMCommit's tmPrepared = RM guard removed; "
		   "TCConsistent fails",
	.state_size = sizeof(struct tp_state),
	.init = tp_init,
	.actions = tp_actions_bug,
	.n_actions = sizeof tp_actions_bug / sizeof tp_actions_bug[0],
	.invariants = tp_invariants_bug,
	.n_invariants = sizeof tp_invariants_bug / sizeof tp_invariants_bug[0],
	.deadlock_ok = false,
	.print = tp_print,
};

#ifdef CMC_MODEL_SO
const struct cmc_model *cmc_model_entry(void) { return &cmc_model_twophase; }
#endif
