#!/bin/sh
# t5500-judge-transitions.sh — every property is judged on every transition,
# also on one into a state seen before.  The target
# (tests/proc/judgetarget.c) has two operations that leave the same heap,
# `set` (reply OK) and `setbad` (reply "f: not found"), so with `property
# reply * "OK"` the bad reply arrives on a transition into the state `set`
# found first when `set` is listed first.  Either order of the operations,
# either executor, one job or two: the same violations, each naming its
# transition, with the trace to its source and the step itself.
. "$CMC_TOP/tests/test-lib.sh"

JT=$CMC_TOP/$B/tests-helpers/judgetarget
scn() { # FILE OP... — a scenario listing the operations in this order
	f=$1; shift
	{
		printf 'target %s\nhash raw\nproperty reply * "OK"\n' "$JT"
		for o in "$@"; do printf 'op %s "%s\\n"\n' "$o" "$o"; done
	} >"$f"
}
scn ab.scn set setbad
scn ba.scn setbad set
# nviol FILE — violations in cmc's --json output.
nviol() { grep -o '{"property"' "$1" | wc -l | tr -d ' '; }
# viols FILE — each violation as "trace from to", one per line.
viols() {
	sed 's/{"property"/\n{"property"/g' "$1" | sed -n 's/.*"trace": \[\([^]]*\)\], "from": \([0-9a-z]*\), "to": \([0-9a-z]*\)}.*/\1 \2 \3/p' |
		sed 's/", "/ /g; s/"//g'
}

# The state space: the initial state 0 and state 1 (x = 1); set and setbad
# lead from either to state 1.  Two transitions reply badly: 0 -setbad-> 1
# and 1 -setbad-> 1; in the order set, setbad the first reaches a state
# seen before (set found state 1).
for ex in replay fork; do
	for j in 1 2; do
		for s in ab ba; do
			w="$s, --exec $ex --jobs $j"
			"$CMC" check --no-store --json --keep-going --exec $ex --jobs $j $s.scn >k.json 2>k.err
			is "$w, --keep-going: exit 1" "$?" 1
			is "$w, --keep-going: one violation per bad transition" "$(nviol k.json)" 2
			is "$w, --keep-going: both explored" "$(json_get k.json distinct)" 2
			"$CMC" check --no-store --json --exec $ex --jobs $j $s.scn >one.json 2>one.err
			is "$w: exit 1" "$?" 1
			is "$w: stops at the first" "$(nviol one.json)" 1
			is "$w: the first is 0 -setbad-> 1, the trace its step" "$(viols one.json)" "setbad 0 1"
		done
	done
done
# In the order set, setbad the second bad transition leaves state 1, which
# set reached: its trace is set's then the step.
"$CMC" check --no-store --json --keep-going ab.scn >ab.json 2>/dev/null
is "set, setbad: the bad transitions in order" "$(viols ab.json)" "setbad 0 1
set setbad 1 1"
"$CMC" check --no-store --json --keep-going ba.scn >ba.json 2>/dev/null
is "setbad, set: the bad transitions in order" "$(viols ba.json)" "setbad 0 1
setbad setbad 1 1"

# The store records the transition, and the trace passes the states it
# names, also when the target's own (tree) trace is another.
"$CMC" check --db ab.db --keep-going ab.scn >/dev/null 2>&1
is "stored: exit 1" "$?" 1
is "stored: the violating transitions (source, label, target) and traces" \
	"$(sqlite3 ab.db "SELECT source, label, target, trace FROM violations_with_traces ORDER BY violation")" \
	"0|setbad|1|setbad
1|setbad|1|set ; setbad"
"$CMC" trace --db ab.db --json 1 >t1.json
ok "cmc trace: the transition 0 -setbad-> 1" grep -q '"from": 0, "label": "setbad", "to": 1}' t1.json
ok "cmc trace: the step reaches state 1" grep -q '"label": "setbad", "state": 1' t1.json
"$CMC" trace --db ab.db 2 >t2.txt
ok "cmc trace: the second's last step from state 1" grep -q '2 steps to state 1, the last from state 1' t2.txt
ok "cmc trace: passing state 1 by set, then setbad into it" \
	sh -c "grep -q '1  set  *state 1 ' t2.txt && grep -q '2  setbad  *state 1 ' t2.txt"
"$CMC" replay ab.scn setbad >r.out 2>&1
is "the counterexample replays: the violation is reproduced (exit 1)" "$?" 1

# The shell of the issue: `x=1` and `x=1; f 1` leave dash in the same state;
# the second says "f: not found".  Reported in both orders.
if command -v dash >/dev/null 2>&1; then
	for o in 'a b' 'b a'; do
		{
			printf 'target %s\nhash raw\ndepth 2\nproperty reply * ""\n' "$(command -v dash)"
			for x in $o; do
				case $x in
				a) printf 'op a "x=1\\n"\n' ;;
				b) printf 'op b "x=1; f 1\\n"\n' ;;
				esac
			done
		} >sh.scn
		"$CMC" check --no-store --json sh.scn >sh.json 2>sh.err
		is "dash, ops $o: a violation (exit 1)" "$?" 1
		ok "dash, ops $o: the reply says f: not found" grep -q 'f: not found' sh.json
	done
else
	skip "dash: ops in both orders" "no dash"
fi
done_testing
