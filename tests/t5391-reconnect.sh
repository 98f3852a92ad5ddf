#!/bin/sh
# t5391-reconnect.sh — `op LABEL reconnect` (issue 23): cmc hangs up and
# connects again, as a client that dials twice.  The target is
# tests/proc/quittarget.c: a server that counts its clients in a heap
# record, answers ADD with the sum so far, closes the connection on QUIT
# and goes back to accept() for the next client.  After a close, a
# reconnect is the only operation that follows; on an open connection it
# is a hang-up the server sees; both executors reach the same states
# (fork hands reconnects to replay); a reconnect needs transport tcp.
. "$(dirname "$0")/test-lib.sh"
QT=$CMC_TOP/$B/tests-helpers/quittarget

{
	printf 'target %s {port}\ntransport tcp\ntimeout 3000\n' "$QT"
	printf 'op "ADD 1" "ADD 1\\n" once\nop QUIT "QUIT\\n" once\nop again reconnect once\n'
} >r.scn

# Three ops once each.  In the order the search finds them: the initial
# state; ADD 1, QUIT (closed) and again (a second client); then ADD 1,
# QUIT / ADD 1, again / QUIT, again (the only op after a close) / again,
# ADD 1 / again, QUIT; then the three orders that end with all three ops
# applied and the connection open or closed.  again-then-ADD and
# ADD-then-again leave the same sum and client count but not the same raw
# heap (the first client's stdio stream is freed at a different point of
# the allocation history), so they are two states: 12 distinct, 13
# generated (one merge: again, ADD 1, QUIT reaches ADD 1, again, QUIT's).
for ex in replay fork; do
	CMC_PROC_STATS=1 "$CMC" check --exec $ex --db r-$ex.db --json r.scn >r-$ex.json 2>r-$ex.err
	is "reconnect ($ex): exit 0, no violation" "$?" 0
	ok "reconnect ($ex): 12 distinct states, 13 generated" \
		sh -c "grep -q '\"distinct\": *12[,}]' r-$ex.json && grep -q '\"generated\": *13[,}]' r-$ex.json"
	ok "reconnect ($ex): no timeout" not_ok grep -q -i timeout r-$ex.json r-$ex.err
done
sqlite3 r-replay.db 'SELECT fp FROM states ORDER BY fp' >fp.replay
sqlite3 r-fork.db 'SELECT fp FROM states ORDER BY fp' >fp.fork
ok "reconnect: the same 12 fingerprints under both executors" \
	sh -c 'test "$(wc -l <fp.replay)" -eq 12 && cmp fp.replay fp.fork'
ok "reconnect (fork): the reconnects were replayed" grep -q "executor fork: [1-9][0-9]* spawns" r-fork.err

st() { sqlite3 r-replay.db "SELECT id FROM states WHERE depth = $1 AND label = '$2'"; }
q=$(st 2 QUIT)
"$CMC" show --db r-replay.db --json "$q" >q.json
ok "after QUIT: the connection is closed" grep -q '"closed": true' q.json
ok "after QUIT: its only successor is the reconnect" \
	sh -c "grep -o '\"successors\": \\[.*\\]' q.json | grep -q '^\"successors\": \\[{\"label\": \"again\", \"to\": [0-9]*, \"new\": true}\\]'"
qa=$(sqlite3 r-replay.db "SELECT target FROM transitions WHERE source = $q AND label = 'again'")
"$CMC" show --db r-replay.db --json "$qa" >qa.json
ok "QUIT, again: open again (not closed)" not_ok grep -q '"closed": true' qa.json
ok "QUIT, again: ADD 1 follows (the new connection takes operations)" \
	grep -q '"label": "ADD 1"' qa.json
a=$(st 2 again)
"$CMC" show --db r-replay.db --json "$a" >a.json
ok "again on an open connection: the server saw a new client (not the initial heap)" \
	test "$(json_get a.json raw_fp)" != "$(sqlite3 r-replay.db 'SELECT raw_fp FROM states WHERE id = 0')"
ok "again, then QUIT and ADD 1 can follow" sh -c "grep -q '\"label\": \"QUIT\"' a.json && grep -q '\"label\": \"ADD 1\"' a.json"
# QUIT, again, ADD 1: the new client is answered with the sum the server
# kept across connections (0 + 1).
qaa=$(sqlite3 r-replay.db "SELECT target FROM transitions WHERE source = $qa AND label = 'ADD 1'")
"$CMC" show --db r-replay.db "$qaa" >qaa.out
ok "QUIT, again, ADD 1: the second client is answered" grep -q '^reply  *"SUM 1\\n"' qaa.out
"$CMC" show --db r-replay.db "$q" >q.out
ok "show: a closed connection says a reconnect still reaches it" \
	grep -q '^connection  *closed by the target: no operation reaches it but a reconnect' q.out

# After an eof op (cmc closed its side) only a reconnect follows too.
{
	printf 'target %s {port}\ntransport tcp\ntimeout 3000\n' "$QT"
	printf 'op "ADD 1" "ADD 1\\n" once\nop bye eof\nop again reconnect once\n'
} >e.scn
"$CMC" check --exec replay --db e.db --json e.scn >e.json 2>e.err
is "eof then reconnect: exit 0" "$?" 0
b=$(sqlite3 e.db "SELECT id FROM states WHERE depth = 2 AND label = 'bye'")
"$CMC" show --db e.db --json "$b" >b.json
ok "after eof: the only successor is the reconnect" \
	sh -c "grep -o '\"successors\": \\[.*\\]' b.json | grep -q '^\"successors\": \\[{\"label\": \"again\"'" 
ok "after eof: no ADD 1 follows it" \
	sh -c "! grep -o '\"successors\": \\[.*\\]' b.json | grep -q 'ADD 1'"

# Without a reconnect op a closed connection has no successor, as before
# (t5390), and the state bytes are the trace alone.
printf 'target %s {port}\ntransport tcp\ntimeout 3000\nop QUIT "QUIT\\n" once\n' "$QT" >n.scn
"$CMC" check --exec replay --json --no-store n.scn >n.json 2>/dev/null
ok "no reconnect op: QUIT ends it (2 states, 2 generated)" \
	sh -c "grep -q '\"distinct\": *2[,}]' n.json && grep -q '\"generated\": *2[,}]' n.json"

# A reconnect needs a connection: file:line, exit 2.
printf 'target %s\nop again reconnect\nop a "x\\n"\n' "$QT" >bad.scn
"$CMC" check --no-store bad.scn >bad.out 2>&1
is "reconnect under stdin: exit 2" "$?" 2
ok "... naming file:line and why" \
	grep -q "bad.scn:2: expected 'transport tcp' for 'op LABEL reconnect'" bad.out
printf 'target %s {port}\ntransport tcp\nop again "reconnect\\n"\n' "$QT" >quoted.scn
"$CMC" check --no-store --json quoted.scn >quoted.json 2>/dev/null
is "a quoted \"reconnect\" is bytes to send: exit 0" "$?" 0

done_testing
