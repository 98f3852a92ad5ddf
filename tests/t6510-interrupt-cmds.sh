#!/bin/sh
# t6510-interrupt-cmds.sh — `cmc simulate` and `cmc replay` are interrupted
# as `cmc check` is (t6500): SIGINT, SIGTERM or SIGHUP from the user stops
# them cleanly, every target process is killed and reaped, one line on
# stderr says so, --json says "interrupted", and cmc exits 128 + the
# signal.  A target that signals cmc is a `signal` fault of that target,
# not an interruption.
#
# The signal is sent once a target hangs in its `hang` operation: the
# target is started through sh, which opens a FIFO on fd 7 first, so
# `read <ready` says when it hangs and `cat hold` ends exactly when the last
# process that inherited the FIFO has died (as t5310): no sleeping.
#
# A target can only signal cmc when it can see it: not from a PID namespace
# of its own, so that part runs with CMC_NO_PIDNS.
. "$(dirname "$0")/test-lib.sh"

PT=$T/pt-$$
cp "$CMC_TOP/$B/tests-helpers/proctarget" "$PT"
strays() { pgrep -f "$PT" | wc -l | tr -d ' '; }

mkfifo ready hold
cat >hang.scn <<EOF
target /bin/sh -c "exec 7>$T/hold; exec $PT"
op inc "inc\n" once
op hang "hang\n" once
timeout 20000
env PT_READY=$T/ready
env PT_HOLD=$T/hold
EOF

# interrupt NAME SIGNAL CODE CMD... — run CMD, signal it when the target
# hangs, and check how it ended.
interrupt() {
	name=$1 sig=$2 code=$3
	shift 3
	timeout 40 cat hold >/dev/null &
	hpid=$!
	# the replay executor starts a target for each step: the FIFO must
	# not see its end between them, so the test holds it until the hang
	exec 8>hold
	"$@" >out.txt 2>err.txt 8>&- &
	cpid=$!
	timeout 30 sh -c 'read x <ready'
	r=$?
	is "$name: the target reached its hang" "$r" 0
	[ "$r" = 0 ] || sed 's/^/# /' err.txt | head -n 5
	exec 8>&-
	kill -"$sig" "$cpid"
	wait "$cpid"
	is "$name: exits $code" "$?" "$code"
	wait "$hpid"
	is "$name: every target process had died (the FIFO closed)" "$?" 0
	is "$name: no stray target process" "$(strays)" 0
	is "$name: one line says it was interrupted" \
		"$(grep -c "^cmc [a-z]*: interrupted by SIG$sig" err.txt)" 1
	not_ok "$name: no error on stderr" grep -qi "error\|failed" err.txt
}

# ---- simulate ------------------------------------------------------------
interrupt "simulate, SIGINT" INT 130 "$CMC" simulate --walks 1000 --json hang.scn
is "simulate --json says interrupted" "$(json_get out.txt interrupted)" true
is "... and names the signal" "$(json_get out.txt signal)" SIGINT
is "... no error" "$(json_get out.txt error)" null
interrupt "simulate, SIGTERM" TERM 143 "$CMC" simulate --walks 1000 hang.scn
ok "simulate: the summary says interrupted" grep -q "interrupted by SIGTERM" out.txt
interrupt "simulate, SIGHUP" HUP 129 "$CMC" simulate --walks 1000 hang.scn

# ---- replay --------------------------------------------------------------
interrupt "replay --exec replay, SIGINT" INT 130 "$CMC" replay --exec replay --json hang.scn inc hang
is "replay --json: the verdict is interrupted" "$(json_get out.txt verdict)" interrupted
is "... interrupted" "$(json_get out.txt interrupted)" true
is "... names the signal" "$(json_get out.txt signal)" SIGINT
is "... and the exit code" "$(json_get out.txt exit)" 130
ok "... the step it was in is interrupted, not an error" grep -q '"label": "hang", [^}]*"outcome": "interrupted"' out.txt
interrupt "replay --exec fork, SIGTERM" TERM 143 "$CMC" replay --exec fork hang.scn inc hang
ok "replay: the last line says interrupted" sh -c 'tail -n 1 out.txt | grep -q "interrupted by SIGTERM after 1 of 2 steps"'
ok "... and the step it was in is INTERRUPTED" grep -q "^   2  INTERRUPTED .* hang" out.txt
interrupt "replay --exec replay, SIGHUP" HUP 129 "$CMC" replay --exec replay hang.scn inc hang

# ---- a target that signals cmc -------------------------------------------
H=$CMC_TOP/$B/tests-helpers/sigcmc
CMC_NO_PIDNS=1
export CMC_NO_PIDNS
for how in sig child; do
	for S in 15 2 1; do
		{
			echo "target $H"
			printf '%s\n' 'op "b0" "set 0\n" once'
			printf 'op "kill" "%s %s\\n" once\n' $how $S
			echo 'hash raw'
			echo 'raw segments'
		} >t.scn
		name="simulate: a target's $how $S to cmc"
		"$CMC" simulate --walks 3 --json t.scn >t.json 2>t.err
		is "$name: a violation, exit 1" "$?" 1
		is "$name: ... of the signal fault" "$(first_violation t.json property)" signal
		is "$name: not an interruption" "$(json_get t.json interrupted)" false
		for ex in replay fork; do
			name="replay --exec $ex: a target's $how $S to cmc"
			"$CMC" replay --exec $ex --json t.scn b0 kill >t.json 2>t.err
			is "$name: a violation, exit 1" "$?" 1
			is "$name: ... of the signal fault at the kill" \
				"$(sed -n 's/.*"violation": {"property": "\([a-z]*\)".*"step": \([0-9]*\).*/\1 \2/p' t.json)" "signal 2"
			is "$name: not an interruption" "$(json_get t.json interrupted)" false
		done
	done
done
done_testing
