#!/bin/sh
# t6500-interrupt.sh — an interrupted run is a state of the run, not an
# error: SIGINT, SIGTERM or SIGHUP from the user stores what was found,
# marks the run `interrupted`, exits 128 + the signal, and `cmc check
# --resume RUN` ends with the counts of an uninterrupted run, under both
# executors and with one or two jobs.  --resume refuses options that change
# the state space (exit 2, naming the option and both values) unless
# --force, which marks the run bounded.  A target that signals cmc is a
# fault of that target (`signal`), not an interruption.
#
# The signal is sent by this script, as a user would, once the target has
# run a `poke` operation (it appends to a file): the search has begun, and
# the point is chosen by progress, never by time.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/sigcmc
[ -x "$H" ] || { skip "interrupts" "no $H (make builds it)"; done_testing; exit; }

# 8 once-operations that each set a bit, and one that pokes: every subset,
# 2^9 = 512 states; long enough that the run is still going when the poke
# (at depth 2) has been answered and the signal arrives.
{
	echo "target $H"
	echo "env SIGCMC_POKE=$T/poked"
	printf '%s\n' 'op "poke" "poke\n" once'
	for k in 0 1 2 3 4 5 6 7; do printf 'op "b%s" "set %s\\n" once\n' $k $k; done
	echo 'hash raw'
	echo 'raw segments'
} >bits.scn
counts() { for k in distinct generated transitions depth; do printf '%s ' "$(json_get "$1" $k)"; done; }
field() { # db key: of run 1
	"$CMC" runs --db "$1" --json 2>/dev/null | sed -n "s/.*\"id\": 1,.*\"$2\": \"*\([^,\"]*\)\"*,.*/\1/p" | head -n 1
}

# (by fork: the counts are the same under replay, t5300; a replay of all
# 512 states alone took 18 s of make test)
"$CMC" check --exec fork --jobs 1 bits.scn --no-store --json >ref.json 2>ref.err
[ -s ref.json ] || sed "s/^/# /" ref.err | head -5
is "the uninterrupted run has 512 states" "$(json_get ref.json distinct)" 512
want=$(counts ref.json)

# interrupt EXEC JOBS SIGNAL CODE
interrupt() {
	ex=$1 j=$2 sig=$3 code=$4 db=i-$1-$2-$3.db name="$3 under $1, --jobs $2"
	rm -f poked
	"$CMC" check --exec $ex --jobs $j bits.scn --db $db --json >int.json 2>int.err &
	pid=$!
	signal_when $pid $sig poked
	wait $pid
	is "$name: exits $code" "$?" "$code"
	is "$name: the run is marked interrupted" "$(field $db status)" interrupted
	is "$name: --json says interrupted" "$(json_get int.json interrupted)" true
	is "$name: ... and names the signal" "$(json_get int.json signal)" "SIG$sig"
	is "$name: no error" "$(json_get int.json error)" null
	ok "$name: it says how to resume" grep -q "cmc check --resume 1" int.err
	n=$(json_get int.json distinct)
	ok "$name: it stopped before the end ($n states)" test "${n:-512}" -lt 512
	"$CMC" check --exec $ex --jobs $j bits.scn --db $db --resume 1 --json >res.json 2>res.err
	is "$name: --resume ends cleanly" "$?" 0
	is "$name: ... with the uninterrupted run's counts" "$(counts res.json)" "$want"
	is "$name: ... and the run is complete" "$(field $db status)" complete
	is "$name: ... and stored every state" "$(field $db stored_states)" 512
}
interrupt replay 1 INT 130
interrupt fork 2 TERM 143
interrupt fork 1 HUP 129
interrupt replay 2 INT 130

# ---- --resume with other options ----------------------------------------
rm -f poked
"$CMC" check --exec fork --jobs 1 bits.scn --db o.db --json >int.json 2>int.err &
pid=$!
signal_when $pid INT poked
wait $pid
is "options: interrupted" "$(field o.db status)" interrupted
"$CMC" check --exec fork bits.scn --db o.db --resume 1 --max-depth 3 >/dev/null 2>err.txt
is "--resume with a smaller --max-depth is refused" "$?" 2
ok "... naming the option and both values" grep -q -- "--max-depth.*had 0.*has 3" err.txt
is "... and the run is still interrupted" "$(field o.db status)" interrupted
"$CMC" check --exec fork bits.scn --db o.db --resume 1 --hash canonical >/dev/null 2>err.txt
is "--resume with another --hash is refused" "$?" 2
ok "... naming it" grep -q -- "--hash differs" err.txt
# the executor is no part of the state space
"$CMC" check --exec replay bits.scn --db o.db --resume 1 --max-depth 3 --force >f.out 2>err.txt
is "--force resumes anyway" "$?" 0
ok "... and the run is reported bounded" grep -q 'bounded search' f.out
not_ok "... never 'the whole state space was explored'" grep -q 'whole state space' f.out
is "... bounded in the store too" "$(field o.db bounded)" true
is "... and not complete" "$(field o.db complete)" false

# ---- a target that signals cmc -------------------------------------------
# sig: the target itself; child: a process it forked.  As root the targets
# run in a pid namespace of their own, from which cmc cannot be named at
# all (below); the attribution is for runs without one (CMC_NO_PIDNS=1, as
# without root), where the target's signal does reach cmc.
export CMC_NO_PIDNS=1
for how in sig child; do
	for S in 15 2 1; do
		{
			echo "target $H"
			printf '%s\n' 'op "b0" "set 0\n" once' 'op "b1" "set 1\n" once'
			printf 'op "kill" "%s %s\\n" once\n' $how $S
			echo 'hash raw'
			echo 'raw segments'
		} >t.scn
		for ex in replay fork; do
			for j in 1 2; do
				name="a target's $how $S to cmc ($ex, --jobs $j)"
				"$CMC" check --exec $ex --jobs $j t.scn --db t-$ex.db --json >t.json 2>t.err
				is "$name: a violation, exit 1" "$?" 1
				is "$name: ... of the signal fault" "$(first_violation t.json property)" signal
				if [ $how = sig ]; then
					is "$name: ... on the trace that sent it" "$(first_violation t.json trace)" '"kill"'
				else
					# a child of the target's sends it on its own time:
					# on a trace whose last step forked it
					tr=$(first_violation t.json trace)
					ok "$name: ... on a trace whose last step sent it ($tr)" \
						sh -c 'case "$1" in *\"kill\") exit 0 ;; esac; exit 1' - "$tr"
				fi
				is "$name: not an interruption" "$(json_get t.json interrupted)" false
			done
		done
	done
done
"$CMC" check --exec fork --keep-going t.scn --db t-k.db --json >t.json 2>t.err
is "--keep-going goes on past a target's signal: exit 1" "$?" 1
is "... every state explored (2^3)" "$(json_get t.json distinct)" 8
is "... a violation for each kill" "$(grep -o '"property": "signal"' t.json | wc -l | tr -d ' ')" 4
is "... the run is a violation, not interrupted" "$(field t-k.db status)" violation
# Two targets that signal cmc at once were one pending SIGHUP: under
# --jobs 2 one of them now and then went unjudged, and the count with it
# (9 states, 3 violations).  The seccomp wall (engine/proc/sigwall.c)
# stops each call in its caller, so nothing is ever pending.
{
	echo "target $H"
	printf 'op "b%d" "set %d\\n" once\n' 0 0 1 1 2 2
	printf '%s\n' 'op "kill" "child 1\n" once' 'op "self" "sig 15\n" once' 'hash raw' 'raw segments'
} >w.scn
for i in 1 2 3 4 5 6; do
	"$CMC" check --exec fork --jobs 2 --keep-going w.scn --no-store --json >w.json 2>w.err
	printf '%s %s\n' "$(json_get w.json distinct)" "$(grep -o '"property": "signal"' w.json | wc -l | tr -d ' ')"
done | sort | uniq -c | sed 's/^ *//' >w.counts
is "six runs at --jobs 2 count the same, every time" "$(wc -l <w.counts | tr -d ' ')" 1
# the 2^3 sets of bits, and each of them after kill and after self (a
# violation, not expanded further): 24 states, 16 violations
is "... 24 states, 16 signal faults" "$(cut -d' ' -f2- w.counts)" "24 16"
"$CMC" check --exec replay --jobs 1 --keep-going w.scn --no-store --json >w1.json 2>w1.err
is "... and what replay counts at --jobs 1" "$(cut -d' ' -f2- w.counts)" \
	"$(json_get w1.json distinct) $(grep -o '"property": "signal"' w1.json | wc -l | tr -d ' ')"
ok "... the target's own signal is its own" grep -q 'signal 15 (SIGTERM): a target must not' w1.json
ok "... its child's is from a process of its own" grep -q 'signal 1 (SIGHUP) from a process of its own' w1.json
# A raw kill(cmc, 0) asks whether cmc is there: from a namespace the
# kernel cannot name it; without one the wall says the same (ESRCH), so a
# target sees one world whichever containment it runs in.
{
	echo "target $H"
	printf '%s\n' 'op "pid" "probe pid\n" once' 'op "group" "probe group\n" once' \
		'op "all" "probe all\n" once' 'hash raw' 'raw segments' 'property reply * GONE'
} >p.scn
for ex in replay fork; do
	"$CMC" check --exec $ex p.scn --no-store --json >p.json 2>p.err
	rc=$?
	is "without a namespace, a probe of cmc, its group or everyone finds nothing ($ex): exit 0" "$rc" 0
	is "... no violation" "$(grep -c '"property"' p.json | tr -d ' ')" 0
	is "... every state explored (2^3)" "$(json_get p.json distinct)" 8
done
# Making cmc the owner of a descriptor's I/O signals (then any byte of
# input sent cmc SIGIO, whose default ended it: exit 157) fails as from a
# namespace, by every call that sets an owner; the target's own stays
# its to set.
for how in fcntl ex ioctl; do
	{
		echo "target $H"
		printf 'op "own" "own cmc %s\\n" once\nop "self" "own self %s\\n" once\n' $how $how
		printf '%s\n' 'op "x" "x\n"' 'depth 4' 'property reply own ESRCH' 'property reply self SET'
	} >o.scn
	for ex in replay fork; do
		"$CMC" check --exec $ex o.scn --no-store --json >o.json 2>o.err
		is "owner by $how ($ex): cmc is not one, the target is: exit 0" "$?" 0
		is "... every state explored" "$(json_get o.json distinct)" 4
	done
done
unset CMC_NO_PIDNS
"$CMC" check --exec fork --keep-going t.scn --no-store --json >t.json 2>t.err
rc=$?
if grep -q '"containment": "pid namespace"' t.json; then
	is "in a pid namespace of its own, a target cannot signal cmc: exit 0" "$rc" 0
	is "... no violation" "$(grep -c '"property": "signal"' t.json | tr -d ' ')" 0
	is "... every state explored (2^3)" "$(json_get t.json distinct)" 8
else
	skip "a target in a pid namespace" "no pid namespace here (not root?)"
fi
done_testing
