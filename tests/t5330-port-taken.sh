#!/bin/sh
# t5330-port-taken.sh — the port cmc picks for a TCP target is free when
# cmc looks and bound by the target a moment later; another program may
# take it in between (another cmc, any server).  cmc must never take that
# program's listener for its target's: it would connect to it and check
# someone else's program.  CMC_TEST_PORT=P makes the first port cmc picks
# P, which this test has taken with netcat first: the start-up sees a
# listener that is not the target's, says so and starts the target again
# on another port, and the run finds what it finds with no one in the way.
. "$CMC_TOP/tests/test-lib.sh"

SCN=$CMC_TOP/share/examples/list/list.scn
export CMC_BIN="$CMC_TOP/$B"

# A port of our own: netcat listening (and listening on after each
# connection, -k), found by probing it.
port=
for p in $(seq 47301 47399); do
	nc -lk 127.0.0.1 "$p" >"nc.$p.out" 2>/dev/null &
	pid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null && ! nc -z 127.0.0.1 "$p" 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null && nc -z 127.0.0.1 "$p" 2>/dev/null; then
		port=$p
		break
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

if [ -z "$port" ]; then
	skip "a taken port" "netcat could not listen on any of 127.0.0.1:47301-47399"
	done_testing
	exit
fi
: >"nc.$port.out"

"$CMC" check --no-store --json --exec replay "$SCN" >free.json 2>free.err
is "the list scenario with no port taken: exit 0" "$?" 0
for e in replay fork; do
	CMC_TEST_PORT=$port "$CMC" check --no-store --json --jobs 1 --exec "$e" "$SCN" >"$e.json" 2>"$e.err"
	is "$e: port $port taken: exit 0" "$?" 0
	ok "$e: cmc says the port was taken and starts the target on another" \
		grep -q "another program took port $port before the target could listen" "$e.err"
	is "$e: the same states as with the port free" "$(json_get "$e.json" distinct)" \
		"$(json_get free.json distinct)"
	is "$e: the same raw fingerprints" "$(json_get "$e.json" raw_distinct)" \
		"$(json_get free.json raw_distinct)"
done
is "the other program was never sent an operation" "$(wc -c <"nc.$port.out" | tr -d ' ')" 0
ok "... and still listens" nc -z 127.0.0.1 "$port"

done_testing
