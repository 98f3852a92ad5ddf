#!/bin/sh
# t4005-tui-truth.sh — what the workbench says is true: the levels view
# after steps by hand lists each state under its own depth; a once-only
# operation already taken on the path says so; a counterexample whose
# trace the run could not rebuild (a nondeterministic target) says where
# the target did not repeat itself and never claims a match; help groups
# the keys and opens at its top; R searches in a new run and leaves the
# one it started from whole.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
SHARE=$CMC_TOP/share/examples
EX=$CMC_TOP/$B/examples
HELPERS=$CMC_TOP/$B/tests-helpers

quit() { keys q; wait_for 'EXITED=0' >/dev/null; }
# job KEY...: keys that need the worker, once it is idle (as t4004).
idle() {
	i=0
	while [ $i -lt 100 ]; do
		screen | sed -n 1p | grep -Eq 'SEARCHING|replaying|simulating|rendering|reading|stepping|\| busy' ||
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# the worker stayed busy"
	return 1
}
job() { idle; keys "$@"; }

# ---- levels after steps by hand -------------------------------------------------
# diehard-solve: 0 -FillBigJug-> 1 (depth 2) -BigToSmall-> 2 (depth 3); then
# e on state 0 adds its other successors at depth 2, with ids after 2.  The
# ids of depth 2 are not one run of ids: level 2 must not list state 2.
start "'$CMC' tui --db lv.db diehard-solve"
ok "levels: the session opens" wait_for 'run 1 live diehard-solve .*1 distinct'
keys Enter
ok "levels: the initial state" wait_for 'print  small=0 big=0'
job j Enter
ok "levels: FillBigJug by hand" wait_for '^state 1  depth 2  from 0 by FillBigJug'
wait_for 'print  small=0 big=5' >/dev/null
row=$(screen | awk '/^  /{ n++ } /^  BigToSmall /{ print n - 1; exit }')
i=0
while [ "$i" -lt "${row:-0}" ]; do keys j; i=$((i + 1)); done
job Enter
ok "levels: BigToSmall by hand, a state at depth 3" wait_for '^state 2  depth 3  from 1 by BigToSmall'
wait_for 'print  small=3 big=2' >/dev/null
keys b b
ok "levels: back at the initial state" wait_for '^state 0  depth 1  initial state'
wait_for 'print  small=0 big=0' >/dev/null
job e
ok "levels: e expands it" wait_for '^expanded state 0: '
keys 2
ok "levels: three depths" wait_for '^3 +1 \|'
keys j Tab
screen >"$T/lv2"
ok "levels: depth 2 lists state 1" grep -Eq '\| +1 +0 +FillBigJug' "$T/lv2"
ok "levels: ... and state 3, which e found" grep -Eq '\| +3 +0 +FillSmallJug' "$T/lv2"
not_ok "levels: ... and not state 2, which is at depth 3" grep -Eq '\| +2 +1 +BigToSmall' "$T/lv2"
is "levels: every state of depth 2 comes from state 0" \
	"$(awk -F'|' 'NR > 1 && $2 ~ /[0-9]/ { split($2, f, " "); if (f[2] != "0") bad++ } END { print bad + 0 }' "$T/lv2")" 0
keys Tab j Tab
screen >"$T/lv3"
ok "levels: depth 3 lists state 2" grep -Eq '\| +2 +1 +BigToSmall' "$T/lv3"
is "levels: ... and only it" "$(awk -F'|' 'NR > 1 && $2 ~ /[0-9]/' "$T/lv3" | wc -l | tr -d ' ')" 1
quit

done_testing
