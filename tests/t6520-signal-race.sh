#!/bin/sh
# t6520-signal-race.sh — a target's signal to cmc is the fault of the
# operation that sent it, every time, also when the search's workers and
# the machine are busy: `cmc check --exec replay --jobs 2` of a target
# whose `kill` operation signals cmc, run again and again while busy loops
# take the CPUs.  A signal cmc reads only after that operation's
# observation would miss it (no fault there, or the fault on a later trace,
# or an interruption).
#
# As t6500, with CMC_NO_PIDNS: from a PID namespace of its own a target
# cannot name cmc at all.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/sigcmc
[ -x "$H" ] || { skip "target signals" "no $H (make builds it)"; done_testing; exit; }
export CMC_NO_PIDNS=1
N=${T6520_RUNS:-20}

for S in 15 2 1; do
	{
		echo "target $H"
		printf '%s\n' 'op "b0" "set 0\n" once' 'op "b1" "set 1\n" once'
		printf 'op "kill" "sig %s\\n" once\n' $S
		echo 'hash raw'
		echo 'raw segments'
	} >t$S.scn
done

# Busy loops, one more than there are CPUs, for the duration of the runs.
hogs=
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
k=0
while [ $k -le "$ncpu" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	k=$((k + 1))
done
trap 'kill $hogs 2>/dev/null; rm -rf "$T"' EXIT INT TERM

i=0 bad=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	case $((i % 3)) in 0) S=15 ;; 1) S=2 ;; *) S=1 ;; esac
	"$CMC" check --exec replay --jobs 2 t$S.scn --no-store --json >t.json 2>t.err
	rc=$? p=$(first_violation t.json property) tr=$(first_violation t.json trace)
	intr=$(json_get t.json interrupted)
	if [ "$rc/$p/$tr/$intr" != '1/signal/"kill"/false' ]; then
		bad=$((bad + 1))
		echo "# run $i (signal $S): exit $rc, violation '$p' on [$tr], interrupted $intr"
	fi
done
kill $hogs 2>/dev/null
is "a target's signal is the fault of the op that sent it in each of $N busy runs (replay, --jobs 2)" \
	"$bad" 0
done_testing
