#!/bin/sh
# t4005-tui-demo.sh — what `make run` runs (share/examples/list/demo.sh, not
# make itself): the list demo explored with raw and canonical fingerprints,
# then the workbench on it.  The first screen must say that 16 states told
# apart by their heap bytes are 8 by canonical record and which key shows
# them; the compare view must show 16 raw in 8 canonical (the seed's story,
# not "merge x1.00").  Without a terminal the same demo runs and says how
# to open it, instead of quietly checking something else.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
DEMO=$CMC_TOP/share/examples/list/demo.sh
ok "make run runs the demo script on the built cmc" \
	grep -q '^	@sh share/examples/list/demo.sh $(CMC) $(B)/demo.db$' "$CMC_TOP/Makefile"
if [ ! -x "$CMC_TOP/$B/examples/list-emit" ]; then
	skip "the demo" "$B/examples/list-emit is not built"
	done_testing
	exit
fi

start "sh '$DEMO' '$CMC' '$T/demo.db'"
ok "first screen: the stored run, complete, 16 states" \
	wait_for '^states by discovery > run 1 .*list\.scn \| complete \| 16 states'
ok "first screen: 16 raw states are 8 canonical, c compares them" \
	wait_for '^16 states told apart by heap bytes are 8 by canonical record: c compares'
ok "first screen: all 16 states are listed" wait_for '^ +15 +4 +'
keys c
ok "compare: 16 raw states in 8 canonical ones" \
	wait_for '^16 states: 16 distinct raw, 8 distinct canonical \(merge x2\.00\)'
ok "compare: a canonical state merges 6 raw ones (the set {1,2,3})" \
	wait_for '6 states, 6 raw variants'
keys Escape
ok "Escape: back to the states, the footer's key hints" wait_for '^\[states by discovery @0\] \?:keys'
keys q
ok "quit: leaves with status 0" wait_for 'EXITED=0'

# A second run replaces the demo's database: it holds one run, run 1.
sh "$DEMO" "$CMC" "$T/demo.db" </dev/null >"$T/out" 2>&1
is "without a terminal: the demo still runs (exit 0)" "$?" 0
ok "without a terminal: it says what runs" grep -q '^the list demo: .*list\.scn explored with raw and canonical' "$T/out"
ok "without a terminal: the summary shows 16 raw and 8 canonical" \
	grep -q 'spanning 16 raw and 8 canonical fingerprints' "$T/out"
ok "without a terminal: it says how to open the run" grep -q "cmc tui $T/demo.db" "$T/out"
not_ok "without a terminal: nothing else is checked" grep -q diehard "$T/out"
is "the demo's database holds just this run" "$("$CMC" runs --db "$T/demo.db" --json | grep -c '"id"')" 1

# A live session's first screen says how to step and search.
start "'$CMC' tui --db '$T/live.db' '$CMC_TOP/share/examples/list/list.scn'"
ok "live: the first screen says Enter steps and r searches" \
	wait_for '^live search: Enter opens a state to step from, r runs the whole search'
keys q
ok "live: quit" wait_for 'EXITED=0'
done_testing
