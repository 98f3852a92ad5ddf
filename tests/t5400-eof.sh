#!/bin/sh
# t5400-eof.sh — `op LABEL eof`: an operation that closes the target's
# input (end of file on stdin; for tcp, cmc shuts down its sending side of
# the connection).  Nothing follows it along a trace.  Programs that exit
# at end of input can then be checked at their exit: `property exit`, and
# `property leak` for what they still hold.
#   kv (stdin, fgets): exits 0 at EOF; keeps its entries reachable from a
#   global, so `leak` holds and `leak reachable` fails first after SET a,
#   EOF (at EOF alone it holds nothing of its own yet).
#   list (tcp): exits 0 when the client closes the connection.
# Both executors give the same JSON; replay reproduces a trace ending in
# eof; `eof repeat` is refused with file:line.
. "$(dirname "$0")/test-lib.sh"
EX=$CMC_TOP/$B/examples
printf '%s\n' "target $EX/kv" 'op "SET a" "SET a 1\n" once' 'op "SET b" "SET b 2\n" once' \
	'op EOF eof' 'property exit 0' 'property leak' >kv.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --jobs 1 --no-store --json kv.scn >kv-$ex.json 2>kv-$ex.err
	is "kv ($ex): exits 0 at every end of input, nothing lost (exit 0)" "$?" 0
done
ok "kv: the whole space explored" test "$(json_get kv-replay.json complete)" = true
# 1 + 2 + 2 live states with input open, each followed by EOF; the exited
# states merge by how they ended and which ops were applied.
n=$(json_get kv-replay.json distinct)
ok "kv: more states than the inputs alone ($n)" test "${n:-0}" -gt 5
json_untimed kv-replay.json >kv-r.cmp
json_untimed kv-fork.json >kv-f.cmp
ok "kv: identical --json under fork and replay" diff kv-r.cmp kv-f.cmp

sed 's/^property leak$/property leak reachable/' kv.scn >kv-reach.scn
"$CMC" check --no-store --json kv-reach.scn >reach.json 2>reach.err
is "kv, leak reachable: a violation" "$?" 1
is "kv, leak reachable: the shortest trace ends in EOF" "$(first_violation reach.json trace)" '"SET a", "EOF"'
ok "kv, leak reachable: names the live blocks at exit" grep -q 'still live when the target exited after EOF' reach.json

# Exit status at end of input: kv exits 0, so `property exit 3` fails at
# the first EOF, from the initial state.
sed 's/^property exit 0$/property exit 3/' kv.scn >kv-exit.scn
"$CMC" check --no-store --json kv-exit.scn >exit.json 2>exit.err
is "kv, exit 3: a violation" "$?" 1
is "kv, exit 3: at the first end of input" "$(first_violation exit.json trace)" '"EOF"'

# Replay of a trace that ends in eof, twice, agrees.
"$CMC" replay kv.scn "SET a" EOF >rp.out 2>&1
is "replay of SET a, EOF: reproduced" "$?" 0
ok "replay: both steps agree on two runs" test "$(grep -c "^ *[12]  agreed " rp.out)" -eq 2

# TCP: the list server exits 0 when the connection closes.
if [ -x "$EX/list-emit" ]; then
	printf '%s\n' "target $EX/list-emit {port}" 'transport tcp' 'op "INS 1" "INS 1\n" once' \
		'op "INS 2" "INS 2\n" once' 'op BYE eof' 'property exit 0' >list.scn
	for ex in replay fork; do
		timeout 60 "$CMC" check --exec $ex --jobs 1 --no-store --json list.scn >list-$ex.json 2>list-$ex.err
		is "list over tcp ($ex): exits 0 after the connection closes" "$?" 0
	done
	json_untimed list-replay.json >l-r.cmp
	json_untimed list-fork.json >l-f.cmp
	ok "list: identical --json under fork and replay" diff l-r.cmp l-f.cmp
else
	skip "list over tcp" "$B/examples/list-emit is not built"
fi

# Scenario errors.
printf '%s\n' "target $EX/kv" 'op EOF eof repeat' >bad.scn
"$CMC" check --no-store bad.scn >bad.out 2>bad.err
is "eof repeat: exit 2" "$?" 2
ok "eof repeat: named as bad.scn:2" grep -q "bad.scn:2: expected an eof operation without 'repeat'" bad.err
# A quoted "eof" is three bytes to send, not end of input.
printf '%s\n' "target $EX/kv" 'op E "eof"' 'depth 1' >quoted.scn
"$CMC" check --no-store --json quoted.scn >quoted.json 2>quoted.err
is "a quoted \"eof\" is bytes: the target stays up (exit 0)" "$?" 0
is "... and its state is not terminal: two states" "$(json_get quoted.json distinct)" 2
# The end of input is seen by the target before its state is taken: a
# shell asleep in read(0) when its input closed looked quiescent until it
# ran, and with two workers the other's fork (which holds the pipe's
# write end until it execs) could delay the end of file past that look:
# the state was now and then recorded live instead of exited (17 to 20
# distinct states from run to run).  Five runs under replay and two under
# fork, two workers each, give one count, and every state after `end` is
# an exit.
if [ -x /bin/dash ]; then
	printf '%s\n' 'target /bin/dash' 'op a "x=1\n"' 'op b "y=2; echo $y\n"' 'op c "unset x\n"' \
		'op d "f 1\n"' 'op end eof' 'property exit 0' 'depth 3' >dash.scn
	first= differ=0 live=0 r=0
	for ex in replay replay replay replay replay fork fork; do
		r=$((r + 1))
		"$CMC" check --keep-going --jobs 2 --exec $ex --json --db dash-$r.db dash.scn >dash.json 2>dash.err
		n=$(json_get dash.json distinct)
		[ -n "$first" ] || first=$n
		[ "$n" = "$first" ] || differ=$((differ + 1))
		# every state whose last step is `end` has exited (the dump's
		# columns: id, trace, status, ...; a trace ends in /end@ID)
		"$CMC_TOP/$B/tests-helpers/store-dump" dash-$r.db >dash-$r.states 2>&1
		l=$(awk -F'\t' '$2 ~ /\/end@[0-9]+$/ && $3 !~ /exit/' dash-$r.states | wc -l)
		ended=$(awk -F'\t' '$2 ~ /\/end@[0-9]+$/' dash-$r.states | wc -l)
		[ "$ended" -gt 0 ] || live=$((live + 1000))
		live=$((live + l))
	done
	is "dash at end of input: one count ($first) on every run, under either executor" "$differ" 0
	is "dash at end of input: every state after end has exited" "$live" 0
else
	skip "dash at end of input" "/bin/dash is not installed"
fi

done_testing
