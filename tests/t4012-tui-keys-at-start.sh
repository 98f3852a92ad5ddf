#!/bin/sh
# t4012-tui-keys-at-start.sh — a key pressed on the first screen of a live
# session, while its first job still starts the target, is not lost: it
# waits until the target is up (the title says "starting" meanwhile).
# Before, the workbench answered such a key "busy" and dropped it, so `r`
# pressed at once did nothing.  The target here spends a moment counting
# in the shell before it execs kv (a sleep would be virtual time under the
# preload), so the first job lasts long enough for the key to arrive.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
KV=$CMC_TOP/$B/examples/kv
[ -x "$KV" ] || { skip "keys at start" "$B/examples/kv is not built"; done_testing; exit; }
cat >slow.scn <<EOF2
target /bin/sh -c "i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done; exec $KV"
op "SET a" "SET a 1\n" once
op "SET b" "SET b 2\n" once
timeout 60000
EOF2
start "'$CMC' tui --db slow.db slow.scn"
ok "the first screen shows while the target starts" wait_for 'run 1 live'
keys r
ok "r pressed at once runs the search to its end" wait_for '^search complete: 5 distinct states'
keys q
ok "quits" wait_for 'EXITED=0'
done_testing
