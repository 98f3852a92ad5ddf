#!/bin/sh
# tests/fuzz/run.sh NAME... — run each $B/fuzz/NAME-fuzzer for FUZZ_SECONDS
# over a scratch copy of tests/fuzz/corpus/NAME and print one line per
# target: executions, corpus size, crashes (FUZZ_SECONDS_NAME: one
# target's own time).  FUZZ_JOBS targets run at once
# (default: the number of cpus), each on one core, so the whole costs
# about FUZZ_SECONDS x targets / FUZZ_JOBS; the lines come in the order
# given.  Exit 1 if any target crashed (the reproducer is left in
# $B/fuzz/crash-NAME-*).
set -u
B=${B:-build}
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

# one target: its log in $B/fuzz/NAME.log, its exit code in NAME.rc;
# FUZZ_SECONDS_NAME, when set, is its own time
one() {
	n=$1
	t=$(eval "echo \${FUZZ_SECONDS_$n:-$secs}")
	work=$B/fuzz/corpus-$n
	mkdir -p "$work"
	dict=
	[ -f tests/fuzz/$n.dict ] && dict=-dict=tests/fuzz/$n.dict
	"$B/fuzz/$n-fuzzer" -max_total_time="$t" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crash-$n-" $dict "$work" "tests/fuzz/corpus/$n" >"$B/fuzz/$n.log" 2>&1
	echo $? >"$B/fuzz/$n.rc"
}

running=0
for n in "$@"; do
	rm -f "$B/fuzz/$n.rc"
	one "$n" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

bad=0
for n in "$@"; do
	log=$B/fuzz/$n.log
	rc=$(cat "$B/fuzz/$n.rc" 2>/dev/null || echo 2)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	crashes=$(ls "$B/fuzz/" | grep -c "^crash-$n-")
	t=$(eval "echo \${FUZZ_SECONDS_$n:-$secs}")
	echo "fuzz $n: ${execs:-?} executions in ${t}s, corpus $(ls "$B/fuzz/corpus-$n" | wc -l) files, exit $rc, $crashes crash file(s)"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		bad=1
		grep -E 'ERROR|SUMMARY|Assertion|runtime error' "$log" | head -n 10 | sed 's/^/    /'
	fi
done
exit $bad
