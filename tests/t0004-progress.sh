#!/bin/sh
# t0004-progress.sh — progress on stderr only when it is a terminal.  Under
# script(1) (a pseudo-terminal) a run of a few million states rewrites one
# status line (distinct, generated, states/s, depth, frontier) and clears
# it at the end; with stderr on a file or pipe, stderr stays empty.  The
# run is at least ten times the 0.25 s tick interval on any machine that
# runs SPIN-speed searches, so at least one tick is seen.
. "$(dirname "$0")/test-lib.sh"
if ! command -v script >/dev/null 2>&1; then
	skip "progress on a terminal" "script(1) from util-linux is not installed"
	done_testing
	exit 0
fi
"$CMC" check --no-store --jobs 1 bench-counters-small >plain.out 2>plain.err
is "not a terminal: the check completes" "$?" 0
ok "not a terminal: nothing on stderr" test ! -s plain.err
script -qec "'$CMC' check --no-store --jobs 1 bench-counters-small >tty.out" tty.log >/dev/null 2>&1
is "on a terminal: the check completes" "$?" 0
ok "on a terminal: a status line with the counts" \
	grep -Eq '[0-9]+ distinct, [0-9]+ generated, [0-9]+ states/s, depth [0-9]+, frontier [0-9]+' tty.log
ok "on a terminal: the line is rewritten in place" grep -q "$(printf '\r')" tty.log
ok "on a terminal: stdout keeps the summary" grep -q "distinct states" tty.out
is "the same counts either way" "$(grep 'distinct states' tty.out)" "$(grep 'distinct states' plain.out)"
done_testing
