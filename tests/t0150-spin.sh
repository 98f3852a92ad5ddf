#!/bin/sh
# t0150-spin.sh — cmc and SPIN explore the same state spaces.
#
# share/models/promela/NAME.pml is the step-function model NAME written as
# one Promela process whose body is one do-loop of d_steps, one per
# (action, parameter) pair, with the TLA+ enabling condition as the d_step's
# guard (see the comment at the top of diehard.pml).  A d_step is a single
# transition and control always returns to the loop head, so SPIN's state is
# the model's valuation plus constants, and:
#
#   states, stored      == distinct    every reachable valuation, once
#   stored + matched    == generated   SPIN's initial state is stored; every
#                                       option executed from a stored state
#                                       leads to a state either stored (new)
#                                       or matched (seen) — one per TLC
#                                       successor, duplicates included
#   transitions         == generated   pan prints it as stored + matched
#   BFS depth reached+1 == depth       with -DBFS pan numbers levels from
#                                       0; cmc numbers them from 1, as TLC
#
# Both sides are measured here; nothing is copied from either.
. "$(dirname "$0")/test-lib.sh"

if ! command -v spin >/dev/null 2>&1; then
	skip "SPIN comparison" "spin is not installed (TEST_DEPS spin:spin; run make test to install it)"
	done_testing
	exit 0
fi

# pan_figure FILE PATTERN — the number in front of PATTERN in pan's output.
pan_figure() { sed -n "s/^ *\([0-9][0-9]*\) $2.*/\1/p" "$1" | head -n 1; }

for m in diehard tcommit twophase peterson philosophers; do
	d="$T/$m"
	mkdir -p "$d"
	pml="$CMC_TOP/share/models/promela/$m.pml"
	if ! (cd "$d" && spin -a "$pml" >spin.out 2>&1 &&
	      gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c 2>gcc.out &&
	      gcc -O2 -DSAFETY -DNOREDUCE -DBFS -o pan-bfs pan.c 2>>gcc.out); then
		_report 1 "$m: spin -a and gcc build pan"
		cat "$d/spin.out" "$d/gcc.out" 2>/dev/null | head -n 10 | sed 's/^/# /'
		continue
	fi
	(cd "$d" && ./pan >pan.out 2>&1 && ./pan-bfs >pan-bfs.out 2>&1)
	is "$m: pan ran without errors" "$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$d/pan.out")" 0
	stored=$(pan_figure "$d/pan.out" "states, stored")
	matched=$(pan_figure "$d/pan.out" "states, matched")
	trans=$(pan_figure "$d/pan.out" "transitions")
	bfs_depth=$(sed -n 's/.*depth reached \([0-9]*\),.*/\1/p' "$d/pan-bfs.out")

	"$CMC" check "$m" --json >"$d/cmc.json" 2>"$d/cmc.err"
	is "$m: cmc exit status" "$?" 0
	distinct=$(json_get "$d/cmc.json" distinct)
	generated=$(json_get "$d/cmc.json" generated)
	depth=$(json_get "$d/cmc.json" depth)

	is "$m: SPIN states stored ($stored) == cmc distinct" "$distinct" "$stored"
	is "$m: SPIN stored + matched == cmc generated" "$generated" "$((stored + matched))"
	is "$m: SPIN transitions == cmc generated" "$generated" "$trans"
	is "$m: SPIN BFS depth reached + 1 == cmc depth" "$depth" "$((bfs_depth + 1))"
done

done_testing
