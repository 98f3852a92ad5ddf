#!/bin/sh
# t4005-tui-truth.sh — what the workbench says is true: the levels view
# after steps by hand lists each state under its own depth; a once-only
# operation already taken on the path says so; a stored state the search
# never expanded says so, not "operations (0)"; a counterexample whose
# trace the run could not rebuild (a nondeterministic target) says where
# the target did not repeat itself and never claims a match; help groups
# the keys for the view it is opened from, explains the labels and opens
# at its top; the hex diff opens centred on its first difference; R
# searches in a new run and leaves the one it started from whole.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
SHARE=$CMC_TOP/share/examples
EX=$CMC_TOP/$B/examples
HELPERS=$CMC_TOP/$B/tests-helpers


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
keys k
ok "live: the state view's hints offer e and taking an operation" \
	wait_for '^\[state @0\] \?:keys q:quit +Enter:take op e:expand'
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

# ---- operations that cannot be taken ---------------------------------------------
# kv: two once-only SETs and an end of input.  After SET a, SET a is used
# up on this path; after EOF nothing may follow.  The rows say so, and
# Enter says why instead of trying.
# row LABEL: the index of the operation row LABEL among the state's rows
row() { screen | awk -v l="$1" '/^  /{ n++ } index($0, "  " l " ") == 1 { print n - 1; exit }'; }
down() { i=0; while [ "$i" -lt "$1" ]; do keys j; i=$((i + 1)); done; }
if [ ! -x "$EX/kv" ]; then
	skip "once-only and eof operations" "$B/examples/kv is not built"
else
	printf '%s\n' "target $EX/kv" 'op "SET a" "SET a 1\n" once' 'op "SET b" "SET b 2\n" once' \
		'op EOF eof' >kv.scn
	start "'$CMC' tui --db kv.db kv.scn"
	ok "once: the session opens" wait_for 'live .*kv\.scn .*\| 1 distinct'
	keys Enter
	ok "once: SET a is offered in the initial state" wait_for '^  SET a +\(not taken yet\)'
	idle
	job Enter
	ok "once: SET a taken by hand" wait_for '^state 1  depth 2  from 0 by SET a'
	ok "once: SET a is used up on this path, and says where" \
		wait_for '^  SET a +\(once only: taken at step 1 of this path\)'
	not_ok "once: ... not offered as not taken yet" grep -Eq '^  SET a +\(not taken yet\)' "$T/screen"
	idle
	keys Enter
	ok "once: Enter on it says why it cannot be taken, and does not try" \
		wait_for '^SET a cannot be taken from state 1: once only: taken at step 1 of this path'
	not_ok "once: ... no 'not enabled' from a try" grep -q 'is not enabled' "$T/screen"
	down "$(row EOF)"
	job Enter
	ok "eof: EOF taken by hand" wait_for '^state 2  depth 3  from 1 by EOF'
	ok "eof: after it SET b cannot be taken: the input is closed" \
		wait_for '^  SET b +\(not enabled: step 2 \(EOF\) closed the input\)'
	quit
fi

# A model's action whose guard does not hold: tried once, the row says so.
start "'$CMC' tui --db tc.db tcommit"
ok "guard: the session opens" wait_for 'run 1 live tcommit .*\| 1 distinct'
keys Enter
ok "guard: the initial state" wait_for '^print  r1=working r2=working r3=working'
ok "guard: DecideCommit is offered" wait_for '^  DecideCommit +\(not taken yet\)'
down "$(row DecideCommit)"
job Enter
ok "guard: nothing commits before every RM prepared: not enabled" \
	wait_for '^DecideCommit is not enabled in state 0: the model gives no successor'
ok "guard: the row says so now" wait_for '^  DecideCommit +\(not enabled here \(tried\)\)'
quit

# ---- a stored state never expanded: its operations are unknown, not none -----------
# diehard-solve stops at its violation (state 9 is never expanded), and
# diehard bounded to depth 2 leaves its depth-2 states unexpanded: the
# state view says so, as `cmc show` does, not "operations (0)".  A state
# whose target died has none, and says why.
"$CMC" check --db ne.db diehard-solve >/dev/null 2>&1
"$CMC" check --db ne.db --max-depth 2 diehard >/dev/null 2>&1
v=$("$CMC" trace --db ne.db --run 1 --json | sed -n 's/.*"state": \([0-9]*\), "length".*/\1/p' | head -n 1)
start "'$CMC' tui --run 1 ne.db"
ok "unexpanded: the stopped run opens" wait_for 'run 1 diehard-solve \| violation'
keys / "${v:-0}" Enter
ok "unexpanded: the violating state ($v)" wait_for "^state ${v:-0}  depth [0-9]+  from [0-9]+ by .*status VIOLATION"
ok "unexpanded: its operations are not known: the search stopped before it" \
	wait_for '^operations: not expanded \(the search ended before it reached this state'
not_ok "unexpanded: ... never 'operations (0)'" grep -q '^operations (0)' "$T/screen"
keys / 0 Enter
ok "unexpanded: the initial state lists its stored successors" wait_for '^operations \(6\)  Enter: go to the successor'
quit
start "'$CMC' tui --run 2 ne.db"
ok "unexpanded: the bounded run opens, its title says bounded, not complete" wait_for 'run 2 diehard \| bounded \|'
keys / 1 Enter
ok "unexpanded: a state past the bound" wait_for '^state 1  depth 2  from 0 '
ok "unexpanded: ... not expanded either" wait_for '^operations: not expanded'
# Browsing a database there is no target: the hints offer only keys that
# work here (Enter goes to a successor; e, r and taking an operation need
# a live target).
ok "browse: the state view's hints say what Enter does here" \
	wait_for '^\[state @1\] \?:keys q:quit +Enter:go to its successor b:back'
not_ok "browse: ... and offer no e:expand" grep -q 'e:expand' "$T/screen"
keys 1
ok "browse: the list view's hints" wait_for '^\[states by discovery @1\] \?:keys q:quit +Enter:open v:violations'
not_ok "browse: ... offer no r:run" grep -q 'r:run' "$T/screen"
keys u
ok "bounded: the runs view says run 2 is bounded" wait_for '^ \* +2 model +diehard +bounded '
ok "bounded: ... and run 1 a violation" grep -Eq '^! +1 model +diehard-solve +violation ' "$T/screen"
quit
if [ -x "$HELPERS/proctarget" ]; then
	printf '%s\n' "target $HELPERS/proctarget" 'op inc "inc\n"' 'op crash "crash\n"' 'hash raw' 'depth 3' >cr.scn
	"$CMC" check --db cr.db cr.scn >/dev/null 2>&1
	start "'$CMC' tui cr.db"
	ok "ended: the run with a crash opens" wait_for 'run 1 cr\.scn \| violation'
	keys / 1 Enter
	ok "ended: the state whose target died" wait_for '^signal the target died on signal 11'
	ok "ended: no operation follows, and it says why" wait_for '^operations: none \(the target died\)'
	quit
fi

# ---- a counterexample the run could not rebuild -----------------------------------
# proctarget's roll keeps a number from the processor's cycle counter in
# its heap: no two runs of the path agree, so the run cannot rebuild the
# trace of the violation that follows it (rolled answers ERR after a
# roll).  The violation is stored without a trace.
if [ ! -x "$HELPERS/proctarget" ]; then
	skip "a counterexample the run could not rebuild" "$B/tests-helpers/proctarget is not built"
else
	printf '%s\n' "target $HELPERS/proctarget" 'op roll "roll\n" once' 'op rolled "rolled\n" once' \
		'property reply * "OK"' >nd.scn
	"$CMC" check --db nd.db nd.scn >nd.out 2>&1
	is "nondeterministic: the run finds the violation" "$?" 1
	start "'$CMC' tui nd.db"
	ok "lost: the run opens" wait_for 'run 1 nd\.scn \| violation'
	keys v Enter
	ok "lost: the counterexample says it was not rebuilt, and why" \
		wait_for '^NOT REBUILT: the target did not repeat itself when the run re-ran this trace\.'
	ok "lost: the stored path stands in for it: two steps" wait_for '^replayed 0 of 2 steps$'
	not_ok "lost: never 0 of 0 steps" grep -q 'of 0 steps' "$T/screen"
	ok "lost: the path's steps, as stored" wait_for '^ +2 rolled +[0-9a-f]{12}$'
	job l
	ok "lost: one step replayed: the target did not repeat itself at step 1, and says so" \
		wait_for '^replayed 1 of 2 steps - DIVERGED at step 1 \(roll\); did not reproduce'
	ok "lost: ... step 1 reached another state" wait_for '^ +1 roll +[0-9a-f]{12} DIFFERS [0-9a-f]{12} OK'
	not_ok "lost: ... and nothing claims a match" grep -Eq 'matched|[0-9a-f]{12} match' "$T/screen"
	job x
	ok "lost: x replays the whole path: the violation comes, after the divergence" \
		wait_for '^replayed 2 of 2 steps - DIVERGED at step 1 \(roll\); violation reproduced: reply'
	not_ok "lost: ... still no match claimed" grep -Eq 'matched|[0-9a-f]{12} match' "$T/screen"
	quit
fi

# ---- R: a new run, the one it left stays whole --------------------------------------
# diehard: 16 distinct states.  After the whole search, R from state 5
# searches in run 2; run 1 stays complete, listed and browsable.
start "'$CMC' tui --db r.db diehard"
ok "R: the session opens" wait_for 'run 1 live diehard .*1 distinct'
job r
ok "R: the whole space" wait_for '^search complete: 16 distinct states'
keys / 5 Enter
ok "R: state 5" wait_for '^state 5  depth'
idle
job R
ok "R: a new run searches from the state" wait_for 'run 2 live diehard .*\| idle \|'
ok "R: ... and says where it came from and that it is partial" \
	wait_for '^search from state [0-9]+ done: [0-9]+ distinct states \(a partial run: u lists the others\)'
keys u
ok "R: the runs view lists the run R left, complete" wait_for '^ +1 model +diehard +complete +16 '
ok "R: ... and the new one, live, marked as the run shown" wait_for '^ \* +2 model +diehard +running '
keys g Enter
ok "R: the first run browses whole: complete, 16 states" wait_for 'run 1 diehard \| complete \| 16 states'
quit
"$CMC" runs --db r.db --json >r.json 2>&1
is "R: run 1 is stored complete" "$(json_get r.json status)" complete
is "R: run 2, partial, is stored interrupted" "$(grep -c '"status": "interrupted"' r.json)" 1
ok "R: run 2 says where it comes from" grep -q 'R: from state 5 of run 1' r.json

# ---- help: grouped for the view, from its top; the hex diff centred ----------------
# line PATTERN: the screen line (1-based) of the first row matching PATTERN
line() { screen | grep -nE -- "$1" | head -n 1 | cut -d: -f1; }
# seek PATTERN KEY: press KEY (j or k) until a row matches (at most 60 times)
seek() { press_until "$1" "$2" 60 /dev/null; }
start "'$CMC' tui --db help.db diehard"
ok "help: the session opens" wait_for 'run 1 live diehard .*1 distinct'
keys '?'
ok "help: says which view it is for" wait_for '^keys for the view states by discovery'
is "help: the keys of every view come first, after the two lines of the marks' legend" "$(line '^-- ')" 5
ok "help: n opens the graph here" wait_for '^n +the neighbourhood graph'
keys G
ok "help: G scrolls to its end" wait_for '^Enter +browse the selected run'
ok "help: the labels are explained, @N among them" seek '^@N +the current state' k
keys Escape
ok "help: Esc back" wait_for '^\[states by discovery'
keys '?'
ok "help: reopened, it starts at its top again" wait_for '^-- keys in every view'
is "help: ... on the first row" "$(line '^-- keys in every view')" 5
quit
# Browsing the database, the keys that act only on a live search are
# listed apart, last, not among the keys that work here.
start "'$CMC' tui help.db"
ok "help browsing: the database opens" wait_for 'run 1 diehard \|'
keys '?'
wait_for '^-- keys in every view' >/dev/null
: >help-top
ok "help browsing: scrolled to the keys of this view" \
	press_until '^-- keys of this view' j 80 help-top
ok "help browsing: r is not among the keys of every view" \
	sh -c "! sed '/^-- keys of this view/q' help-top | grep -Eq '^r +run the search'"
keys G
ok "help browsing: the live session's keys come last, under their heading" \
	wait_for '^-- keys of a live session'
h=$(line '^-- keys of a live session')
r=$(line '^r +run the search')
ok "help browsing: ... r among them ($h < $r)" test "${h:-0}" -gt 0 -a "${r:-0}" -gt "${h:-0}"
quit

if [ ! -x "$EX/list-emit" ]; then
	skip "help in the hex view and the hex diff" "$B/examples/list-emit is not built"
else
	start "'$CMC' tui --db hex.db --hash both '$SHARE/list/list.scn'"
	ok "hex: the session opens" wait_for 'live .*list\.scn .*\| 1 distinct'
	job r
	ok "hex: the whole space" wait_for 'search complete: 16 distinct states'
	keys c
	ok "hex: 16 raw states in 8 canonical ones" wait_for '^16 states: 16 distinct raw, 8 distinct canonical'
	r=$(screen | awk 'NR >= 4 && /2 raw variant/ { print NR - 4; exit }')
	i=0
	while [ "$i" -lt "${r:-0}" ]; do keys j; i=$((i + 1)); done
	keys Enter
	ok "hex: the two raw variants of a canonical state" wait_for '[1-9][0-9]* bytes? differs?, first at offset 0x'
	off=$(sed -n 's/.*first at offset 0x\([0-9a-f]*\).*/\1/p' "$T/screen")
	row=$(printf '%08x' $(( (0x${off:-0} / 8) * 8 )))
	ok "hex: it opens on the first differing row ($row)" wait_for "^$row<"
	# body rows 5..23 of the screen: the middle one is 14
	at=$(line '^[0-9a-f]{8}<')
	if [ $(( 0x${off:-0} / 8 )) -ge 9 ]; then
		ok "hex: ... in the middle of the window (line $at), rows before and after it" \
			test "${at:-0}" -ge 13 -a "${at:-0}" -le 15
	else
		skip "hex: the first differing row in the middle" "it is among the first rows"
	fi
	keys '?'
	ok "help: for the hex view" wait_for '^keys for the view hex diff'
	screen >"$T/help1"
	not_ok "help: n is not the graph here" grep -Eq '^n +the neighbourhood graph' "$T/help1"
	ok "help: the keys of every view, then this view's: n is the next differing row" \
		seek '^n +next differing row' j
	screen >"$T/help2"
	ok "help: ... under this view's heading" grep -q '^-- keys of this view: hex diff' "$T/help2"
	quit
fi

# ---- a replay of a target without canonical records: the verdict, not stderr ----
# doublefree writes no canonical records: under the default hash auto the
# engine says "no canonical records: falling back to raw" on stderr, as
# share/scenario.md has it, each time the target is started again.  In the
# workbench that is a note, shown at most once and never in the error
# colour, and x leaves the replay's verdict on the status line.
if [ ! -x "$EX/heapbugs-doublefree" ]; then
	skip "replay: the verdict over the engine's note" "no $EX/heapbugs-doublefree (make builds it)"
else
	start "'$CMC' tui --db dfl.db '$SHARE/heapbugs/doublefree.scn'"
	# (the note wraps over two rows, where depends on the path's length)
	ok "fallback: live, the engine's note is shown" wait_for 'no canonical|falling back'
	tm capture-pane -e -p -t wb | grep -aE 'no canonical|falling back|back to raw' >note.esc
	ok "fallback: ... as a note (black on white)" grep -Eq '\[([0-9;]*;)?47(;[0-9;]*)?m' note.esc
	not_ok "fallback: ... not as an error (white on red)" grep -Eq '\[([0-9;]*;)?41(;[0-9;]*)?m' note.esc
	quit
	"$CMC" check --db df.db "$SHARE/heapbugs/doublefree.scn" >/dev/null 2>df.err
	ok "fallback: cmc check says it on stderr" grep -q 'no canonical records: falling back to raw' df.err
	start "'$CMC' tui df.db 2>wb.err"
	ok "fallback: the run opens" wait_for 'run 1 .*doublefree\.scn \| violation'
	keys v
	ok "fallback: the violations list" wait_for '^violations > '
	keys Enter
	ok "fallback: the counterexample" wait_for '^counterexample > '
	job x
	ok "fallback: x replays it, and the verdict stays on the status line" \
		wait_for '^replayed [0-9]+ of [0-9]+ steps: violation reproduced: alloc'
	not_ok "fallback: ... not the engine's note over it" grep -q 'falling back to raw' "$T/screen"
	quit
	ok "fallback: the note still reaches stderr when the screen is given back" \
		grep -q 'no canonical records: falling back to raw' wb.err
fi

done_testing
