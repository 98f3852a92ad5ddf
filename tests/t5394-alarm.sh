#!/bin/sh
# t5394-alarm.sh — alarm() and setitimer() on the virtual clock (issue 23,
# preload/detalarm.c): SIGALRM comes when an `advance` reaches the
# deadline, never by real time, so a trace ends in the same state on
# every run and under both executors.  The target is
# tests/proc/alarmtarget.c (ARM n: alarm(n); TICK ms: an interval timer;
# NAP ms: a real sleep; LEFT: getitimer; GET: SIGALRMs counted).
. "$(dirname "$0")/test-lib.sh"
AT=$CMC_TOP/$B/tests-helpers/alarmtarget

# alarm(1) and 1.3 s of real time, SIGALRM's default action: before, the
# target died wherever the real second ran out (a crash "after" some
# operation, which one depending on timing); now nothing fires.
printf 'target %s\nop "ARM 1" "ARM 1\\n" once\nop nap "NAP 1300\\n" once\n' "$AT" >real.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --db real-$ex.db --json real.scn >real-$ex.json 2>real-$ex.err
	is "real time ($ex): exit 0" "$?" 0
	ok "real time ($ex): no SIGALRM, no violation" grep -q '"violations": \[\]' real-$ex.json
done
ok "real time: the same fingerprints under both executors" \
	sh -c "sqlite3 real-replay.db 'SELECT fp FROM states ORDER BY fp' >a && sqlite3 real-fork.db 'SELECT fp FROM states ORDER BY fp' >b && cmp a b"

# With a handler: ARM 1 and advances of 600 ms.  The alarm fires on the
# second advance (1.2 s > 1 s), not the first; the armed alarm is part of
# the state, so ARM 1, adv is not ARM 1 (which would merge the two and
# never try the second advance).
printf 'target %s handle\nop "ARM 1" "ARM 1\\n" once\nop adv advance 600ms\nop GET "GET\\n"\ndepth 5\n' "$AT" >adv.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --db adv-$ex.db --json adv.scn >adv-$ex.json 2>adv-$ex.err
	is "advance ($ex): exit 0" "$?" 0
done
ok "advance: the same fingerprints under both executors" \
	sh -c "sqlite3 adv-replay.db 'SELECT fp FROM states ORDER BY fp' >a && sqlite3 adv-fork.db 'SELECT fp FROM states ORDER BY fp' >b && test -s a && cmp a b"
# the state at the end of trace LABELS... (one label a line)
at() {
	db=$1
	shift
	id=0
	for l in "$@"; do
		id=$(sqlite3 "$db" "SELECT target FROM transitions WHERE source = $id AND label = '$l'")
		[ -n "$id" ] || return 1
	done
	echo "$id"
}
s=$(at adv-replay.db "ARM 1" adv GET)
"$CMC" show --db adv-replay.db "$s" >s1.out
ok "ARM 1, adv (600 ms), GET: not fired yet" grep -q '^reply  *"fired 0\\n"' s1.out
s=$(at adv-replay.db "ARM 1" adv adv GET)
"$CMC" show --db adv-replay.db "$s" >s2.out
ok "ARM 1, adv, adv (1.2 s), GET: fired once" grep -q '^reply  *"fired 1\\n"' s2.out
s=$(at adv-replay.db adv "ARM 1" adv GET)
"$CMC" show --db adv-replay.db "$s" >s3.out
ok "adv before ARM 1 does not count: adv, ARM 1, adv, GET: not fired" grep -q '^reply  *"fired 0\\n"' s3.out
ok "ARM 1, adv is a state of its own (not merged into ARM 1)" \
	test "$(at adv-replay.db "ARM 1" adv)" != "$(at adv-replay.db "ARM 1")"

# Without a handler the advance that reaches the deadline ends the target:
# a crash with exactly that trace.
printf 'target %s\nop "ARM 1" "ARM 1\\n" once\nop adv advance 1s once\n' "$AT" >kill.scn
"$CMC" check --no-store --json kill.scn >kill.json 2>/dev/null
ok "no handler: SIGALRM ends the target after ARM 1, adv" \
	grep -q '"property": "crash", "message": "target died on signal 14 (Alarm clock) after adv", "state": [0-9]*, "trace": \["ARM 1", "adv"\]' kill.json

# What alarm() returns: the seconds the previous alarm had left, on the
# virtual clock (5 s armed, 2 s passed: 3).
printf 'target %s handle\nop "ARM 5" "ARM 5\\n" once\nop adv advance 2s once\nop "ARM 0" "ARM 0\\n" once\ndepth 4\n' "$AT" >ret.scn
"$CMC" check --db ret.db ret.scn >/dev/null 2>&1
s=$(at ret.db "ARM 5" adv "ARM 0")
"$CMC" show --db ret.db "$s" >ret.out
ok "alarm(0) after alarm(5) and 2 s: prev 3" grep -q '^reply  *"prev 3\\n"' ret.out
s=$(at ret.db "ARM 5" "ARM 0")
"$CMC" show --db ret.db "$s" >ret2.out
ok "alarm(0) at once after alarm(5): prev 5" grep -q '^reply  *"prev 5\\n"' ret2.out

# An interval timer: every 100 ms; an advance of 250 ms passes two
# deadlines and delivers one SIGALRM (a pending signal coalesces); the
# next deadline is 300 ms, 50 ms after the clock.
printf 'target %s handle\nop tick "TICK 100\\n" once\nop adv advance 250ms once\nop GET "GET\\n" once\nop LEFT "LEFT\\n" once\ndepth 4\n' "$AT" >tick.scn
"$CMC" check --db tick.db tick.scn >/dev/null 2>&1
s=$(at tick.db tick adv GET)
"$CMC" show --db tick.db "$s" >tick.out
ok "interval timer: one SIGALRM for an advance past two periods" grep -q '^reply  *"fired 1\\n"' tick.out
s=$(at tick.db tick adv LEFT)
"$CMC" show --db tick.db "$s" >left.out
ok "interval timer: the next deadline is the first after the clock (50 ms left)" \
	grep -q '^reply  *"left 0.050000\\n"' left.out

# What cmc does not drive is said: a timerfd or a POSIX timer runs on real
# time, so replay warns once a run (fork falls back to replay for a
# timerfd, saying the same).
for k in "TFD 60000" PTIMER; do
	printf 'target %s\nop arm "%s\\n" once\nop GET "GET\\n" once\n' "$AT" "$k" >t.scn
	"$CMC" check --no-store --exec replay --jobs 2 t.scn >t.out 2>t.err
	is "$k: replay runs it (exit 0)" "$?" 0
	is "$k: replay says once that it runs on real time" \
		"$(grep -c "the target holds a .*, which runs on real time, not cmc's virtual clock: states and counts may differ from run to run" t.err)" 1
done
printf 'target %s tfd\nop GET "GET\\n" once\n' "$AT" >tf.scn
"$CMC" check --no-store --exec fork tf.scn >tf.out 2>tf.err
ok "timerfd under fork: falls back, saying it runs on real time" \
	grep -q "the target holds an timerfd (fd [0-9]*), which fork shares between snapshots; it runs on real time" tf.err
ok "an alarm is not such a timer: no warning" not_ok grep -q "real time" real-replay.err

done_testing
