#!/bin/sh
# t4001-tui-search.sh — a long search in the workbench: it runs on the
# worker while keys are answered, pauses, resumes, and `q` stops it and
# stores the run as interrupted; the database then opens read-only and says
# the run is incomplete, as it does for a run whose writer was SIGKILLed.
# A search a bound cuts short is stored bounded.
# Also: no terminal -> exit 2; NO_COLOR -> no colour sequences.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"

# Not a terminal: says so, exits 2.
"$CMC" tui diehard </dev/null >"$T/out" 2>"$T/err"
is "no terminal: exit status 2" "$?" 2
ok "no terminal: the message says why" grep -q 'needs a terminal' "$T/err"

# bench-counters-small has 5,153,632 states: far more than this test waits for.
start "'$CMC' tui bench-counters-small"
ok "search: the session opens" wait_for 'run 1 live bench-counters-small'
keys r
ok "search: r starts it on the worker" wait_for 'SEARCHING'
keys '?'
ok "search: keys are answered while it runs" wait_for 'this list of keys'
keys Escape
ok "search: progress moves while it runs" wait_for '\| SEARCHING \| [0-9]{4,} distinct'
keys p
ok "search: p pauses it" wait_for 'search paused at [0-9]+ distinct states'
ok "search: the header says idle once paused" wait_for '\| idle \|'
keys r
ok "search: r resumes it" wait_for 'SEARCHING'
keys q
ok "quit: q stops the running search and leaves" wait_for 'EXITED=0'
ok "quit: the run is stored as interrupted" \
	sh -c "'$CMC' runs --json | grep -q '\"status\": \"interrupted\"'"

start "'$CMC' tui cmc.db"
ok "database: opens read-only on the latest run" wait_for 'run 1 bench-counters-small \| interrupted \(INCOMPLETE\)'
keys G
ok "database: G reaches the last stored state" wait_for '^\[states by discovery @[0-9]+\]|^ +[0-9]{3,} +[0-9]+ +[0-9]+ '
keys r
ok "database: searching needs a live target, and says so" wait_for 'needs a live target'
keys u
ok "runs: the runs view lists the run as incomplete" wait_for '^[ !][ *] +1 model +bench-counters-small +interrupted .*incomplete'
keys q
ok "database: q leaves" wait_for 'EXITED=0'

# A search a bound cuts short is stored as `cmc check` stores it:
# bounded (the workbench stored it interrupted).
start "'$CMC' tui --db b.db --max-depth 3 diehard"
ok "bound: the session opens" wait_for 'run 1 live diehard'
keys r
ok "bound: the search ends at the bound" wait_for 'search ended at a bound'
keys q
ok "bound: q leaves" wait_for 'EXITED=0'
is "bound: the run is stored bounded" \
	"$("$CMC" runs --db b.db --json | grep -o '"status": "[a-z]*"')" '"status": "bounded"'

# A stored counterexample replayed from the database against the model.
"$CMC" check --db v.db diehard-solve >/dev/null 2>&1
start "'$CMC' tui v.db"
ok "database replay: opens the checked run" wait_for 'run 1 diehard-solve \| violation'
fp=$(screen | awk '$1 == 3 { print $NF; exit }')
keys / "$(echo "$fp" | cut -c1-8)" Enter
ok "database: / with a fingerprint prefix finds its state" wait_for '^state 3  depth'
keys '<' '<'
keys v Enter
ok "database replay: the counterexample opens" wait_for 'violation [0-9]+: invariant:NotSolved'
keys x
ok "database replay: re-executed against a fresh frontend, the violation reproduced" \
	wait_for '^replayed 6 of 6 steps - violation reproduced: invariant:NotSolved at step 6'
ok "database replay: the last step matched" wait_for '^[! ] +6 BigToSmall +[0-9a-f]{12} match'
keys q
wait_for 'EXITED=0' >/dev/null

# A writer killed mid-run: the database still opens and says incomplete.
start "'$CMC' tui --db killed.db bench-counters-small"
ok "kill: session opens" wait_for 'run 1 live'
keys r
ok "kill: searching" wait_for 'SEARCHING'
pid=$(tm display -p -t wb '#{pane_pid}')
cpid=$(pgrep -P "$pid" -x cmc | head -n 1)
ok "kill: found the workbench process" test -n "$cpid"
[ -n "$cpid" ] && kill -9 "$cpid"
ok "kill: it is gone" wait_for 'EXITED=137'
start "'$CMC' tui killed.db"
ok "kill: the database opens and says the run is incomplete" wait_for 'run 1 bench-counters-small \| interrupted \(INCOMPLETE\)'
keys q
wait_for 'EXITED=0' >/dev/null

# Colours where the terminal has them; NO_COLOR: attributes only.
colour_re=$(printf '\033')'\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)[;m]'
start "'$CMC' tui --db colour.db diehard"
ok "colour: session opens" wait_for 'run [0-9]+ live diehard'
tm capture-pane -e -p -t wb >"$T/esc"
ok "colour: the header is drawn in colour" grep -Eq "$colour_re" "$T/esc"
keys q
wait_for 'EXITED=0' >/dev/null
start "NO_COLOR=1 '$CMC' tui --db colour.db diehard"
ok "no colour: session opens" wait_for 'run [0-9]+ live diehard'
tm capture-pane -e -p -t wb >"$T/esc"
not_ok "no colour: no colour escape sequences on the screen" grep -Eq "$colour_re" "$T/esc"

# Switching to depth-first begins a new run; DieHard.tla has 16 distinct
# states whatever the order (TLC reports 16).
keys o
ok "order: o begins a new run searching depth-first" wait_for 'new run [0-9]+ searching depth-first'
ok "order: the header says dfs" wait_for 'live diehard dfs \|'
keys r
ok "order: the depth-first search finds the 16 states" wait_for 'search complete: 16 distinct states'
keys q
wait_for 'EXITED=0' >/dev/null
ok "order: the new run is stored depth-first and complete" \
	sh -c "'$CMC' runs --db colour.db --json | grep '\"order\": \"dfs\"' | grep -q '\"status\": \"complete\"'"

done_testing
