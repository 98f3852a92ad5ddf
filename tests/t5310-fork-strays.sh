#!/bin/sh
# t5310-fork-strays.sh — no snapshot outlives cmc.  The target is started
# through sh, which opens a FIFO on fd 7 first: every snapshot and child
# forked from the target inherits that fd, so `cat` on the FIFO ends exactly
# when the last of them has died (no sleeping, no polling).  The run is
# caught while a child hangs on its op and the root and one snapshot are
# alive; cmc is then stopped by SIGTERM, SIGINT or SIGKILL (for SIGKILL only
# PR_SET_PDEATHSIG can clean up: each snapshot is a child of cmc).
. "$CMC_TOP/tests/test-lib.sh"

PT=$T/pt-$$
cp "$CMC_TOP/$B/tests-helpers/proctarget" "$PT"
strays() { pgrep -f "$PT" | wc -l | tr -d ' '; }

mkfifo ready hold
cat >strays.scn <<EOF
target /bin/sh -c "exec 7>$T/hold; exec $PT"
op inc "inc\n" once
op hang "hang\n" once
timeout 20000
env PT_READY=$T/ready
env PT_HOLD=$T/hold
EOF
# (last: two workers, whose snapshots are children of two cmc threads)
for sig in TERM INT KILL KILL2; do
	jobs=1
	[ "$sig" = KILL2 ] && sig=KILL jobs=2
	timeout 20 cat hold >/dev/null &
	hpid=$!
	CMC_PROC_STATS=1 "$CMC" check --no-store --jobs $jobs --exec fork strays.scn >/dev/null 2>"err.$sig" &
	cpid=$!
	timeout 20 sh -c 'read x <ready'
	is "SIG$sig: a fork child reached its hang" "$?" 0
	[ "$jobs" = 1 ] && is "SIG$sig: root, snapshot and child alive" "$(strays)" 3
	kill -"$sig" "$cpid"
	wait "$hpid"
	is "SIG$sig: every snapshot died with cmc (the FIFO closed)" "$?" 0
	wait "$cpid" 2>/dev/null
	is "SIG$sig: no stray target processes" "$(strays)" 0
done
ok "the run used the fork executor" grep -q "executor fork" err.TERM

# A complete run leaves nothing behind either.
printf 'target %s\nop inc "inc\\n"\nop a "alloc 100\\n"\nraw symbol counter\nraw heap\ndepth 4\n' "$PT" >done.scn
"$CMC" check --no-store --exec fork done.scn >/dev/null 2>&1
is "complete run: exit 0" "$?" 0
is "complete run: no stray target processes" "$(strays)" 0

done_testing
