#!/bin/sh
# t5340-epoll-server.sh — a real event-loop server from Debian's packages
# (lighttpd: one thread, epoll, keep-alive connections) under both
# executors.  Fork snapshots used to fall back to replay for any target
# holding an epoll instance; the preload now makes a snapshot's child its
# own instances (preload/epoll.c), so the fork executor runs it, and must
# find what replay finds: the same --json, states, fingerprints, traces.
. "$CMC_TOP/tests/test-lib.sh"

LT=$(command -v lighttpd || ls /usr/sbin/lighttpd 2>/dev/null)
if [ -z "$LT" ]; then
	skip "lighttpd under both executors" "lighttpd is not installed (make test installs it)"
	done_testing
	exit
fi
mkdir www
echo hello >www/index.html
# The deterministic environment tells the target port 7070 and binds the
# one cmc chose for it (scenario.md).
cat >lt.conf <<CONF
server.document-root = "$T/www"
server.port = 7070
server.bind = "127.0.0.1"
server.errorlog = "/dev/null"
server.max-keep-alive-requests = 1000
server.max-keep-alive-idle = 1000
index-file.names = ("index.html")
CONF
cat >lt.scn <<SCN
target $LT -D -f $T/lt.conf
transport tcp
op get "GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
op miss "GET /nope HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
op head "HEAD / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" once
property reply miss "HTTP/1.1 404*"
hash raw
depth 4
SCN
for e in replay fork; do
	CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec "$e" lt.scn >"$e.json" 2>"$e.err"
	echo $? >"$e.rc"
done
is "replay: exit 0 (every miss answered 404)" "$(cat replay.rc)" 0
is "fork: exit 0" "$(cat fork.rc)" 0
ok "replay: more than a few states" test "$(json_get replay.json distinct)" -gt 10
ok "fork: snapshots were used" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" fork.err
not_ok "fork: no fall back to replay" grep -q "fork snapshots unavailable" fork.err
json_untimed replay.json >replay.cmp
json_untimed fork.json >fork.cmp
ok "the same --json under both executors" diff replay.cmp fork.cmp
"$CMC" check --no-store --json --jobs 2 --exec fork lt.scn >j2.json 2>/dev/null
is "--jobs 2: the same states" "$(json_get j2.json distinct)" "$(json_get replay.json distinct)"
# A violation's trace is the same under both.
sed 's|"HTTP/1.1 404\*"|"HTTP/1.1 200*"|' lt.scn >bad.scn
for e in replay fork; do
	"$CMC" check --no-store --json --jobs 1 --exec "$e" bad.scn >"bad.$e.json" 2>/dev/null
	is "a reply property that fails ($e): exit 1" "$?" 1
done
ok "... with one shortest trace under both" \
	sh -c 'grep -o "\"trace\": \[[^]]*\]" bad.replay.json >t1 && grep -o "\"trace\": \[[^]]*\]" bad.fork.json >t2 && test -s t1 && cmp t1 t2'
"$CMC" replay lt.scn get head miss get >rp.out 2>&1
is "cmc replay: a trace runs the same in two fresh processes (exit 0)" "$?" 0

done_testing
