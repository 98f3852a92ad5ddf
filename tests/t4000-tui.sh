#!/bin/sh
# t4000-tui.sh — the workbench driven through tmux on a step-function model
# (diehard-solve: the Die Hard jugs with the invariant big /= 4, whose
# shortest counterexample is the puzzle's known 6-step solution): open,
# help, step by hand, back, levels, tree, graph, run a search, violations,
# replay, render, resize, quit; the stored run is checked through `cmc runs`.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"

# wait_row N PATTERN: poll until screen row N matches (up to 10 s).
wait_row() {
	i=0
	while [ $i -lt 100 ]; do
		screen | sed -n "${1}p" | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	screen | sed 's/^/# | /'
	return 1
}

start "'$CMC' tui diehard-solve"
ok "open: a live session on the model shows its initial state" \
	wait_for "run 1 live diehard-solve .*1 distinct"
ok "open: the status line says what to press first" wait_for '^live search: Enter opens a state to step from, r runs'

keys '?'
ok "help: ? lists the keys from the key table" wait_for '^\? F1 +this list of keys'
ok "help: quitting is listed" wait_for '^q +quit'
ok "help: the keys of every view come first" wait_for '^-- keys in every view'
keys G
ok "help: scrolls to the last key of the table, the runs view's" wait_for '^Enter +browse the selected run'
keys Escape
ok "help: Esc goes back; the status line says where we are and the keys" \
	wait_for '^\[states by discovery @0\] \?:keys q:quit +Enter:open'

keys Enter
ok "state: Enter opens the state whole" wait_for 'state 0  depth 1  initial state'
ok "state: the model prints the state" wait_for 'print  small=0 big=0'
ok "state: the model's six operations are offered" wait_for 'operations \(6\)'
# FillBigJug is the second operation of DieHard.tla's Next.
keys j Enter
ok "step by hand: FillBigJug leads to a new state" wait_for 'state 1  depth 2  from 0 by FillBigJug'
ok "step by hand: the big jug holds 5 gallons" wait_for 'print  small=0 big=5'
ok "step by hand: the trace is shown" wait_for '^trace  FillBigJug'
keys b
ok "back: b returns to the previous state" wait_for 'state 0  depth 1'
ok "back: state 0 now lists the step taken" wait_for 'FillBigJug +-> 1 \(discovered here\)'
# A second step by hand from the same state: both show (each hand step is
# an edge record of its own in the store).
keys k j Enter
ok "step by hand again: FillSmallJug from state 0" wait_for 'state 2  depth 2  from 0 by FillSmallJug'
keys b
ok "back: state 0 lists both steps taken by hand" wait_for 'FillSmallJug +-> 2 \(discovered here\)'
ok "... the first one still" wait_for 'FillBigJug +-> 1 \(discovered here\)'

keys 2
ok "levels: two levels after two steps" wait_for '^2 +2 \|'
keys 3
ok "tree: the initial state is the root" wait_for '^\+ 0 \(initial\)'
keys Right
ok "tree: opening it shows the state discovered by hand" wait_for '^  \+ 1 FillBigJug'
keys 1
keys n
ok "graph: the neighbourhood of the current state" wait_for 'neighbourhood of state [0-9]+'

keys r
ok "run: the search stops at the violation" wait_for 'search stopped: 1 violation'
keys 1
ok "list: the search's states are listed" wait_for '^ +3 +[0-9]+ +[0-9]+ '
fp=$(screen | awk '$1 == 3 { print $NF; exit }')
keys / "$(echo "$fp" | cut -c1-8)" Enter
ok "jump: / with a fingerprint prefix finds its state" wait_for '^state 3  depth'
keys / 2 Enter
ok "jump: / with an id" wait_for '^state 2  depth'
keys v
ok "violations: the list names the invariant" wait_for 'invariant:NotSolved'
keys Enter
ok "violation: Enter opens the counterexample" wait_for 'violation [0-9]+: invariant:NotSolved'
# The puzzle's shortest solution has six steps.
ok "violation: the counterexample has 6 steps" wait_for '^ +6 BigToSmall'
keys l
ok "replay: one step re-executed and matched" wait_for '^ +1 FillBigJug +[0-9a-f]{12} match'
keys x
ok "replay: the whole counterexample re-executed, the violation reproduced" \
	wait_for 'replayed 6 of 6 steps - violation reproduced: invariant:NotSolved at step 6'
ok "replay: step 6 matched, and fails NotSolved" \
	wait_for '^! +6 BigToSmall +[0-9a-f]{12} match +\[invariant:NotSolved\]'
not_ok "replay: nothing claims every fingerprint matched" grep -q 'every fingerprint matched' "$T/screen"

keys w
ok "render: w writes the counterexample as SVG and says where" wait_for "wrote $(pwd -P)/cmc-svg/cmc-violation-[0-9]+\\.svg"
f=$(ls "$T"/cmc-svg/cmc-violation-*.svg 2>/dev/null | head -n 1)
if command -v xmllint >/dev/null 2>&1; then
	ok "render: the SVG parses as XML" xmllint --noout "$f"
else
	ok "render: the SVG file exists" test -s "$f"
fi

tm resize-window -t wb -x 100 -y 30
ok "resize: the screen is redrawn at the new size" wait_row 30 '^(\[counterexample|wrote)'

tm resize-window -t wb -x 80 -y 24
ok "resize: and back at 80x24" wait_row 24 '^(\[counterexample|wrote)'

keys q
ok "quit: q leaves with status 0" wait_for 'EXITED=0'
ok "quit: the run is stored as a violation run" sh -c "'$CMC' runs --json | grep -q '\"status\": \"violation\"'"

done_testing
