#!/bin/sh
# t4010-tui-pictures: where the workbench's `w` puts its pictures.  They go
# to cmc-svg/ beside the database (not into the directory the workbench was
# started from), and the status line gives the picture's full path, whole
# also when it is wider than the screen (the message wraps over the rows
# above the status line).
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"

mkdir -p data work
here=$(cd "$T" && pwd -P)
start "cd work && '$CMC' tui --db ../data/d.db diehard"
ok "open: the live session on diehard" wait_for "run 1 live diehard"
job n
ok "graph: the neighbourhood of the initial state" wait_for '^neighbourhood of state 0'
keys w
ok "w: the status line gives the full path, beside the database" \
	wait_for "^wrote $here/data/cmc-svg/cmc-run-1-state-0\\.svg"
ok "w: the picture is there" test -s data/cmc-svg/cmc-run-1-state-0.svg
is "w: nothing is written where the workbench was started" "$(ls work)" ""
keys q
wait_for '^EXITED=' >/dev/null

# A database deep enough that the path alone is wider than 80 columns.
deep=data/a-folder-with-a-rather-long-name/and-another-one-below-it/and-a-third-one
mkdir -p "$deep"
start "cd work && '$CMC' tui --db '../$deep/d.db' diehard"
ok "deep: the live session on diehard" wait_for "run 1 live diehard"
job n
ok "deep: the graph" wait_for '^neighbourhood of state 0'
keys w
want="wrote $here/$deep/cmc-svg/cmc-run-1-state-0.svg: "
ok "deep: the path is wider than the screen (${#want} columns)" test "${#want}" -gt 80
ok "deep: w says so" wait_for '^wrote '
# the message's rows, from the one that starts it, read as one line
ok "deep: the status message gives the whole path, over more than one row" \
	sh -c "sed -n '/^wrote /,\$p' '$T/screen' | tr -d '\n' | grep -Fq '$want'"
ok "deep: the picture is there" test -s "$deep/cmc-svg/cmc-run-1-state-0.svg"
keys j
ok "deep: the next key clears it: the key hints are back" wait_for '^\[graph @0\] \?:keys'
keys q
wait_for '^EXITED=' >/dev/null
done_testing
