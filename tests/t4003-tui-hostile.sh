#!/bin/sh
# t4003-tui-hostile.sh — target bytes never reach the terminal raw.  The
# t3-viz helper writes a run whose labels, canonical records, fault text and
# violation carry ANSI colour and OSC title sequences, control bytes and
# invalid UTF-8; the workbench shows them escaped (\x1b...), the pane gets
# no colour from them (NO_COLOR, so any colour would be theirs) and its
# title is not set by them.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
H=$CMC_TOP/$B/tests-helpers/t3-viz
if [ ! -x "$H" ]; then
	skip "hostile run in the workbench" "$B/tests-helpers/t3-viz is not built"
	done_testing
	exit
fi

colour_re=$(printf '\033')'\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)[;m]'
leaks() { # no colour and no byte outside printable ASCII on the screen
	tm capture-pane -e -p -t wb >"$T/esc"
	! grep -Eq "$colour_re" "$T/esc" &&
		[ "$(tm capture-pane -p -t wb | LC_ALL=C tr -d '\12\40-\176' | wc -c | tr -d ' ')" = 0 ]
}

ok "the hostile run is stored" "$H" hostile h.db
start "NO_COLOR=1 '$CMC' tui h.db"
ok "open: the hostile run opens" wait_for 'run 1 hostile<"&">'
ok "list: the colour sequence in a label shows as text" wait_for 'SET .*\\x1b\[31'
ok "list: nothing from the target reaches the terminal raw" leaks
# levels: the second level, into its states, open the first
keys 2 j Enter Enter
# the record is "rec\\1\\N " then 01 02 7f and zeros: not printable, so hex
ok "state: a canonical record with control bytes is shown in hex" \
	wait_for '^canon  24 bytes: 7265635c315c4e2001027f0000'
ok "state: the label's colour sequence too" wait_for '\\x1b\[31mred'
ok "state: nothing reaches the terminal raw" leaks
keys 1 G Enter
ok "state: the fault's OSC title sequence shows as text" wait_for 'x1b\]0;title'
title=$(tm display -p -t wb '#{pane_title}')
not_ok "state: ... and did not set the pane title" test "$title" = title
ok "state: nothing reaches the terminal raw" leaks
keys v
ok "violations: listed, escaped" wait_for '^! +1 '
ok "violations: nothing reaches the terminal raw" leaks
keys q
ok "quit" wait_for 'EXITED=0'
done_testing
