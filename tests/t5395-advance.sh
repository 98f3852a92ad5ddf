#!/bin/sh
# t5395-advance.sh — time as an operation: `op LABEL advance DURATION`
# moves the target's virtual clock on at once (preload/detwait.c), a timed
# wait whose deadline it reaches times out, one it does not reach goes on
# for the time left.  tests/proc/expirytarget.c keeps a record that
# expires 10 s after SET (GET says GONE once it has), sweeps it from a
# 1 s poll() timer, and answers a third PING within 5 s with SLOW.  The
# same under both executors.
. "$(dirname "$0")/test-lib.sh"
XT=$CMC_TOP/$B/tests-helpers/expirytarget

printf 'target %s\nop SET "SET\\n" once\nop GET "GET\\n"\nop "wait 11s" advance 11s once\nproperty reply GET "[!G]*"\n' \
	"$XT" >expiry.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --no-store expiry.scn >ex-$ex.out 2>&1
	is "expiry ($ex): exit 1, a violation" "$?" 1
	ok "expiry ($ex): GET says GONE once the record expired" grep -q 'it was "GONE"' ex-$ex.out
	ok "expiry ($ex): the shortest trace is SET, the advance, GET" \
		sh -c "grep -A4 '^  trace (3 steps)' ex-$ex.out | tr -d ' ' | tr '\n' ' ' | grep -q '1:SET 2:wait11s 3:GET'"
done

# The whole space: the same states under both executors; the sweep the
# advance set off freed the record (SET and SET, wait 11s differ by heap).
printf 'target %s\nop SET "SET\\n" once\nop GET "GET\\n"\nop "wait 11s" advance 11s once\nop half advance 500ms\ndepth 4\n' \
	"$XT" >space.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --db sp-$ex.db --json space.scn >sp-$ex.json 2>sp-$ex.err
	is "space ($ex): exit 0" "$?" 0
	ok "space ($ex): 10 distinct states, 29 generated" \
		sh -c "grep -q '\"distinct\": *10[,}]' sp-$ex.json && grep -q '\"generated\": *29[,}]' sp-$ex.json"
	sqlite3 sp-$ex.db 'SELECT fp FROM states ORDER BY fp' >fps-$ex
done
ok "space: the same fingerprints under both executors" cmp fps-replay fps-fork
set_raw=$(sqlite3 sp-replay.db "SELECT raw_fp FROM states WHERE depth = 2 AND label = 'SET'")
swept_raw=$(sqlite3 sp-replay.db "SELECT s.raw_fp FROM states s JOIN states p ON p.run = s.run AND p.id = s.parent WHERE s.label = 'wait 11s' AND p.label = 'SET'")
ok "space: before and after the expiry the heaps differ (the timer swept the record)" \
	sh -c "test -n '$set_raw' && test -n '$swept_raw' && test '$set_raw' != '$swept_raw'"

# Half of the wait's timeout: the wait goes on with the rest (a state of
# its own); the second half ends it, the timer finds nothing to sweep and
# waits again: the initial state once more.
printf 'target %s\nop half advance 500ms\ndepth 2\n' "$XT" >half.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --no-store --json half.scn >half-$ex.json 2>half-$ex.err
	ok "half ($ex): 2 distinct states, 3 generated (half, half is the initial state)" \
		sh -c "grep -q '\"distinct\": *2[,}]' half-$ex.json && grep -q '\"generated\": *3[,}]' half-$ex.json"
done

# A rate limiter: a third PING within 5 s is SLOW; 5 s between lets it pass.
printf 'target %s\nop PING "PING\\n"\nop "5s" advance 5s\nproperty reply PING "PONG"\ndepth 3\n' "$XT" >rate.scn
"$CMC" check --no-store rate.scn >rate.out 2>&1
is "rate: exit 1" "$?" 1
ok "rate: three pings in a row are SLOW" sh -c "grep -q 'it was \"SLOW\"' rate.out && grep -q 'trace (3 steps)' rate.out"
"$CMC" replay rate.scn PING PING 5s PING >rr.out 2>&1
is "rate: replay PING PING 5s PING holds (exit 0)" "$?" 0

# Bad durations: file:line and what was expected, exit 2.
for d in 10 0s 25d 9999999999ms; do
	printf 'target %s\nop w advance %s\n' "$XT" "$d" >bad.scn
	"$CMC" check --no-store bad.scn >bad.out 2>&1
	is "advance $d: exit 2" "$?" 2
	ok "advance $d: line 2, what a duration is" grep -q "bad.scn:2: expected 'op LABEL advance DURATION" bad.out
done
done_testing
