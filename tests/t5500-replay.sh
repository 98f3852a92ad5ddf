#!/bin/sh
# t5500-replay.sh — `cmc replay` against a live target re-checks every
# property at every step, under both executors: list-bug's counterexample
# INS 2, INS 1 reproduces keys-present (exit 1); a trace that breaks nothing
# exits 0; `cmc trace --file` of a stored process-mode violation replays;
# a step where the target crashes is reported as a fault, never as matched.
. "$CMC_TOP/tests/test-lib.sh"

SCN=$CMC_TOP/share/examples/list/list-bug.scn

for ex in replay fork; do
	"$CMC" replay --exec $ex "$SCN" "INS 2" "INS 1" >lb-$ex.out 2>lb-$ex.err
	is "list-bug --exec $ex: INS 2, INS 1 reproduces the violation (exit 1)" "$?" 1
	ok "... the last line names keys-present at step 2" \
		grep -q "^violation reproduced: keys-present at step 2 (INS 1): key 2 was inserted at step 1 but is missing" lb-$ex.out
	ok "... on the step where it fails" grep -Eq '^ +violated +keys-present: ' lb-$ex.out
done
"$CMC" replay --exec bogus "$SCN" "INS 1" >/dev/null 2>bogus.err
is "--exec with an unknown executor: exit 2" "$?" 2
ok "... saying what was expected" grep -q "expected fork or replay" bogus.err

"$CMC" replay "$SCN" "INS 1" "INS 2" "INS 3" >clean.out 2>&1
is "list-bug: INS 1, INS 2, INS 3 violates nothing (exit 0)" "$?" 0
is "... and says so" "$(tail -n 1 clean.out)" "no violation at any of the 3 steps"

"$CMC" replay --json "$SCN" "INS 2" "INS 1" >lb.json 2>/dev/null
is "--json: the verdict" "$(json_get lb.json verdict)" violation
ok "--json: the violation's property and step" grep -q '"violation": {"property": "keys-present", "message": "key 2 was inserted at step 1 but is missing", "step": 2, "label": "INS 1"' lb.json

# A stored violation written as a trace file, replayed under each executor.
"$CMC" check --db lb.db "$SCN" >/dev/null 2>&1
"$CMC" trace --db lb.db --file lb.trace 1
ok "cmc trace --file: the process-mode counterexample with its expectation" grep -qx 'expect keys-present' lb.trace
for ex in replay fork; do
	"$CMC" replay --exec $ex --file lb.trace "$SCN" >lbf-$ex.out 2>&1
	is "replay --exec $ex --file: the stored violation is reproduced (exit 1)" "$?" 1
	is "... every step matched" "$(grep -Ec '^ +[0-9]+ +matched ' lbf-$ex.out)" 3
done

# A target that dies on a signal: the step is a fault, and the crash the
# violation (tests/proc/proctarget.c: bomb crashes once counter >= 2).
PT=$CMC_TOP/$B/tests-helpers/proctarget
printf 'target %s\nop inc "inc\\n"\nop bomb "bomb\\n"\nraw symbol counter\nhash raw\ndepth 4\n' "$PT" >crash.scn
"$CMC" replay crash.scn inc inc bomb >crash.out 2>&1
is "a step that crashes the target: exit 1" "$?" 1
ok "... the step is a FAULT, not matched" grep -Eq '^ +3 +FAULT +[0-9a-f]{32} +bomb' crash.out
ok "... saying how the target ended" grep -Eq '^ +fault +the target died on signal 11' crash.out
ok "... and the crash is the violation, named as a fault" \
	grep -q "^violation reproduced: crash at step 3 (bomb): target died on signal 11 .*(the target faulted)" crash.out
not_ok "... nothing says every step reproduced" grep -q "reproduced (two runs\|all 3 steps" crash.out

done_testing
