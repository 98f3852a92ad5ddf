#!/bin/sh
# t0090-replay.sh — `cmc replay` of a model trace is a proof: every state on
# the way is judged as `cmc check` judges it, and the last line says what the
# replay came to, with its exit status (0 nothing violated, 1 violation
# reproduced, 2 usage or input error, 3 did not reproduce).  Trace files as
# `cmc trace --file` writes them carry the initial state and the property
# they should violate; malformed lines are named by file:line.  A model with
# two initial states, compiled here, replays from the one the trace names.
. "$(dirname "$0")/test-lib.sh"

# ---- diehard-solve: the solution violates NotSolved at its last step -------
"$CMC" replay diehard-solve FillBigJug BigToSmall EmptySmallJug BigToSmall FillBigJug BigToSmall >ds.out 2>&1
is "diehard-solve: the replayed solution is a violation (exit 1)" "$?" 1
is "... the last line names property, step, label and message" "$(tail -n 1 ds.out)" \
	"violation reproduced: invariant:NotSolved at step 6 (BigToSmall): invariant is violated"
ok "... the initial state is judged and listed as step 0" grep -Eq '^ +0 +agreed +[0-9a-f]{32} +\(initial state\)' ds.out
"$CMC" replay --json diehard-solve FillBigJug BigToSmall EmptySmallJug BigToSmall FillBigJug BigToSmall >ds.json
is "... --json: the verdict" "$(json_get ds.json verdict)" violation
ok "... --json: the violation's property and step" grep -q '"violation": {"property": "invariant:NotSolved", "message": "invariant is violated", "step": 6' ds.json

"$CMC" replay diehard FillBigJug BigToSmall >clean.out 2>&1
is "diehard: a trace that violates nothing exits 0" "$?" 0
is "... and says so" "$(tail -n 1 clean.out)" "no violation at any of the 2 steps"

"$CMC" replay twophase TMCommit >ne.out 2>&1
is "a label that is not enabled: did not reproduce (exit 3)" "$?" 3
is "... naming the step" "$(tail -n 1 ne.out)" "did not reproduce: step 1 (TMCommit): the action is not enabled"
"$CMC" replay --expect invariant:NotSolved diehard FillBigJug >ex.out 2>&1
is "--expect: a violation that never comes is not reproduced (exit 3)" "$?" 3
ok "... and says which was expected" grep -q "^did not reproduce: no property fails at its 1 step (expected invariant:NotSolved)" ex.out

# ---- trace files: cmc trace --file, then cmc replay --file -----------------
"$CMC" check --db ds.db diehard-solve >/dev/null 2>&1
"$CMC" trace --db ds.db --file ds.trace 1
is "cmc trace --file writes the counterexample" "$?" 0
ok "... with the initial state's fingerprint" grep -Eq '^init [0-9a-f]{32}$' ds.trace
"$CMC" trace --db ds.db --file latest.trace
ok "... without an id: the latest run's first violation, the same file" cmp ds.trace latest.trace
ok "... and the property it should violate" grep -qx 'expect invariant:NotSolved' ds.trace
is "... and one line a step with its fingerprint" "$(grep -Ec '^[A-Za-z]+	[0-9a-f]{32}$' ds.trace)" 6
"$CMC" replay --file ds.trace diehard-solve >dsf.out 2>&1
is "replay --file of it reproduces the violation (exit 1)" "$?" 1
ok "... every step matched the recorded fingerprint" test "$(grep -Ec '^ +[0-9]+ +matched ' dsf.out)" = 7
ok "... the last line" grep -q "^violation reproduced: invariant:NotSolved at step 6 (BigToSmall)" dsf.out
# An old file (labels and fingerprints only) still reads.
grep -v -e '^init ' -e '^expect ' -e '^#' ds.trace >old.trace
"$CMC" replay --file old.trace diehard-solve >old.out 2>&1
is "a trace file without init and expect lines still replays (exit 1)" "$?" 1

# ---- a divergence: expected and actual --------------------------------------
"$CMC" replay --json diehard FillBigJug >one.json
fp1=$(tr '{' '\n' <one.json | sed -n 's/.*"label": "FillBigJug", "fp": "\([0-9a-f]*\)".*/\1/p')
printf 'FillBigJug\t0123456789abcdef0123456789abcdef\n' >div.trace
"$CMC" replay --file div.trace diehard >div.out 2>&1
is "a step reaching another state than recorded: did not reproduce (exit 3)" "$?" 3
ok "... the step is marked DIVERGED" grep -Eq '^ +1 +DIVERGED ' div.out
ok "... the expected fingerprint is printed" grep -Eq '^ +expected +0123456789abcdef0123456789abcdef$' div.out
ok "... and the actual one" grep -Eq "^ +actual +$fp1\$" div.out
is "... the last line has both" "$(tail -n 1 div.out)" \
	"did not reproduce: step 1 (FillBigJug): reached a state other than the recorded one (expected 0123456789abcdef0123456789abcdef, actual $fp1)"

# ---- malformed trace files: exit 2, file:line, what was expected ------------
printf 'FillBigJug\n# a comment\nBigToSmall\t0123\n' >short.trace
"$CMC" replay --file short.trace diehard >bad.out 2>&1
is "a fingerprint of the wrong length: exit 2" "$?" 2
ok "... named by file:line" grep -q "short.trace:3: expected LABEL, then optionally a tab and 32 hex digits" bad.out
printf 'FillBigJug\t0123456789abcdef0123456789abcdeg\n' >hex.trace
"$CMC" replay --file hex.trace diehard >bad.out 2>&1
is "a fingerprint that is not hex: exit 2" "$?" 2
ok "... named by file:line" grep -q "hex.trace:1: expected LABEL" bad.out
printf 'FillBigJug\t00000000000000000000000000000000\n' >zero.trace
"$CMC" replay --file zero.trace diehard >bad.out 2>&1
is "an all-zero fingerprint: exit 2" "$?" 2
ok "... named by file:line, as all zeros" grep -q "zero.trace:1: the fingerprint is all zeros" bad.out
printf 'init 00000000000000000000000000000000\nFillBigJug\n' >zinit.trace
"$CMC" replay --file zinit.trace diehard >bad.out 2>&1
is "an all-zero initial fingerprint: exit 2" "$?" 2
ok "... named by file:line" grep -q "zinit.trace:1: the initial state's fingerprint is all zeros" bad.out
printf 'FillBigJug\t0123456789abcdef0123456789abcdef\t0123456789abcdef0123456789abcdef\n' >raw.trace
"$CMC" replay --file raw.trace diehard >bad.out 2>&1
is "a raw fingerprint without the canonical one: exit 2" "$?" 2
"$CMC" replay --exec fork diehard FillBigJug >bad.out 2>&1
is "--exec on a model: exit 2" "$?" 2

# ---- a model with two initial states ---------------------------------------
# x starts at 0 or 10; Inc raises it (to 12 at most), Boom fails an
# assertion from 10 on; the invariant Small is x != 11.  check finds Small
# violated after Inc from the second initial state.
cat >twoinit.c <<'MODEL'
#include <stdint.h>
#include "cmc_model.h"
struct st { uint32_t x; };
static void init(cmc_out *o)
{
	struct st a = {0}, b = {10};
	cmc_yield(o, &a, NULL);
	cmc_yield(o, &b, NULL);
}
static void inc(const void *v, cmc_out *o)
{
	struct st s = *(const struct st *)v;
	if (s.x < 12) { s.x++; cmc_yield(o, &s, NULL); }
}
static void boom(const void *v, cmc_out *o)
{
	if (((const struct st *)v)->x >= 10)
		cmc_fail(o, "boom at 10 or more");
}
static bool small(const void *v) { return ((const struct st *)v)->x != 11; }
static const struct cmc_action acts[] = {{"Inc", inc}, {"Boom", boom}};
static const struct cmc_invariant invs[] = {{"Small", small}};
static const struct cmc_model m = {
	.abi = CMC_MODEL_ABI, .name = "twoinit", .summary = "t0090", .state_size = sizeof(struct st),
	.init = init, .actions = acts, .n_actions = 2, .invariants = invs, .n_invariants = 1,
	.deadlock_ok = true,
};
const struct cmc_model *cmc_model_entry(void) { return &m; }
MODEL
ok "the two-initial-state model builds" cc -std=c11 -fPIC -shared -I"$CMC_TOP/engine" -o twoinit.so twoinit.c
"$CMC" check --db ti.db twoinit.so >ti.out 2>&1
is "twoinit: check finds Small violated (exit 1)" "$?" 1
"$CMC" trace --db ti.db --file ti.trace 1
"$CMC" replay --json twoinit.so Inc >ti0.json 2>&1
init1=$(grep '^init ' ti.trace | cut -d' ' -f2)
ok "... the trace file names the second initial state, not the first" \
	sh -c "test -n '$init1' && ! grep -q '\"init\": {\"step\": 0, \"label\": null, \"fp\": \"$init1\"' ti0.json"
"$CMC" replay --file ti.trace twoinit.so >ti.out 2>&1
is "replay --file starts from the initial state the file names (exit 1)" "$?" 1
ok "... and reproduces Small after Inc" grep -q "^violation reproduced: invariant:Small at step 1 (Inc)" ti.out
"$CMC" replay twoinit.so Inc >ti.out 2>&1
is "without an initial state named, the first: no violation (exit 0)" "$?" 0
"$CMC" replay --init 1 twoinit.so Inc >ti.out 2>&1
is "--init 1: the second initial state, Small violated (exit 1)" "$?" 1
printf 'init 1\nInc\n' >idx.trace
"$CMC" replay --file idx.trace twoinit.so >ti.out 2>&1
is "an 'init 1' line does the same (exit 1)" "$?" 1
ok "... reproducing Small" grep -q "^violation reproduced: invariant:Small at step 1 (Inc)" ti.out
"$CMC" replay --init 2 twoinit.so Inc >ti.out 2>&1
is "--init 2: there is no third initial state (exit 3)" "$?" 3
ok "... said so" grep -q "^did not reproduce: there is no initial state 2 (2 in all)" ti.out
# An assertion that fails inside the action is judged too.
"$CMC" replay --init 1 twoinit.so Boom >ti.out 2>&1
is "an action whose assertion fails: violation reproduced (exit 1)" "$?" 1
ok "... as assert, with the model's message" grep -q "^violation reproduced: assert at step 1 (Boom): boom at 10 or more" ti.out

done_testing
