#!/bin/sh
# t6710-small.sh — small robustness items, each a set-up error said plainly
# (exit 2, file:line where there is one, what was expected) or a fault
# named for what it is:
#   a scenario that is a FIFO (no hang), missing, a symlink loop or
#   unreadable; `property reply` naming no op; `canonical-fd` on an fd cmc
#   reserves; the scenario's own `env LD_PRELOAD=` replacing cmc's preload;
#   a forged limit record on the control fd (a `protocol` fault, not a
#   `limit` of 2^64-1 bytes); an empty database file; writers racing to
#   create one database; CMC_EXEC=bogus.
. "$(dirname "$0")/test-lib.sh"

PT=$CMC_TOP/$B/tests-helpers/proctarget
good() { printf 'target %s\nop inc "inc\\n"\n' "$PT"; }

# A scenario path that is a FIFO: refused at once, nothing waits for a
# writer (timeout: a hang fails the test instead of stalling it).
mkfifo fifo.scn
for x in replay fork; do
	timeout 20 "$CMC" check --no-store --exec $x fifo.scn >fifo.out 2>fifo.err
	is "FIFO ($x): exit 2, no hang" "$?" 2
	ok "FIFO ($x): says not a regular file" grep -q "fifo.scn: not a regular file" fifo.err
done
timeout 20 "$CMC" replay fifo.scn inc >fifor.out 2>fifor.err
is "FIFO (cmc replay): exit 2, no hang" "$?" 2

# Missing, a symlink loop, unreadable: the real reason, not "neither a
# built-in model nor a scenario".
"$CMC" check --no-store nothere.scn >miss.out 2>miss.err
is "missing scenario: exit 2" "$?" 2
ok "missing scenario: says so" grep -q "nothere.scn: cannot open scenario: No such file or directory" miss.err
ln -s loop1.scn loop2.scn && ln -s loop2.scn loop1.scn
"$CMC" check --no-store loop1.scn >loop.out 2>loop.err
is "symlink loop: exit 2" "$?" 2
ok "symlink loop: says so" grep -q "loop1.scn: cannot open scenario: Too many levels of symbolic links" loop.err
good >noread.scn
chmod 000 noread.scn
if [ "$(id -u)" = 0 ]; then
	skip "unreadable scenario" "running as root, which reads any file"
else
	"$CMC" check --no-store noread.scn >perm.out 2>perm.err
	is "unreadable scenario: exit 2" "$?" 2
	ok "unreadable scenario: says so" grep -q "noread.scn: cannot open scenario: Permission denied" perm.err
fi

# `property reply LABEL` for a LABEL no op has (ops may come after it).
{ good; printf 'property reply inc "OK*"\nproperty reply nope "OK*"\n'; } >reply.scn
"$CMC" check --no-store reply.scn >reply.out 2>reply.err
is "reply to an unknown op: exit 2" "$?" 2
ok "reply to an unknown op: file:line, no op named" grep -q "reply.scn:4: expected .*no op named 'nope'" reply.err
{ printf 'target %s\nproperty reply later "OK*"\nop later "inc\\n"\n' "$PT"; } >later.scn
"$CMC" check --no-store --max-depth 2 later.scn >later.out 2>later.err
is "reply to an op declared after it: accepted" "$?" 0

# canonical-fd on an fd cmc gives the target for something else.
for fd in 0 2 4 5 1000; do
	{ good; echo "canonical-fd $fd"; } >cfd$fd.scn
	"$CMC" check --no-store cfd$fd.scn >cfd.out 2>cfd.err
	is "canonical-fd $fd: exit 2" "$?" 2
	ok "canonical-fd $fd: file:line, what was expected" grep -q "cfd$fd.scn:3: expected 'canonical-fd N'" cfd.err
done
{ good; echo "canonical-fd 999"; } >cfd999.scn
"$CMC" check --no-store --max-depth 2 cfd999.scn >cfd.out 2>cfd.err
is "canonical-fd 999: accepted" "$?" 0

# The scenario's own LD_PRELOAD replaces cmc's: a set-up error, not a
# `protocol` violation of the initial state.
{ good; echo "env LD_PRELOAD=$T/no-such-lib.so"; } >ldp.scn
for x in replay fork; do
	"$CMC" check --no-store --exec $x ldp.scn >ldp.$x.out 2>ldp.$x.err
	is "env LD_PRELOAD ($x): exit 2" "$?" 2
	ok "env LD_PRELOAD ($x): file:line and the reason" grep -q "ldp.scn:3: the target started without cmc's preload" ldp.$x.err
	not_ok "env LD_PRELOAD ($x): not a violation" grep -q "^violation" ldp.$x.out
done

# A forged CMC_CTL_LIMIT record (limit 2^64-1, 1 byte refused, 0 mapped)
# written to the control fd by the target itself: a `protocol` fault.
cat >forge.sh <<'EOF'
while read l; do
	if [ "$l" = evil ]; then
		printf 'CMCC \000\000\000\003\000\000\000\001\000\000\000\377\377\377\377\377\377\377\377\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >&4
	fi
	echo OK
done
EOF
printf 'target /bin/sh %s/forge.sh\nop a "a\\n"\nop evil "evil\\n"\ndepth 2\n' "$T" >forge.scn
for x in replay fork; do
	"$CMC" check --no-store --json --exec $x forge.scn >forge.$x.json 2>forge.$x.err
	is "forged limit record ($x): a violation" "$?" 1
	is "forged limit record ($x): a protocol fault" "$(first_violation forge.$x.json property)" protocol
	ok "forged limit record ($x): says it does not match limit as" \
		grep -q "does not match the configured .limit as. (17179869184): limit 18446744073709551615" forge.$x.json
	not_ok "forged limit record ($x): no limit fault" grep -q '"property": "limit"' forge.$x.json
done

# An empty database file: said to be empty, not "needs upgrading".
: >empty.db
"$CMC" runs --db empty.db >empty.out 2>empty.err
is "empty database: exit 2" "$?" 2
ok "empty database: says it is empty" grep -q "empty.db: an empty database: no run stored yet" empty.err
not_ok "empty database: no talk of upgrading" grep -q "upgrad" empty.err
"$CMC" check --db empty.db --max-depth 2 diehard >/dev/null 2>emptyw.err
is "empty database: a writer sets it up" "$?" 0

# Six writers racing to create one database, fifteen times: each waits for
# the first to set the schema up, and every run is stored (each bounded at depth 2: status bounded).
bad=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	rm -f race.db race.db-wal race.db-shm
	for k in 1 2 3 4 5 6; do
		"$CMC" check --db race.db --max-depth 2 diehard >/dev/null 2>race$k.err &
	done
	wait
	cat race?.err >>race.err
done
ok "racing writers: no error" sh -c '! grep . race.err'
is "racing writers: every run stored" "$("$CMC" runs --db race.db | grep -c bounded)" 6

# CMC_EXEC must name an executor, as --exec must.
good >exec.scn
CMC_EXEC=bogus "$CMC" check --no-store exec.scn >exec.out 2>exec.err
is "CMC_EXEC=bogus: exit 2" "$?" 2
ok "CMC_EXEC=bogus: says it is not an executor" grep -q "CMC_EXEC=bogus: not an executor (expected fork or replay)" exec.err
for x in replay fork; do
	CMC_EXEC=$x "$CMC" check --no-store --max-depth 2 exec.scn >/dev/null 2>&1
	is "CMC_EXEC=$x: accepted" "$?" 0
done

done_testing
