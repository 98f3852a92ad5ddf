#!/bin/sh
# t4013-tui-state-files.sh — the workbench's state view lists a state's
# declared state files (issue 23; share/scenario.md "Files in the state"):
# kind, size, short hash, path, from the summary the store keeps.  The
# target is tests/proc/filekv.c, whose data lives in data.txt.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"

cat >kvf.scn <<SCN
target $CMC_TOP/$B/tests-helpers/filekv
op "PUT a 1" "PUT a 1\n"
op "DEL a" "DEL a\n"
depth 2
state-file data.txt
SCN
start "'$CMC' tui --db wb.db kvf.scn"
ok "open: the live target reaches its initial state" wait_for 'live .*kvf\.scn.* \| idle \| 1 distinct'
keys Enter
ok "initial state: data.txt is missing" wait_for '^files  m 0 - data\.txt'
keys Enter
ok "after PUT a 1: data.txt, 4 bytes and its hash" wait_for '^files  f 4 [0-9a-f]{16} data\.txt'
keys q
ok "quit: leaves with status 0" wait_for 'EXITED=0'
done_testing
