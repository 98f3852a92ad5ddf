#!/bin/sh
# t0050-model-tlc.sh — the built-in step-function models explore exactly
# the state spaces TLC explores for their TLA+ originals.
#
# Each expected figure is TLC's, counted as TLC counts: distinct states
# (initial ones included), states generated (initial states plus one per
# successor of each expanded state, duplicates included) and the depth of
# the BFS (initial states = 1).  Where the number is published, the comment
# names the file in the tlaplus/Examples repository (github.com/tlaplus/
# Examples) that records it: the "distinctStates", "totalStates" and
# "stateDepth" of the model config in that spec's manifest.json (TLC's run
# in the repository's CI).
. "$(dirname "$0")/test-lib.sh"

# check_model NAME DISTINCT GENERATED DEPTH — run `cmc check NAME --json`,
# expect exit 0 (no violation) and the three counts.
check_model() {
	"$CMC" check "$1" --json >"$T/$1.json" 2>"$T/$1.err"
	rc=$?
	is "$1: exit status (no violation)" "$rc" 0
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/$1.err" | head -n 5
	is "$1: distinct states" "$(json_get "$T/$1.json" distinct)" "$2"
	is "$1: states generated" "$(json_get "$T/$1.json" generated)" "$3"
	is "$1: depth" "$(json_get "$T/$1.json" depth)" "$4"
	is "$1: complete" "$(json_get "$T/$1.json" complete)" true
}

# specifications/transaction_commit/manifest.json, model
# specifications/transaction_commit/TCommit.cfg (RM = {r1, r2, r3},
# INVARIANTS TCTypeOK TCConsistent, CHECK_DEADLOCK FALSE):
# distinctStates 34, totalStates 94, stateDepth 7.
check_model tcommit 34 94 7

# specifications/transaction_commit/manifest.json, model
# specifications/transaction_commit/TwoPhase.cfg (RM = {r1, r2, r3},
# INVARIANT TPTypeOK, deadlock checked): distinctStates 288,
# totalStates 1146, stateDepth 11.
check_model twophase 288 1146 11

# specifications/locks_auxiliary_vars/manifest.json, model
# specifications/locks_auxiliary_vars/Peterson.cfg (INVARIANTS TypeOK Inv,
# deadlock checked): distinctStates 42, totalStates 77, stateDepth 11.
check_model peterson 42 77 11

# specifications/DiningPhilosophers/manifest.json, model
# specifications/DiningPhilosophers/DiningPhilosophers.cfg (NP = 5):
# distinctStates 67, totalStates 336, stateDepth 29.  (Also 336 =
# 1 + 5 * 67: every state enables exactly one action per philosopher.)
check_model philosophers 67 336 29

# DieHard: the repository publishes no counts (its DieHard.cfg checks
# NotSolved and records only "safety failure").  Derived instead: a
# state (small, big) is reachable iff a jug is empty or full, which with
# jugs of 3 and 5 gives 2*6 + 2*2 = 16 states; all six actions are always
# enabled, so generated = 1 + 6 * 16 = 97.  The BFS levels (init = 1) are
#   1 (0,0)   2 (3,0) (0,5)   3 (3,5) (0,3) (3,2)   4 (3,3) (0,2)
#   5 (1,5) (2,0)   6 (1,0) (2,5)   7 (0,1) (3,4)   8 (3,1) (0,4)
# = 16 states over 8 levels.  t0150-spin.sh checks 16 and 97 against SPIN.
check_model diehard 16 97 8

done_testing
