#!/bin/sh
# tests/fuzz/run.sh NAME... — run each $B/fuzz/NAME-fuzzer for FUZZ_SECONDS
# over a scratch copy of tests/fuzz/corpus/NAME and print one line per
# target: executions, corpus size, crashes.  Exit 1 if any target crashed
# (the reproducer is left in $B/fuzz/crash-NAME-*).
set -u
B=${B:-build}
secs=${FUZZ_SECONDS:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
bad=0
for n in "$@"; do
	bin=$B/fuzz/$n-fuzzer
	work=$B/fuzz/corpus-$n
	mkdir -p "$work"
	dict=
	[ -f tests/fuzz/$n.dict ] && dict=-dict=tests/fuzz/$n.dict
	log=$B/fuzz/$n.log
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crash-$n-" $dict "$work" "tests/fuzz/corpus/$n" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	crashes=$(ls "$B/fuzz/" | grep -c "^crash-$n-")
	echo "fuzz $n: ${execs:-?} executions in ${secs}s, corpus $(ls "$work" | wc -l) files, exit $rc, $crashes crash file(s)"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		bad=1
		grep -E 'ERROR|SUMMARY|Assertion|runtime error' "$log" | head -n 10 | sed 's/^/    /'
	fi
done
exit $bad
