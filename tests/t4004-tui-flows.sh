#!/bin/sh
# t4004-tui-flows.sh — workbench flows the other t4 tests leave out: R (a
# search from the current state, in a new run: partial, stored as
# interrupted and resumable; the run it left stays as it was) and S (simulation, the same walks as `cmc simulate`); a
# process-mode counterexample replayed step by step forward and back; a
# replay that diverges because the target changed since the run was
# stored; the allocator's chunk map; SVG from the graph, allocator and
# raw-vs-canonical views; m/d in the compare view; a live hostile target
# whose replies never reach the terminal raw.  Also: what the engine says
# on stderr shows in the status line, never over the screen.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
SHARE=$CMC_TOP/share/examples
EX=$CMC_TOP/$B/examples

# leaks: no colour and no byte outside printable ASCII on the screen (as
# t4003; sessions that show target bytes run with NO_COLOR, so any colour
# would be the target's).
colour_re=$(printf '\033')'\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)[;m]'
leaks() {
	tm capture-pane -e -p -t wb >"$T/esc"
	! grep -Eq "$colour_re" "$T/esc" &&
		[ "$(tm capture-pane -p -t wb | LC_ALL=C tr -d '\12\40-\176' | wc -c | tr -d ' ')" = 0 ]
}
title() { tm display -p -t wb '#{pane_title}'; }
# svg_ok FILE: written, and XML (xmllint when there is one)
svg_ok() {
	test -s "$1" || return 1
	grep -q '<svg' "$1" || return 1
	if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$1"; fi
}
# down N: move the cursor N rows down; move FROM TO: from row FROM to TO
down() {
	i=0
	while [ "$i" -lt "$1" ]; do keys j; i=$((i + 1)); done
}
move() {
	i=$1
	while [ "$i" -lt "$2" ]; do keys j; i=$((i + 1)); done
	while [ "$i" -gt "$2" ]; do keys k; i=$((i - 1)); done
}

# ---- R and S on TCommit (34 states, as TLC counts) ---------------------------
# From "DecideAbort(r1)" nothing can commit: r2 and r3 each end working,
# prepared or aborted, 9 states, one of them the state itself.  R searches
# them in a new run, which holds the initial state too: 10 distinct.  The
# run it was pressed in keeps the 7 states of the hand expansion of state 0.
start "'$CMC' tui --db rs.db tcommit"
ok "R: the session opens" wait_for 'run 1 live tcommit .*\| 1 distinct'
keys Enter
ok "R: the initial state" wait_for '^state 0  depth 1  initial state'
# the model prints the state on the worker: wait for it, or a key that
# needs the worker is answered "busy"
ok "R: the model prints it" wait_for '^print  r1=working r2=working r3=working'
job e
ok "R: e expands it by hand: 3 prepares and 3 aborts" wait_for 'expanded state 0: 6 successors'
ok "R: the successors are listed" wait_for '^  DecideAbort\(r1\) +-> [0-9]+ \(discovered here\)'
row=$(screen | awk '/^  /{ n++ } /^  DecideAbort\(r1\) /{ print n - 1; exit }')
down "${row:-0}"
job Enter
ok "R: go to the state where r1 aborted" wait_for '^state [0-9]+  depth 2  from 0 by DecideAbort\(r1\)'
ok "R: r1 aborted, the others working" wait_for '^print  r1=aborted r2=working r3=working'
job R
ok "R: the search from this state explores what it reaches in a new run, and says it is partial" \
	wait_for '^search from state 1 done: 10 distinct states \(a partial run: u lists the others\)'
ok "R: the header shows the new run: 10 distinct states, an empty frontier" \
	wait_for 'run 2 live tcommit .*\| idle \| 10 distinct .* fr 0$'
ok "R: the state searched from is current, in the new run" \
	wait_for '^state 1  depth 2  from 0 by DecideAbort\(r1\)'
job r
ok "R: r afterwards has nothing left to explore and still says partial" \
	wait_for '^search from state 1 done: 10 distinct states \(a partial run'

"$CMC" simulate --json tcommit >sim.json 2>/dev/null
steps=$(json_get sim.json transitions)
job S
ok "S: 100 walks, the same steps as cmc simulate with the same seed ($steps)" \
	wait_for "^simulation: 100 walks, $steps steps, no violation"
quit

# ---- an action whose successors carry their own labels ---------------------
# TCommit's Prepare yields "Prepare(r1)".."Prepare(r3)": the state view offers
# the action by name until taken; taking it by name yields all three.
start "'$CMC' tui --db prep.db tcommit"
ok "labelled: the session opens" wait_for 'run 1 live tcommit .*\| 1 distinct'
keys Enter
ok "labelled: the initial state" wait_for '^state 0  depth 1  initial state'
ok "labelled: the model prints it" wait_for '^print  r1=working r2=working r3=working'
ok "labelled: Prepare is offered by its name" wait_for '^  Prepare +\(not taken yet\)'
row=$(screen | awk '/^  /{ n++ } /^  Prepare +\(not taken yet\)/{ print n - 1; exit }')
down "${row:-0}"
job Enter
ok "labelled: taking Prepare by name reaches a state" wait_for '^Prepare: state 0 -> [0-9]+'
ok "labelled: all three joined the graph" wait_for '\| 4 distinct '
job b
ok "labelled: back at the initial state" wait_for '^state 0  depth 1  initial state'
ok "labelled: its three labelled successors are listed" wait_for '^  Prepare\(r3\) +-> [0-9]+'
ok "labelled: ... and Prepare is no longer offered as not taken" \
	sh -c "! grep -Eq '^  Prepare +\(not taken yet\)' '$T/screen'"
quit
"$CMC" runs --db rs.db --json >rs.json 2>&1
is "R: both runs are stored as interrupted, not complete" \
	"$(grep -c '"status": "interrupted"' rs.json)" 2
"$CMC" show --db rs.db --run 1 6 >show1.out 2>&1
ok "R: the run R left keeps the states of the hand expansion" grep -q 'DecideAbort' show1.out
"$CMC" check --db rs.db --resume 2 --json tcommit >resume.json 2>/dev/null
is "R: resuming the partial run explores all 34 states" "$(json_get resume.json distinct)" 34

# S with violations: every walk goes on past them (keep going), as
# `cmc simulate --keep-going` does.
"$CMC" simulate --json --keep-going diehard-solve >simv.json 2>/dev/null
steps=$(json_get simv.json transitions)
nv=$(grep -o '"property"' simv.json | wc -l | tr -d ' ')
start "'$CMC' tui --db sv.db diehard-solve"
ok "S: the session opens" wait_for 'run 1 live diehard-solve'
job S
ok "S: walks, steps and violations as cmc simulate --keep-going ($steps, $nv)" \
	wait_for "^simulation: 100 walks, $steps steps, $nv violations; first: invariant:NotSolved"
ok "S: the simulation stores no state in the run" wait_for '\| idle \| 1 distinct'
quit

# ---- a process-mode counterexample, replayed forward and back -----------------
if [ ! -x "$EX/heapbugs-doublefree" ]; then
	skip "replay of a heapbugs counterexample" "$B/examples/heapbugs-doublefree is not built"
else
	# Through a short relative path: the warning names the scenario, and
	# the status line (80 columns) must hold it whole wherever the
	# checkout lives.
	ln -s "$SHARE/heapbugs" hb
	start "'$CMC' tui --db df.db hb/doublefree.scn"
	ok "stderr: the engine's warning shows in the status line" \
		wait_for '^cmc: .*doublefree\.scn: no canonical records: fa'
	ok "stderr: ... and nowhere else on the screen" \
		test "$(grep -c 'no canonical records' "$T/screen")" = 1
	ok "stderr: the status line is the last row" \
		sh -c "tail -n 1 '$T/screen' | grep -q 'no canonical records'"
	job r
	ok "replay: the search stops at the double free" wait_for 'search stopped: 1 violation'
	keys v
	ok "replay: the violation is the allocator's INV-15" wait_for '^! +1 alloc +[0-9]+ +3 +allocator invariant INV-15'
	job Enter
	ok "replay: Enter opens the counterexample" wait_for '^violation 1: alloc allocator invariant INV-15'
	ok "replay: nothing re-executed yet" wait_for '^replayed 0 of 3 steps$'
	job l
	ok "replay: l re-executes one step" wait_for '^replayed 1 of 3 steps$'
	ok "replay: step 1 matched, with the target's reply" wait_for '^ +1 ADD +[0-9a-f]{12} match +OK\\n$'
	job l
	ok "replay: l again: two steps" wait_for '^replayed 2 of 3 steps$'
	ok "replay: step 2 matched" wait_for '^ +2 DROP +[0-9a-f]{12} match +OK\\n$'
	ok "replay: nothing fails yet, every fingerprint matched, says the status line" \
		wait_for '^replayed 2 of 3 steps: no property fails yet, every fingerprint matched'
	job h
	ok "replay: h steps back to one step" wait_for '^replayed 1 of 3 steps$'
	ok "replay: step 2 is no longer re-executed" wait_for '^ +2 DROP +[0-9a-f]{12}$'
	ok "replay: step 1 still matched" wait_for '^ +1 ADD +[0-9a-f]{12} match'
	job h
	ok "replay: h again: back at the initial state" wait_for '^replayed 0 of 3 steps$'
	not_ok "replay: no step shows a result" grep -Eq '^ +[0-9]+ .* (match|DIFFERS)' "$T/screen"
	job h
	ok "replay: h at the start stays there" wait_for '^replayed 0 of 3 steps$'
	# one key at a time: a key that comes while the worker replays is
	# answered "busy"
	job Right
	ok "replay: Right re-executes a step too" wait_for '^replayed 1 of 3 steps$'
	job Right
	wait_for '^replayed 2 of 3 steps$' >/dev/null
	job Right
	ok "replay: Right three times: the whole counterexample, the violation reproduced" \
		wait_for '^replayed 3 of 3 steps - violation reproduced: alloc at step 3 \(FLUSH\)'
	ok "replay: the double free step matched, fails alloc and shows its reply" \
		wait_for '^! +3 FLUSH +[0-9a-f]{12} match +\[alloc\] OK\\n$'
	ok "replay: the status line says the same" \
		wait_for '^replayed 3 of 3 steps: violation reproduced: alloc at step 3 \(FLUSH\)'
	job l
	ok "replay: l at the end says so" wait_for '^at the end of the counterexample \(3 steps\)'
	job Left
	ok "replay: Left steps back too" wait_for '^replayed 2 of 3 steps$'

	# the violating state's allocator: the failing invariant and its chunk
	keys G Enter
	ok "chunk map: Enter on the last step opens its state" wait_for '^state [0-9]+  depth 4  from [0-9]+ by FLUSH  status VIOLATION'
	wait_for '^print  ' >/dev/null
	keys a
	ok "chunk map: the allocator view says the invariants fail" wait_for '^allocator at state [0-9]+: INVARIANTS FAIL'
	ok "chunk map: INV-15 names the chunk and slot" wait_for '^! FAIL INV-15 no double free -> chunk 0 slot [0-9]+, byte \+0x'
	ok "chunk map: the chunk it points at is marked *" \
		wait_for '^  \*0 +unit 0 +class +[0-9]+ B live +1/[0-9]+ #\.+'
	job w
	ok "render: w in the allocator view writes the heap as SVG" wait_for "^wrote $(pwd -P)/cmc-svg/cmc-heap-1-[0-9]+\\.svg"
	f=$(sed -n 's/^wrote \([^:]*cmc-heap-1-[0-9]*\.svg\).*/\1/p' "$T/screen")
	ok "render: the heap SVG is XML" svg_ok "$f"
	quit
	ok "stderr: after leaving, the engine's warning is on the real stderr" \
		sh -c "tmux -L '$SOCK' capture-pane -J -p -t wb |
			grep -q '^cmc: .*doublefree\.scn: no canonical records: falling back to raw\$'"
fi

# ---- a replay that diverges ------------------------------------------------------
# The stored run's target is chosen by an environment variable in the
# scenario; browsing the database re-opens the scenario with the
# environment of the workbench.  Mode "calm" (hostile.c: no such mode)
# answers evil with "OK unknown mode" and the same record as before; mode
# "escapes" answers with escape sequences and writes them as its record.
if [ ! -x "$EX/hostile/hostile" ]; then
	skip "a diverging replay" "$B/examples/hostile/hostile is not built"
else
	cat >div.scn <<'SCN'
target ${CMC_BIN}/examples/hostile/hostile ${T4004_MODE}
op a "a\n" once
op evil "evil\n" once
property reply * "OK"
timeout 500
SCN
	T4004_MODE=calm "$CMC" check --db div.db div.scn >div.out 2>&1
	is "diverge: the calm run stores a violation on evil" "$?" 1
	start "T4004_MODE=calm '$CMC' tui div.db"
	ok "diverge: the run opens" wait_for 'run 1 div\.scn \| violation'
	keys v Enter
	ok "diverge: the counterexample opens" wait_for '^violation 1: reply:\* reply to evil does not match "OK"'
	job x
	ok "diverge: against the same target the violation is reproduced" \
		wait_for '^replayed 2 of 2 steps - violation reproduced: reply:\* at step 2 \(evil\)'
	ok "diverge: ... evil matches, fails reply:* and shows its reply" \
		wait_for '^! +2 evil +[0-9a-f]{12} match +\[reply:\*\] OK unknown mode\\n'
	quit
	start "T4004_MODE=escapes NO_COLOR=1 '$CMC' tui div.db"
	ok "diverge: the run opens again" wait_for 'run 1 div\.scn \| violation'
	t0=$(title)
	keys v Enter
	ok "diverge: the counterexample opens" wait_for '^replayed 0 of 2 steps$'
	job l
	ok "diverge: step 1 still matches" wait_for '^ +1 a +[0-9a-f]{12} match +OK\\n$'
	job l
	ok "diverge: the replay names the step where the target changed" \
		wait_for '^replayed 2 of 2 steps - DIVERGED at step 2 \(evil\); violation reproduced: reply'
	ok "diverge: the step shows the fingerprint reached instead" \
		wait_for '^! +2 evil +([0-9a-f]{12}) DIFFERS [0-9a-f]{12} \[reply:\*\] OK\\x1b\]0;p'
	ok "diverge: the status line says the violation came, but the target did not repeat itself" \
		wait_for '^replayed 2 of 2 steps: violation reproduced: reply:\* at step 2 \(evil\)'
	ok "diverge: the changed reply reaches the terminal escaped only" leaks
	is "diverge: the reply's OSC sequence did not set the pane title" "$(title)" "$t0"
	job h
	ok "diverge: h steps back before the divergence" wait_for '^replayed 1 of 2 steps$'
	not_ok "diverge: ... and it is no longer reported" grep -q 'DIVERGED' "$T/screen"
	quit
fi

# ---- list.scn: chunk map, SVG of the graph and of raw vs canonical, m/d ---------
if [ ! -x "$EX/list-emit" ]; then
	skip "chunk map, SVG and compare on the list example" "$B/examples/list-emit is not built"
else
	start "'$CMC' tui --db list.db --hash both '$SHARE/list/list.scn'"
	ok "list: the live target reaches its initial state" wait_for 'live .*list\.scn .*\| 1 distinct'
	keys Enter
	ok "list: the operations" wait_for '^  INS 1 +\(not taken yet\)'
	wait_for '^print  ' >/dev/null
	job Enter
	ok "list: INS 1" wait_for '^state 1  depth 2  from 0 by INS 1'
	wait_for '^print  ' >/dev/null
	keys a
	ok "chunk map: the allocator view" wait_for '^allocator at state 1: every checked invariant holds'
	ok "chunk map: one class chunk, one slot live (the node of key 1)" \
		wait_for '^  k0 +unit 0 +class +[0-9]+ B live +1/[0-9]+ #\.+'
	keys Escape
	ok "list: back in the state" wait_for '^  INS 2 +\(not taken yet\)'
	job j Enter
	ok "list: INS 2 after INS 1" wait_for '^state [0-9]+  depth 3  from 1 by INS 2'
	keys a
	ok "chunk map: two slots live, side by side" \
		wait_for '^  k0 +unit 0 +class +[0-9]+ B live +2/[0-9]+ ##\.+'
	keys Escape
	ok "list: back in state 2" wait_for '^state [0-9]+  depth 3  from 1 by INS 2'

	job r
	ok "list: the whole space" wait_for 'search complete: 16 distinct states'
	keys / 1 Enter
	ok "list: back to state 1" wait_for '^state 1  depth 2'
	wait_for '^print  ' >/dev/null
	keys n
	ok "graph: the neighbourhood of state 1" wait_for '^neighbourhood of state 1: 1 edge in, 2 out'
	ok "graph: its edge in from the initial state" wait_for '^ +0 --INS 1--> \[1\]  \(tree edge\)'
	job w
	ok "render: w in the graph view writes the neighbourhood as SVG" \
		wait_for "^wrote $(pwd -P)/cmc-svg/cmc-run-1-state-1\\.svg: [0-9]+ states"
	ok "render: the neighbourhood SVG is XML" svg_ok cmc-svg/cmc-run-1-state-1.svg

	keys c
	ok "compare: 16 raw states in 8 canonical ones" \
		wait_for '^16 states: 16 distinct raw, 8 distinct canonical'
	ok "compare: nothing marked yet" wait_for '^marked A=- B=-'
	job w
	ok "render: w in the compare view writes the raw-vs-canonical clusters" \
		wait_for "^wrote $(pwd -P)/cmc-svg/cmc-run-1-raw-vs-canonical\\.svg: 16 states"
	ok "render: the clusters SVG is XML" svg_ok cmc-svg/cmc-run-1-raw-vs-canonical.svg
	if svg_ok cmc-svg/cmc-run-1-raw-vs-canonical.svg; then
		is "render: one cluster per canonical state" \
			"$(grep -c 'class="cluster"' cmc-svg/cmc-run-1-raw-vs-canonical.svg)" 8
	fi
	# the cursor is on the first row, a canonical state
	keys m
	ok "compare: m on a canonical row says what to mark" wait_for '^select a raw variant row to mark'
	keys d
	ok "compare: d with nothing marked says so" wait_for '^mark two raw variants first \(m\)'
	screen >"$T/cmp"
	# list rows start on the fourth screen line; two raw variants of
	# different canonical states: of {1} and of {1,2,3}
	ra=$(awk 'NR >= 4 && / raw [0-9a-f]+  state 1$/ { print NR - 4; exit }' "$T/cmp")
	big=$(awk 'NR >= 4 && /6 states, 6 raw variants/ { print NR - 4; exit }' "$T/cmp")
	ok "compare: found the rows to mark ($ra, $big)" test -n "$ra" -a -n "$big"
	move 0 "${ra:-0}"
	keys m
	ok "compare: m marks the variant as A" wait_for '^marked A=1 B=-'
	ok "compare: the marked row shows *" wait_for '^    \* raw [0-9a-f]{12}  state 1$'
	move "${ra:-0}" $((${big:-0} + 1))
	keys m
	ok "compare: m on a second variant marks B" wait_for '^marked A=1 B=[0-9]+ '
	b=$(sed -n 's/^marked A=1 B=\([0-9]*\) .*/\1/p' "$T/screen")
	keys d
	ok "compare: d diffs A and B in hex" wait_for "^raw snapshot of state 1 \\(A\\) against state $b \\(B\\)"
	ok "compare: the two snapshots differ" wait_for '^A [0-9]+ bytes, B [0-9]+ bytes: [1-9][0-9]* bytes? differs?'
	keys Escape
	ok "compare: Esc back, the marks are kept" wait_for "^marked A=1 B=$b "
	keys m
	ok "compare: m again replaces A" wait_for "^marked A=$b B=$b "
	quit
fi

# ---- a live hostile target ---------------------------------------------------
if [ ! -x "$EX/hostile/hostile" ]; then
	skip "a live hostile target" "$B/examples/hostile/hostile is not built"
else
	start "NO_COLOR=1 '$CMC' tui --db esc.db '$SHARE/hostile/escapes.scn'"
	ok "hostile: the session opens" wait_for 'run 1 live .*escapes\.scn'
	t0=$(title)
	job r
	ok "hostile: the search stops at the reply full of escapes" wait_for 'search stopped: 1 violation'
	ok "hostile: the states are listed" wait_for '^! +3 +3 +1 +evil +VIOLATION'
	ok "hostile: the list reaches the terminal escaped only" leaks
	keys G Enter
	ok "hostile: the violating state opens" wait_for '^state 3  depth 3  from 1 by evil  status VIOLATION'
	wait_for '^print  ' >/dev/null
	ok "hostile: the reply is shown in hex" wait_for '^reply  40 bytes: 4f4b1b5d303b70776e6564071b5b33316d'
	ok "hostile: the canonical record too" wait_for '^canon  40 bytes: 4f4b1b5d303b70776e6564071b5b33316d'
	ok "hostile: the state reaches the terminal escaped only" leaks
	is "hostile: the pane title is unchanged" "$(title)" "$t0"
	keys n
	ok "hostile: the graph view" wait_for '^(! )?neighbourhood of state 3'
	ok "hostile: the graph reaches the terminal escaped only" leaks
	keys v Enter
	ok "hostile: the counterexample opens" wait_for '^replayed 0 of 2 steps$'
	job x
	ok "hostile: the counterexample replays on the live target, violation reproduced" \
		wait_for '^replayed 2 of 2 steps - violation reproduced: '
	ok "hostile: the reply column is escaped" wait_for '^! +2 evil +[0-9a-f]{12} match +\[[^]]*\] OK\\x1b\]0;p'
	ok "hostile: the replay reaches the terminal escaped only" leaks
	is "hostile: the pane title is still unchanged" "$(title)" "$t0"
	not_ok "hostile: ... and not the target's" test "$(title)" = pwned
	keys q
	ok "hostile: q leaves" wait_for 'EXITED=0'
fi

done_testing
