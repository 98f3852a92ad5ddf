#!/bin/sh
# t6010-pid-world.sh — a target reaches no process outside its run (issue
# 18), under both executors.  The target is tests/proc/pidworld.c; each mode
# misbehaves on `evil` after `a`.
#   forge    it writes a forged FORKED message naming a process this test
#            started (sleep): cmc must not take it for a snapshot's child
#            (fork: a protocol fault with its trace; replay never reads the
#            socket), and the sleep lives on.
#   signal   it signals its parent (getppid(), which the preload shows as 1)
#            in every way libc has, killpg(getppid()) being kill(-1).  The
#            run happens inside a PID namespace of the test's own (unshare),
#            whose pid 1 is a shell that records the signals it gets: none
#            may arrive, and cmc must end normally.  With and without cmc's
#            own namespace (CMC_NO_PIDNS=1: the preload alone keeps them).
#   escape   it leaves its cgroups, calls setsid, clears its death signal
#            and double-forks a long sleeper: nothing of it may be left
#            once cmc has exited (root: cmc's PID namespace).
. "$(dirname "$0")/test-lib.sh"

PW=$CMC_TOP/$B/tests-helpers/pidworld
if [ ! -x "$PW" ]; then
	skip "pid world" "$PW is not built"
	done_testing
	exit
fi
mark=cmc-t6010-$$-$(date +%N)
# Processes of this test's escape mode still alive.
left() { pgrep -f "pidworld escape $mark" | wc -l | tr -d ' '; }
cleanup() {
	for p in $(pgrep -f "pidworld escape $mark"); do kill -9 "$p" 2>/dev/null; done
	[ -n "${victim:-}" ] && kill "$victim" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

scn() { # mode args...
	m=$1
	shift
	cat <<EOF
target $PW $m $*
op a "a\n" once
op evil "evil\n" once
op b "b\n" once
op c "c\n" once
property reply * "OK*"
timeout 2000
EOF
}

# ---- item 1: a forged FORKED message --------------------------------------
for ex in fork replay; do
	[ -n "${victim:-}" ] && kill "$victim" 2>/dev/null
	sleep 1000 &
	victim=$!
	scn forge "$victim" >forge.scn
	timeout 60 "$CMC" check --no-store --exec $ex --json forge.scn >forge-$ex.json 2>forge-$ex.err
	rc=$?
	ok "forge ($ex): the sleep the message names still lives" kill -0 "$victim"
	ok "forge ($ex): cmc itself ended normally (not killed)" test "$rc" -lt 128
	# The message comes between fork requests: under either executor cmc
	# reads it after the operation, and it is that operation's fault.
	is "forge ($ex): a violation (exit 1)" "$rc" 1
	ok "forge ($ex): a protocol fault, the forged message its reason, after [a, evil]" \
		grep -q '"property": "protocol", "message": "[^"]*FORKED[^"]*", "state": [0-9]*, "trace": \["a", "evil"\]' \
		forge-$ex.json
done
ok "forge: the same violations under either executor" \
	sh -c 'for e in fork replay; do sed "s/.*\"violations\"//" forge-$e.json >forge-$e.v; done; cmp forge-fork.v forge-replay.v'

# Two workers share one pool of snapshots: the same.
timeout 60 "$CMC" check --no-store --exec fork --jobs 2 --json forge.scn >forge-j2.json 2>forge-j2.err
is "forge (fork, --jobs 2): a violation (exit 1)" "$?" 1
ok "forge (fork, --jobs 2): the protocol fault" grep -q '"property": "protocol", "message": "[^"]*FORKED' forge-j2.json
ok "forge (fork, --jobs 2): the sleep still lives" kill -0 "$victim"

# ---- item 2: signals to the virtual parent --------------------------------
scn signal >signal.scn
if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
	skip "signal" "unshare --pid --fork --mount-proc is refused here (not root?)"
else
	for ns in own none; do
		for ex in replay fork; do
			f=signal-$ex-$ns
			nopidns=
			[ $ns = none ] && nopidns=1
			rm -f got
			# pid 1 of this namespace records what reaches it
			CMC_NO_PIDNS=$nopidns unshare --pid --fork --mount-proc sh -c '
				trap "echo USR1 >>got" USR1
				trap "echo USR2 >>got" USR2
				trap "echo TERM >>got" TERM
				trap "echo HUP >>got" HUP
				timeout 60 "$CMC" check --no-store --exec '$ex' --json signal.scn >'$f'.json 2>'$f'.err
				echo $? >'$f'.rc' </dev/null
			is "signal ($ex, $ns namespace): cmc ends normally, nothing found" "$(cat $f.rc 2>/dev/null)" 0
			is "signal ($ex, $ns namespace): nothing reached pid 1" "$(cat got 2>/dev/null | sort -u | tr '\n' ' ')" ""
			ok "signal ($ex, $ns namespace): the whole state space was explored" \
				grep -q '"complete": true' $f.json
		done
	done
fi

# Outside the deterministic environment, in cmc's namespace, the parent
# (cmc, outside it) is 0 to the kernel, and kill(getppid(), sig) would
# signal the target's own group: the preload shows 1, the namespace's init.
if [ "$(id -u)" = 0 ]; then
	{ scn ppid; echo 'env CMC_DETERMINISTIC=0'; echo 'property reply evil "OK 1"'; } >ppid.scn
	for ex in replay fork; do
		timeout 60 "$CMC" check --no-store --exec $ex --json ppid.scn >ppid-$ex.json 2>ppid-$ex.err
		is "ppid ($ex): getppid() is 1 in cmc's namespace, not 0 (exit 0)" "$?" 0
	done
fi

# ---- item 3: a target that leaves its jail ---------------------------------
scn escape "$mark" >escape.scn
for ex in replay fork; do
	timeout 60 "$CMC" check --no-store --exec $ex --json escape.scn >escape-$ex.json 2>escape-$ex.err
	is "escape ($ex): cmc ends with exit 0" "$?" 0
	if [ "$(id -u)" = 0 ]; then
		ok "escape ($ex): the targets ran in a PID namespace" grep -q '"containment": "pid namespace"' escape-$ex.json
		is "escape ($ex): no process of the target's is left" "$(left)" 0
	else
		ok "escape ($ex): without root, the JSON says the namespace is missing" \
			grep -q '"containment": "process group (not root)"' escape-$ex.json
		ok "escape ($ex): ... and so does stderr" grep -q "without a PID namespace" escape-$ex.err
	fi
	for p in $(pgrep -f "pidworld escape $mark"); do kill -9 "$p" 2>/dev/null; done
done
# Without the namespace it is said once, on stderr and in the JSON.
CMC_NO_PIDNS=1 timeout 60 "$CMC" check --no-store --exec replay --json forge.scn >nons.json 2>nons.err
is "no namespace: said once on stderr" "$(grep -c 'without a PID namespace of their own' nons.err)" 1
ok "no namespace: and in the JSON" grep -q '"containment": "process group (CMC_NO_PIDNS is set)"' nons.json

done_testing
