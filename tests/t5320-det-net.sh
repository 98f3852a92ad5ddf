#!/bin/sh
# t5320-det-net.sh — a TCP server's state does not depend on the ports cmc
# happens to use or on how long it sat waiting: in the deterministic
# environment the target is told port 7070 and sees only it, sees its
# clients (cmc) at port 40000 (preload/detnet.c), and a wait with a
# timeout on a descriptor does not time out (preload/detwait.c).  The test
# server keeps all of that in its heap, plus a count of its event loop's
# timeouts (a 1 ms tick), under poll, select and epoll.  Before, every run
# of one trace reached another raw state, so the replay executor, fork
# snapshots and `cmc replay` disagreed.
. "$CMC_TOP/tests/test-lib.sh"

NT=$CMC_TOP/$B/tests-helpers/nettarget

scn() { # HOW [EXTRA LINE]
	printf 'target %s {port} --%s\ntransport tcp\nop a "a\\n"\nop b "b\\n"\nop ports "ports\\n" once\n' "$NT" "$1"
	printf 'property reply ports "PORTS 7070 7070 40000 40000"\nhash raw\ndepth 3\n%s\n' "${2:-}"
}

for how in poll select epoll; do
	scn "$how" >"$how.scn"
	for e in replay fork; do
		CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec "$e" "$how.scn" >"$how.$e.json" 2>"$how.$e.err"
		echo $? >"$how.$e.rc"
	done
	# 1 + 3 + 8 + 20 traces of at most 3 operations (ports at most once),
	# each its own state: none merges by chance, none splits by a port
	is "$how: replay executor: no violation (the target saw 7070 and 40000)" "$(cat "$how.replay.rc")" 0
	is "$how: replay executor: one state per trace" "$(json_get "$how.replay.json" distinct)" 32
	json_untimed "$how.replay.json" >"$how.replay.cmp"
	json_untimed "$how.fork.json" >"$how.fork.cmp"
	ok "$how: the fork executor gives the same --json" diff "$how.replay.cmp" "$how.fork.cmp"
	"$CMC" replay "$how.scn" a ports b a >"$how.rp.out" 2>&1
	is "$how: cmc replay reproduces a trace in two fresh processes" "$?" 0
done
ok "poll: fork snapshots were used" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" poll.fork.err
# epoll too: each child gets an epoll instance of its own, watching its
# fresh connection (preload/epoll.c), instead of falling back to replay
ok "epoll: fork snapshots were used" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" epoll.fork.err
not_ok "epoll: no fall back to replay" grep -q "fork snapshots unavailable" epoll.fork.err

CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 2 --exec fork poll.scn >poll.j2.json 2>poll.j2.err
is "poll: --jobs 2 (a root per worker, on other ports) finds the same states" \
	"$(json_get poll.j2.json distinct)" 32

# The property is really evaluated: a pattern the reply does not match
# is reported, with the reply.
sed 's/PORTS 7070 7070 40000 40000/PORTS 1 2 3 4/' poll.scn >wrong.scn
"$CMC" check --no-store --exec replay wrong.scn >wrong.out 2>&1
is "a reply property that does not hold is a violation (exit 1)" "$?" 1
ok "... whose message shows what the target saw" grep -q "PORTS 7070 7070 40000 40000" wrong.out

# A timeout is an operation: `op t timeout` lets the wait the target
# sleeps in time out (its 50 ms tick), in every order with the inputs.
# TICKS 2 needs two of them before the query: the shortest violation.
printf 'target %s {port} --poll --tick 50\ntransport tcp\nop a "a\\n" once\nop t timeout\nop q "ticks\\n"\nproperty reply q "TICKS [01]"\ndepth 4\nhash raw\n' "$NT" >to.scn
for e in replay fork; do
	"$CMC" check --no-store --json --jobs 1 --exec "$e" to.scn >"to.$e.json" 2>"to.$e.err"
	is "timeout op ($e): the property fails (exit 1)" "$?" 1
	ok "timeout op ($e): shortest trace: two timeouts, then the query" \
		grep -q '"trace": \["t", "t", "q"\]' "to.$e.json"
done
is "timeout op: both executors find as many states" "$(json_get to.fork.json distinct)" \
	"$(json_get to.replay.json distinct)"
for how in select epoll; do
	sed "s/--poll/--$how/" to.scn >"to-$how.scn"
	"$CMC" check --no-store --json --jobs 1 "to-$how.scn" >"to-$how.json" 2>/dev/null
	ok "timeout op under $how: the same shortest trace" grep -q '"trace": \["t", "t", "q"\]' "to-$how.json"
done
"$CMC" replay to.scn t a t q >to.rp 2>&1
is "timeout op: cmc replay of t a t q reproduces the failing reply (exit 1)" "$?" 1
ok "... the two runs agree on every step" test "$(grep -Ec '^ +[0-9]+ +agreed ' to.rp)" = 5
ok "... and the query's reply is the violation" grep -q '^violation reproduced: reply:q at step 4 (q): .*TICKS 2' to.rp
# With no timed wait (no timeout at all) the operation changes nothing:
# the states are those of the scenario without it.
sed 's/--tick 50/--tick -1/; /^property/d' to.scn >none.scn
sed '/^op t timeout/d' none.scn >none-no-t.scn
"$CMC" check --no-store --json --jobs 1 none.scn >none.json 2>/dev/null
"$CMC" check --no-store --json --jobs 1 none-no-t.scn >none-no-t.json 2>/dev/null
is "timeout op without a timed wait: no new state" "$(json_get none.json distinct)" \
	"$(json_get none-no-t.json distinct)"
ok "... though it was applied" test "$(json_get none.json generated)" -gt "$(json_get none-no-t.json generated)"
# A timed wait is part of the state: "timer 50" arms the tick without
# touching the heap (nettarget keeps it in a local), so [on] has the heap
# of the initial state, which waits with no timeout.  Merged, the tick
# after it was never tried; distinct, [on, t, q] shows TICKS 1.
printf 'target %s {port} --poll --tick -1\ntransport tcp\nop on "timer 50\\n"\nop t timeout\nop q "ticks\\n"\nproperty reply q "TICKS 0"\ndepth 4\nhash raw\n' "$NT" >arm.scn
for e in replay fork; do
	"$CMC" check --no-store --json --jobs 1 --exec "$e" arm.scn >"arm.$e.json" 2>"arm.$e.err"
	is "timed wait as state ($e): the tick after arming is found (exit 1)" "$?" 1
	ok "timed wait as state ($e): shortest trace on, t, q" grep -q '"trace": \["on", "t", "q"\]' "arm.$e.json"
done

# A fork snapshot's child comes back into its timed wait only after the
# EINTR the fork request left it, and here it takes its time about it
# (--eintr-spin): a timeout operation sent to it at once found no timed
# wait (wait_ms 0) and was lost, so [on, t] looked like [on].
sed 's/--tick -1/--tick -1 --eintr-spin 20/' arm.scn >spin.scn
"$CMC" check --no-store --json --jobs 1 --exec fork spin.scn >spin.json 2>spin.err
is "a child slow back into its wait (fork): the tick after arming is found (exit 1)" "$?" 1
ok "... shortest trace on, t, q" grep -q '"trace": \["on", "t", "q"\]' spin.json

# Without the deterministic environment the addresses are the real ones
# and the tick runs on real time: two runs of one trace part at once.
# Each run starts a target of its own (the replay executor), so each holds
# the real port of its own connection; under fork snapshots both runs
# would come from one root, one connection, and differ only by the ticks
# real time left them, which a fast enough run does not.
scn poll "env CMC_DETERMINISTIC=0" >real.scn
CMC_EXEC=replay "$CMC" replay real.scn a b >real.out 2>&1
is "with CMC_DETERMINISTIC=0, two runs of a trace differ (exit 3)" "$?" 3
ok "... and replay says the target is nondeterministic" grep -q "nondeterministic" real.out

done_testing
