#!/bin/sh
# t5390-closed.sh — a server that closes the connection is observed doing
# so, not reported as hung (tests/proc/quittarget.c: QUIT closes the
# connection and the server runs on, waiting in accept() for the next
# client; SILENT closes without a word; DIE exits).  A closed connection
# is part of the state (`cmc show` says so; no operation follows it),
# judged by `property open` (the target never closes it itself) and
# `property closed LABEL` (after LABEL it has), the same under both
# executors.
. "$(dirname "$0")/test-lib.sh"
QT=$CMC_TOP/$B/tests-helpers/quittarget

scn() { # NAME EXTRA-LINES...: a scenario with ADD 1, ADD 2 and QUIT, once each
	name=$1
	shift
	{
		printf 'target %s {port}\ntransport tcp\ntimeout 3000\n' "$QT"
		printf 'op "ADD 1" "ADD 1\\n" once\nop "ADD 2" "ADD 2\\n" once\nop QUIT "QUIT\\n" once\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$name.scn"
}

scn quit
for ex in replay fork; do
	"$CMC" check --exec $ex --db q-$ex.db --json quit.scn >q-$ex.json 2>q-$ex.err
	is "QUIT ($ex): exit 0, no violation" "$?" 0
	ok "QUIT ($ex): no timeout reported" not_ok grep -q timeout q-$ex.json q-$ex.err
	ok "QUIT ($ex): 9 distinct states, 10 generated" \
		sh -c "grep -q '\"distinct\": *9[,}]' q-$ex.json && grep -q '\"generated\": *10[,}]' q-$ex.json"
done
ok "QUIT: both executors reach the same fingerprints" \
	sh -c "sqlite3 q-replay.db 'SELECT fp FROM states ORDER BY fp' >a && sqlite3 q-fork.db 'SELECT fp FROM states ORDER BY fp' >b && cmp a b"
# the state QUIT reached from the initial one
id=$(sqlite3 q-replay.db "SELECT id FROM states WHERE depth = 2 AND label = 'QUIT'")
"$CMC" show --db q-replay.db "$id" >show.out 2>&1
ok "show: the connection is closed" grep -q '^connection  *closed by the target' show.out
ok "show: the reply before it" grep -q '^reply  *"BYE\\n"' show.out
ok "show: no successors, by design (not 'not expanded')" grep -q '^successors: none' show.out
"$CMC" show --db q-replay.db --json "$id" >show.json
ok "show --json: closed is true" grep -q '"closed": true' show.json
ok "no state after QUIT: every QUIT state is a leaf" \
	sh -c "test \"\$(sqlite3 q-replay.db \"SELECT count(*) FROM transitions t JOIN states s ON s.id = t.source AND s.run = t.run WHERE s.label = 'QUIT'\")\" = 0"

# property open: the shortest trace to the close
scn open 'property open'
for ex in replay fork; do
	"$CMC" check --exec $ex --no-store open.scn >open-$ex.out 2>&1
	is "property open ($ex): exit 1" "$?" 1
	ok "property open ($ex): the target closed it after QUIT" \
		grep -q 'violation: open: the target closed the connection after QUIT' open-$ex.out
	ok "property open ($ex): the trace is QUIT alone" grep -q 'trace (1 step)' open-$ex.out
done

# property closed LABEL
scn closed-quit 'property closed QUIT'
"$CMC" check --no-store closed-quit.scn >cq.out 2>&1
is "property closed QUIT: holds, exit 0" "$?" 0
scn closed-add 'property closed "ADD 1"'
"$CMC" check --no-store closed-add.scn >ca.out 2>&1
is "property closed 'ADD 1': exit 1" "$?" 1
ok "property closed 'ADD 1': still open after it" grep -q 'the connection is still open after ADD 1' ca.out

# closed without a reply; and a server that exits
printf 'target %s {port}\ntransport tcp\ntimeout 3000\nop SILENT "SILENT\\n"\nop DIE "DIE\\n"\nproperty exit 0\n' "$QT" >sd.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --db sd-$ex.db --json sd.scn >sd-$ex.json 2>sd-$ex.err
	is "SILENT and DIE ($ex): exit 0" "$?" 0
	ok "SILENT and DIE ($ex): 3 states, none a fault" \
		sh -c "grep -q '\"distinct\": *3[,}]' sd-$ex.json && test \"\$(sqlite3 sd-$ex.db \"SELECT count(*) FROM states WHERE status = 'fault'\")\" = 0"
done

# bad scenarios: file:line and what was expected, exit 2
printf 'target /bin/cat\nop a "a"\nproperty open\n' >stdin-open.scn
"$CMC" check --no-store stdin-open.scn >so.out 2>&1
is "property open on stdin: exit 2" "$?" 2
ok "... names the line and wants tcp" grep -q "stdin-open.scn:3: expected 'transport tcp' for 'property open'" so.out
scn nope 'property closed NOPE'
"$CMC" check --no-store nope.scn >nope.out 2>&1
is "property closed NOPE: exit 2" "$?" 2
ok "... no op named NOPE, at its line" grep -q "nope.scn:7: expected 'property closed LABEL' with the LABEL of an op, no op named 'NOPE'" nope.out
done_testing
