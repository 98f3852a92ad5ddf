#!/bin/sh
# t0010-readme-tour.sh — the README's tour, every command in the order the
# README gives it, run as a newcomer would from a checkout (build/cmc,
# share/...), each output checked for the run and figures the README's
# comment names.  The tour's list of commands is read from README.md and
# must be the list this test runs: a command added to the tour without a
# check here, or changed there only, fails.  The two workbench commands
# run in a tmux pane (tui-lib.sh); `make run` is share/examples/list/demo.sh.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
if [ ! -x "$CMC_TOP/$B/examples/list-emit" ]; then
	skip "the README tour" "$B/examples are not built"
	done_testing
	exit
fi
# A checkout seen from $T: build/cmc is the built program (its examples are
# found beside the real one), so what the tour writes stays in $T.
mkdir build && ln -s "$CMC" build/cmc && ln -s "$CMC_TOP/share" share
: >"$T/ran"

# tour RC 'CMD' 'ERE'...: run CMD as the README writes it; it must exit RC
# and its output (stdout and stderr) match every ERE.
tour() {
	want=$1 cmd=$2
	shift 2
	echo "$cmd" >>"$T/ran"
	sh -c "$cmd" >"$T/tour.out" 2>&1
	is "$cmd: exit $want" "$?" "$want"
	for re in "$@"; do
		ok "$cmd: says /$re/" grep -Eq -- "$re" "$T/tour.out"
	done
}

# make run
sh share/examples/list/demo.sh build/cmc build/demo.db </dev/null >"$T/tour.out" 2>&1
is "make run's demo.sh: exit 0" "$?" 0
ok "make run's demo.sh: 16 raw and 8 canonical" grep -q 'spanning 16 raw and 8 canonical' "$T/tour.out"

cmd='build/cmc tui build/demo.db'
echo "$cmd" >>"$T/ran"
start "$cmd"
ok "$cmd: run 1, complete, 16 states" wait_for '^states by discovery > run 1 .*list\.scn \| complete \| 16 states'
ok "$cmd: 16 by heap bytes are 8 by canonical record" \
	wait_for '^16 states told apart by heap bytes are 8 by canonical record: c compares'
keys q
ok "$cmd: quits" wait_for 'EXITED=0'

cmd='build/cmc tui --hash both share/examples/list/list.scn'
echo "$cmd" >>"$T/ran"
start "$cmd"
ok "$cmd: live, says r searches" wait_for '^live search: .* r runs the whole search'
job r
ok "$cmd: r explores 16 states" wait_for 'search complete: 16 distinct states'
keys c
ok "$cmd: c shows 16 raw in 8 canonical" wait_for '^16 states: 16 distinct raw, 8 distinct canonical'
keys q
ok "$cmd: quits" wait_for 'EXITED=0'

tour 0 'build/cmc models' '^diehard ' '^peterson '
tour 0 'build/cmc check diehard' '^16 distinct states, 97 generated, depth 8'
tour 1 'build/cmc check diehard-solve' 'violation: invariant:NotSolved' 'trace \(6 steps\)'
tour 0 'build/cmc check --json twophase' '^\{"target": "twophase", "kind": "model"'
tour 0 'build/cmc simulate --seed 3 peterson' 'distinct states'
tour 1 'build/cmc replay diehard-solve FillBigJug BigToSmall EmptySmallJug BigToSmall FillBigJug BigToSmall' \
	'^violation reproduced: invariant:NotSolved at step 6 \(BigToSmall\)'

tour 0 'build/cmc check --hash both --db list.db share/examples/list/list.scn' \
	'^16 distinct states, .*spanning 16 raw and 8 canonical fingerprints'
tour 0 'build/cmc compare --db list.db' \
	'^run 1: 16 states, 16 distinct raw, 8 distinct canonical, merge factor 2\.00'
tour 0 'build/cmc graph --db list.db --raw-vs-canonical -o list.svg' \
	'16 states, 15 transitions, 8 canonical states'
ok "graph: list.svg has one cluster per canonical state" \
	test "$(grep -c '<g id="clust' list.svg)" -eq 8
tour 1 'build/cmc check --db bug.db share/examples/list/list-bug.scn' \
	'^violation: keys-present' '1: INS 2' '2: INS 1'
tour 0 'build/cmc show --db bug.db 4' '^run 1, state 4: depth 3' '^trace \(2 steps\)'
tour 0 'build/cmc trace --db bug.db --file bug.trace'
ok "trace: bug.trace is run 1's keys-present counterexample" \
	sh -c "grep -q '(run 1): keys-present' bug.trace && grep -q '^expect keys-present' bug.trace"
tour 1 'build/cmc replay --file bug.trace share/examples/list/list-bug.scn' \
	'^violation reproduced: keys-present at step 2 \(INS 1\)'

tour 1 'build/cmc check share/examples/heapbugs/doublefree.scn' 'INV-15: .*double free' \
	'1: ADD' '2: DROP' '3: FLUSH'
tour 1 'build/cmc check share/examples/heapbugs/uafreuse-op.scn' 'INV-12' '1: OPEN' '2: RECYCLE'
tour 1 'build/cmc check share/examples/heapbugs/leak.scn' 'leak: .*lost' '1: OPEN 1' '2: OPEN 2' '3: QUIT'
tour 0 'build/cmc invariants' '^INV-1 '

# Every command of the tour (README.md up to its Layout), and no other.
sed -n '/^## Layout/q; s/^    \(build\/cmc .*\)$/\1/p' "$CMC_TOP/README.md" |
	sed 's/  *#.*//; s/ *$//' >"$T/readme"
is "the README's tour is exactly the commands run here" "$(diff "$T/readme" "$T/ran")" ""
done_testing
