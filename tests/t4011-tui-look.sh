#!/bin/sh
# t4010-tui-look.sh — every workbench view (WB_VIEWS in tui/wb/wb.h) as a
# user sees it at 80x24 and at 200x60, over one database: nothing that
# matters is cut (names, counts, messages, key hints), a violation stands
# out with a text mark (!) when there is no colour (NO_COLOR=1,
# TERM=vt100) and in colour otherwise, also when it is the selected row,
# and so does a fault (X, magenta),
# and the title line says where you are (view > run).
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
EX=$CMC_TOP/share/examples
if [ ! -x "$CMC_TOP/$B/examples/list-emit" ]; then
	skip "workbench views" "$B/examples/list-emit is not built"
	done_testing
	exit
fi
# One database for every view: run 1 the list seed with raw and canonical
# fingerprints (compare, hex), run 2 its buggy sibling in the same folder
# (two names that differ only by the file name), run 3 a double free (a
# violation whose message is longer than a row, the allocator view).
(cd "$T" && "$CMC" check --hash both "$EX/list/list.scn" && "$CMC" check "$EX/list/list-bug.scn" ;
 "$CMC" check "$EX/heapbugs/doublefree.scn") >"$T/check.out" 2>&1
ok "setup: three runs stored" sh -c "'$CMC' runs --db '$T/cmc.db' | grep -c '^[0-9]' | grep -qx 3"

# start_at W H CMD: like start, in a W x H pane.
start_at() {
	w=$1 h=$2
	shift 2
	tm kill-server >/dev/null 2>&1
	N=$((N + 1)) SOCK=cmc-test-$$-$N
	tm new-session -d -x "$w" -y "$h" -s wb \
		"cd '$T' && $*; st=\$?; printf '\\030\\n'; echo EXITED=\$st; sleep 600"
}
# status_has PATTERN: the last row of the screen (the status line) matches.
status_has() { screen | sed -n '$p' | grep -Eq -- "$1"; }
# joined: the screen's rows as one line, runs of spaces squeezed (text
# wrapped over rows reads whole).
joined() { screen | tr '\n' ' ' | tr -s ' '; }
has_text() { joined | grep -Fq -- "$1"; }
# esc_row PATTERN: the first row of the screen with its escapes
# (capture-pane -e) whose text matches PATTERN.
esc_row() { tm capture-pane -e -p -t wb | grep -a -- "$1" | head -n 1; }

views() { # SIZE
	s=$1
	keys 1
	ok "$s list: the title says run > view" wait_for '^states by discovery > run 3 .*doublefree\.scn'
	ok "$s list: the title keeps the counts" grep -Eq '^states by discovery > run 3 .*\| violation \| 10 states' "$T/screen"
	ok "$s list: ... the depth too: the folder is elided first" grep -Eq '^states by discovery > run 3 .*\| 10 states.*, depth [0-9]+$' "$T/screen"
	ok "$s list: the violating state is marked !" grep -Eq '^! +9 +4 +4 +FLUSH +VIOLATION' "$T/screen"
	ok "$s list: the key for violations is in the status line, uncut" status_has ' v:violations( |$)'
	keys 3
	ok "$s tree: title and root" wait_for '^shortest-trace tree > run 3 '
	ok "$s tree: the initial state" grep -Eq '^\+ 0 \(initial\)' "$T/screen"
	keys 2 G
	ok "$s levels: title" wait_for '^states by depth > run 3 '
	ok "$s levels: level 4's violating state is marked !" wait_for '\| ! +9 +4 +FLUSH +VIOLATION'
	keys 1 G Enter
	ok "$s state: the violating state whole" wait_for '^state 9  depth 4  from 4 by FLUSH  status VIOLATION'
	ok "$s state: title" grep -Eq '^state > run 3 ' "$T/screen"
	ok "$s state: its trace" grep -Eq '^trace  ADD > DROP > FLUSH' "$T/screen"
	keys v
	ok "$s violations: title" wait_for '^violations > run 3 '
	ok "$s violations: the row is marked !" grep -Eq '^! +2 alloc +9 +3 ' "$T/screen"
	ok "$s violations: the message is shown whole" \
		has_text 'allocator invariant INV-15: 1 double free, at region offset 17200 (mask 0x4000)'
	keys Enter
	ok "$s replay: title" wait_for '^counterexample > run 3 '
	ok "$s replay: the key hints are whole" status_has 'x:all( |$)'
	keys x
	ok "$s replay: the verdict is in" wait_for 'violation reproduced'
	ok "$s replay: the violation's message whole" \
		has_text 'violation 2: alloc allocator invariant INV-15: 1 double free, at region offset 17200 (mask 0x4000)'
	ok "$s replay: the verdict whole" \
		has_text 'violation reproduced: alloc at step 3 (FLUSH): allocator invariant INV-15: 1 double free, at region offset 17200 (mask 0x4000)'
	ok "$s replay: the violating step is marked !" grep -Eq '^! +3 FLUSH +[0-9a-f]{12} match +\[alloc\]' "$T/screen"
	keys a
	ok "$s alloc: title" wait_for '^allocator > run 3 '
	ok "$s alloc: the failing invariant is marked !" wait_for "^! FAIL INV-15 no double free"
	ok "$s alloc: its message whole" \
		has_text 'FAIL INV-15 no double free: 1 double free, at region offset 17200'
	keys n
	ok "$s graph: title" wait_for '^graph > run 3 '
	ok "$s graph: the current state's violation is said and marked" \
		grep -Eq '^! neighbourhood of state 9 \(VIOLATION\)' "$T/screen"
	keys u
	ok "$s runs: title" wait_for '^runs > run 3 '
	ok "$s runs: two scenarios of one folder keep their file names" \
		sh -c "grep -Eq '^ +1 process .*/list\.scn +complete' '$T/screen' && grep -Eq '^! +2 process .*/list-bug\.scn +violation' '$T/screen'"
	keys '?'
	ok "$s help: title" wait_for '^help > run 3 '
	ok "$s help: the marks are explained" grep -Eq '^marks: ! violation, X fault' "$T/screen"
	: >"$T/help"
	press_until '' NPage 6 "$T/help"
	ok "$s help: a help text longer than its row is shown whole" \
		sh -c "tr '\\n' ' ' <'$T/help' | tr -s ' ' | grep -Fq '(status line); / jumps to one, b goes back'"
	keys Escape u g Enter
	ok "$s list: run 1 browsed" wait_for '^states by discovery > run 1 .*list\.scn'
	keys c
	ok "$s compare: title" wait_for '^raw vs canonical > run 1 '
	ok "$s compare: the counts" wait_for '16 states: 16 distinct raw, 8 distinct canonical'
	ok "$s compare: counts in words, never \"(s)\"" sh -c "! grep -Fq '(s)' '$T/screen'"
	ok "$s compare: the key hints are whole" status_has 'd:diff( |$)'
	keys j j j j j j j j Enter
	ok "$s hex: title and the first difference" wait_for '^hex diff > run 1 '
	ok "$s hex: the byte counts" grep -Eq '8 bytes differ, first at offset 0x' "$T/screen"
	keys q
	ok "$s quit" wait_for 'EXITED=0'
}

start_at 80 24 "NO_COLOR=1 '$CMC' tui --run 3 cmc.db"
ok "80x24: open" wait_for '^! +9 '
views 80x24
start_at 200 60 "NO_COLOR=1 '$CMC' tui --run 3 cmc.db"
ok "200x60: open" wait_for '^! +9 '
views 200x60

# Colour: a violating row is red, also when it is the selected one (in
# reverse video over red, not plain reverse).
start_at 80 24 "'$CMC' tui --run 3 cmc.db"
ok "colour: open" wait_for '^! +9 '
ok "colour: the violating row is red" sh -c "esc_row() { tmux -L '$SOCK' capture-pane -e -p -t wb | grep -a -- \"\$1\" | head -n 1; }; esc_row 'FLUSH.*VIOLATION' | grep -Eq '\[([0-9;]*;)?31(;[0-9;]*)?m'"
keys G
sleep 0.3
wait_for '^! +9 ' >/dev/null
row=$(esc_row 'FLUSH.*VIOLATION')
ok "colour: selected, it stays red under reverse video" \
	sh -c "printf '%s' '$row' | grep -Eq '\[([0-9;]*;)?7(;[0-9;]*)?m' && printf '%s' '$row' | grep -Eq '\[([0-9;]*;)?31(;[0-9;]*)?m'"
keys 2
ok "colour: the initial state is cyan" sh -c "sleep 0.3; tmux -L '$SOCK' capture-pane -e -p -t wb | grep -a '(initial)' | grep -Eq '\[([0-9;]*;)?36(;[0-9;]*)?m'"
keys q

# Without colour (NO_COLOR, or a terminal without colours): the marks, and
# no colour at all.
for how in "NO_COLOR=1" "TERM=vt100"; do
	start_at 80 24 "$how '$CMC' tui --run 3 cmc.db"
	ok "$how: the violating state is marked" wait_for '^! +9 '
	not_ok "$how: no colour on the screen" sh -c "tmux -L '$SOCK' capture-pane -e -p -t wb | grep -Eaq '\[([0-9;]*;)?3[0-7](;[0-9;]*)?m'"
	keys q
done

# A live search's title at 80 columns: with five-digit counts and a long
# model name, the frontier and the distinct count still show, whole.
start_at 80 24 "NO_COLOR=1 '$CMC' tui --db live.db --max-states 20000 bench-counters-small"
ok "live: the session opens" wait_for 'run 1 live bench-counters-small'
job r
ok "live: the bounded search ends" wait_for '\| idle \| [0-9]{5,} distinct'
ok "live: the title keeps the model's name, the distinct count and the frontier, uncut" \
	sh -c "sed -n 1p '$T/screen' | grep -Eq 'bench-counters-small.* \| [0-9]{5,} distinct.* fr [0-9]+\$'"
keys q

# A replay that diverges (the target answers otherwise than in the run):
# the verdict is wrapped, no row of it runs into the screen's edge.
if [ -x "$CMC_TOP/$B/examples/hostile/hostile" ]; then
	cat >"$T/div.scn" <<'SCN'
target ${CMC_BIN}/examples/hostile/hostile ${T4010_MODE}
op a "a\n" once
op evil "evil\n" once
property reply * "OK"
timeout 500
SCN
	(cd "$T" && T4010_MODE=calm "$CMC" check --db div.db div.scn) >/dev/null 2>&1
	start_at 80 24 "T4010_MODE=escapes NO_COLOR=1 '$CMC' tui div.db"
	ok "diverged: the run opens" wait_for 'div\.scn \| violation'
	keys v Enter
	ok "diverged: the counterexample opens" wait_for '^replayed 0 of 2 steps'
	keys x
	ok "diverged: the replay names the step" wait_for 'DIVERGED at step 2 \(evil\)'
	# the verdict: from its first row to the steps' heading
	screen | sed -n '/^replayed 2 of 2 steps - DIVERGED/,/^step operation/p' | sed '$d' >"$T/verdict"
	ok "diverged: the verdict has rows" test -s "$T/verdict"
	ok "diverged: the verdict is shown to its end" \
		sh -c "tr '\\n' ' ' <'$T/verdict' | tr -s ' ' | grep -Fq 'random numbers or files outside its cwd?'"
	keys q
else
	skip "diverged replay" "$B/examples/hostile/hostile is not built"
fi

# A fault (the target died: the state is a fault, its violation a crash):
# marked X without colour, magenta in colour, in the list and as the
# selected row.
if [ -x "$CMC_TOP/$B/tests-helpers/proctarget" ]; then
	printf '%s\n' "target $CMC_TOP/$B/tests-helpers/proctarget" 'op inc "inc\n"' 'op crash "crash\n"' \
		'hash raw' 'depth 3' >"$T/cr.scn"
	(cd "$T" && "$CMC" check --db cr.db cr.scn) >/dev/null 2>&1
	start_at 80 24 "NO_COLOR=1 '$CMC' tui cr.db"
	ok "fault: the crashed state is marked X" wait_for '^X +1 +2 +0 +crash +FAULT'
	ok "fault: the initial state is not marked" grep -Eq '^ +0 +1 +- +\(initial\)' "$T/screen"
	keys q
	start_at 80 24 "'$CMC' tui cr.db"
	ok "fault: colour: open" wait_for '^X +1 '
	ok "fault: colour: the fault's row is magenta" \
		sh -c "tmux -L '$SOCK' capture-pane -e -p -t wb | grep -a 'crash.*FAULT' | grep -Eq '\[([0-9;]*;)?35(;[0-9;]*)?m'"
	keys G
	sleep 0.3
	wait_for '^X +1 ' >/dev/null
	row=$(esc_row 'crash.*FAULT')
	ok "fault: colour: selected, it stays magenta under reverse video" \
		sh -c "printf '%s' '$row' | grep -Eq '\[([0-9;]*;)?7(;[0-9;]*)?m' && printf '%s' '$row' | grep -Eq '\[([0-9;]*;)?35(;[0-9;]*)?m'"
	keys q
else
	skip "fault marks" "$B/tests-helpers/proctarget is not built"
fi

done_testing
