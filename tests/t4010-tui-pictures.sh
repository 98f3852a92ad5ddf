#!/bin/sh
# t4010-tui-pictures: where the workbench's `w` puts its pictures.  They go
# to cmc-svg/ beside the database (not into the directory the workbench was
# started from), and the status line gives the picture's full path.
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
done_testing
