#!/bin/sh
# t5210-proc-words.sh — what the command line says about a process run
# (issue 20): the fallback to raw merging is said once, the summary does
# not set raw against canonical fingerprints when there are none, a crash
# shows what the target last said (escaped), and a trace the target would
# not repeat is said plainly, with the step.  The target is
# tests/proc/proctarget.c.
. "$CMC_TOP/tests/test-lib.sh"

PT=$T/pt-$$
cp "$CMC_TOP/$B/tests-helpers/proctarget" "$PT"
SHARE=$CMC_TOP/share/examples

# ---- no canonical records under the default auto: said once ------------------
"$CMC" check --no-store "$SHARE/heapbugs/doublefree.scn" >df.out 2>df.err
is "doublefree: a violation (exit 1)" "$?" 1
n=$(cat df.out df.err | grep -c "falling back to raw")
is "the fallback to raw is said once (stdout and stderr together)" "$n" 1
ok "... on stderr" grep -q "no canonical records: falling back to raw" df.err
ok "stdout says how states were merged" grep -q "^merge raw$" df.out

# ---- merge raw: no 'spanning N raw and 0 canonical' ---------------------------
not_ok "merge raw: no 'spanning ... raw and 0 canonical'" grep -q "spanning .* raw and 0 canonical" df.out
ok "merge raw: the heaps counted, and why there are fewer than states" \
	grep -q "^10 distinct states, 11 generated, depth 4; 4 distinct heaps (raw fingerprints): states with one heap differ by the once operations" df.out
"$CMC" check --no-store --hash both "$SHARE/list/list.scn" >both.out 2>/dev/null
ok "merge both: still raw against canonical" grep -q "; spanning 16 raw and 8 canonical fingerprints" both.out
# 16 states: 16 * 15 / 2 / 2^128, as for a model (t0007), never 0
ok "merge both: the collision probability of 16 states, not 0" \
	grep -q "^probability that two states share a fingerprint: 3.53e-37$" both.out

# ---- a crash shows the target's last words, escaped ---------------------------
printf 'target %s\nop inc "inc\\n"\nop assert "assert\\n"\nhash raw\ndepth 3\n' "$PT" >as.scn
"$CMC" check --no-store as.scn >as.out 2>as.err
is "assert: exit 1" "$?" 1
ok "crash: the signal described" grep -q "^violation: crash: target died on signal 6 (Aborted) after assert" as.out
ok "crash: what the target wrote on stderr, escape sequence escaped" \
	grep -Fq "its output ended: proctarget: pt.c:42: command: Assertion \`counter < 2' failed \\x1b[31mred\\x1b[0m" as.out
not_ok "crash: no raw escape byte reaches stdout" grep -q "$(printf '\033')" as.out
"$CMC" check --no-store --json as.scn >as.json 2>/dev/null
ok "crash --json: the message carries it, JSON-escaped" grep -q 'Assertion .counter < 2. failed \\u001b\[31mred' as.json

# ---- replay: a label that is no op of the scenario is a usage error ----------
"$CMC" replay as.scn inc Nope >rn.out 2>rn.err
is "replay with a label no op has: exit 2" "$?" 2
ok "... naming it, its step and the ops" grep -q "^cmc replay: step 2: 'Nope' is no operation of as.scn; it knows inc, assert$" rn.err
is "... before running anything" "$(wc -c <rn.out | tr -d ' ')" 0

# ---- a trace the target does not repeat: said plainly, with the step ----------
# grow sets the counter from a file outside the scratch directory, which
# grows on every run: rebuilding the crash's trace from the start reaches
# another counter at the first step.
printf 'target %s\nop grow "grow %s/grow.f\\n"\nop bomb "bomb\\n"\nraw symbol counter\nhash raw\ndepth 4\n' \
	"$PT" "$T" >nd.scn
"$CMC" check --no-store --exec replay nd.scn >nd.out 2>nd.err
is "nondeterministic: the crash is still a violation (exit 1)" "$?" 1
not_ok "no jargon: 'the frontend did not reproduce it'" grep -q "frontend" nd.out
ok "says the target did not repeat itself, at which step" \
	grep -q "(no trace: cmc could not rebuild it, because the target did not repeat itself: run again with the same operations, it reached another state at step 1 than the first time" nd.out
ok "... and where to look" grep -q 'see "A deterministic environment" in share/scenario.md)$' nd.out
"$CMC" check --no-store --exec replay --json nd.scn >nd.json 2>/dev/null
ok "--json: trace null, and the step it was lost at" grep -q '"trace": null, "trace_lost_at": 1' nd.json

# ... and the stored violation says so too, not "0 steps" from "(initial)"
rm -f grow.f
"$CMC" check --db nd.db --exec replay nd.scn >/dev/null 2>&1
"$CMC" trace --db nd.db >tr.out 2>&1
not_ok "trace: not '0 steps' for a lost trace" grep -q "^0 steps" tr.out
ok "trace: no trace, the target did not repeat itself" \
	grep -q "^no trace: cmc could not rebuild it, because the target did not repeat itself" tr.out
ok "trace: the violating step is still shown" grep -Eq "^the violating step: state [0-9]+ --bomb--> state [0-9]+$" tr.out
"$CMC" trace --db nd.db --file nd.trace >trf.out 2>trf.err
is "trace --file of a lost trace: exit 2" "$?" 2
not_ok "... and no trace file (it would replay the initial state alone)" test -e nd.trace
"$CMC" trace --db nd.db --json >tr.json
ok "trace --json: trace_lost true" grep -q '"trace_lost": true' tr.json
"$CMC" check --db as.db as.scn >/dev/null 2>&1
"$CMC" trace --db as.db --json >as-tr.json
ok "trace --json of a rebuilt trace: trace_lost false" grep -q '"trace_lost": false' as-tr.json
done_testing
