#!/bin/sh
# t0060-model-bugs.sh — planted bugs in step-function models are found
# with the shortest counterexample, and the exact one that BFS must report
# given the models' documented successor order.
. "$(dirname "$0")/test-lib.sh"

# first_violation FILE — the first entry of "violations", on one line (the
# first one found is the one BFS guarantees to be shortest).
first_violation() { sed 's/{"property"/\n{"property"/g' "$1" | sed -n 2p; }
# trace_of FILE — the labels of the first violation's trace, separated by
# single spaces.
trace_of() {
	first_violation "$1" | sed -n 's/.*"trace": \[\([^]]*\)\].*/\1/p' | sed 's/", "/ /g; s/"//g'
}
# nviol FILE — how many violations were reported.
nviol() { grep -o '{"property"' "$1" | wc -l | tr -d ' '; }
# property_of FILE — the property the first violation names.
property_of() { first_violation "$1" | sed -n 's/.*"property": "\([^"]*\)".*/\1/p'; }

# --- DieHard, invariant NotSolved (big /= 4) -------------------------------
# The classic solution, 6 steps: fill the 5, pour into the 3 (5,0 -> 2 left),
# empty the 3, pour the 2 across, fill the 5, top up the 3 (takes 1): 4 left.
# It is the only shortest one: BFS levels of DieHard (see t0050) put
# (small,big) = (3,4) alone among the big = 4 states at level 7 (6 steps),
# and each state on the path (0,5) (3,2) (0,2) (2,0) (2,5) (3,4) has exactly
# one predecessor on the level before it, through exactly one action.
"$CMC" check diehard-solve --json >"$T/dh.json" 2>"$T/dh.err"
is "diehard-solve: exit status 1 (violation)" "$?" 1
is "diehard-solve: the search stops at the first violation" "$(nviol "$T/dh.json")" 1
is "diehard-solve: property" "$(property_of "$T/dh.json")" "invariant:NotSolved"
is "diehard-solve: shortest trace" "$(trace_of "$T/dh.json")" \
	"FillBigJug BigToSmall EmptySmallJug BigToSmall FillBigJug BigToSmall"

# --- TwoPhase with TMCommit's tmPrepared = RM guard removed -------------------
# TCConsistent (no RM aborted while another committed) needs a committed RM,
# so the Commit message (TMCommit) and RMRcvCommitMsg(x); and an aborted RM
# y /= x, by RMChooseToAbort(y) (RMRcvAbortMsg needs TMAbort, which TMCommit
# excludes).  No 2-step trace does it, so the shortest is 3 steps.
# Which 3: BFS expands states in discovery order and a state's successors in
# the model's action order (TMCommit, TMAbort, TMRcvPrepared, RMPrepare,
# RMChooseToAbort, RMRcvCommitMsg, RMRcvAbortMsg; r1, r2, r3 within each).
# The first level-2 state is the one after TMCommit, so the first level-3
# states are its successors: RMPrepare(r1..r3), then RMChooseToAbort(r1).
# The three RMPrepare states have no aborted RM and one step cannot make
# both an abort and a commit, so none of their successors violate.  The
# successors of [TMCommit, RMChooseToAbort(r1)] in order: RMPrepare(r2),
# RMPrepare(r3), RMChooseToAbort(r2), RMChooseToAbort(r3), RMRcvCommitMsg(r1)
# (r1 committed, none aborted: fine), RMRcvCommitMsg(r2): r1 aborted and r2
# committed — the first violating state found.
"$CMC" check twophase-bug --json >"$T/tp.json" 2>"$T/tp.err"
is "twophase-bug: exit status 1 (violation)" "$?" 1
is "twophase-bug: the search stops at the first violation" "$(nviol "$T/tp.json")" 1
"$CMC" check twophase-bug --keep-going --json >"$T/tpk.json" 2>/dev/null
ok "twophase-bug: --keep-going reports more than one" test "$(nviol "$T/tpk.json")" -gt 1
is "twophase-bug: property" "$(property_of "$T/tp.json")" "invariant:TCConsistent"
is "twophase-bug: shortest trace" "$(trace_of "$T/tp.json")" \
	"TMCommit RMChooseToAbort(r1) RMRcvCommitMsg(r2)"

done_testing
