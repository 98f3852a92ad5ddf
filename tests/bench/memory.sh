#!/bin/sh
# tests/bench/memory.sh — peak memory per state of a model search, and
# what the frontier's spill file costs in speed.
#
# Two models of 1,048,576 states: bench-counters-1m (20-byte states, a
# narrow frontier) and bench-wide (88-byte states, a frontier that peaks
# at 184,756 states).  For each, one worker, no store: peak RSS over
# distinct states (everything the process holds, from GNU time), against
# the goal of at most 32 bytes per state; then the same search with the
# frontier kept in memory (TMPDIR where no spill file can be made), the
# two alternated REPS times (default 3), and the ratio of their best
# states/s (spilled / in memory: the goal is not below 1.0 by more than
# the noise).  bench-counters (20.5M states) at BIG=1.  Asserts nothing:
# the machine is shared and its speed moves.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=${CMC:-$top/$B/cmc}
REPS=${REPS:-3}
if [ ! -x /usr/bin/time ] || [ ! -x "$CMC" ]; then
	echo "memory.sh: needs /usr/bin/time (package time) and $CMC" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# one MODEL TMPDIR -> "rss_kib distinct states_per_s"
one() {
	TMPDIR=$2 /usr/bin/time -v "$CMC" check --jobs 1 --no-store --json "$1" >"$T/j" 2>"$T/t" || {
		echo "memory.sh: cmc check $1 failed" >&2
		cat "$T/t" >&2
		exit 2
	}
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$T/t")
	n=$(sed -n 's/.*"distinct": *\([0-9]*\).*/\1/p' "$T/j")
	r=$(sed -n 's/.*"states_per_s": *\([0-9.]*\).*/\1/p' "$T/j")
	echo "$rss $n $r"
}

models="bench-counters-1m bench-wide"
[ "${BIG:-0}" = 1 ] && models="$models bench-counters"
for m in $models; do
	best_s=0 best_m=0 rss_s=0 rss_m=0 n=0
	i=0
	while [ $i -lt "$REPS" ]; do
		set -- $(one "$m" "${TMPDIR:-/tmp}")
		rss_s=$1 n=$2
		best_s=$(awk -v a="$best_s" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
		set -- $(one "$m" /nonexistent/cmc-bench)
		rss_m=$1
		best_m=$(awk -v a="$best_m" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
		i=$((i + 1))
	done
	awk -v m="$m" -v n="$n" -v rs="$rss_s" -v rm="$rss_m" -v s="$best_s" -v t="$best_m" 'BEGIN {
		bs = rs * 1024 / n; bm = rm * 1024 / n
		printf "%s: %d states\n", m, n
		printf "  peak RSS per state, frontier spilled: %.1f B (goal: at most 32): %s\n", bs, (bs <= 32 ? "met" : "not met")
		printf "  peak RSS per state, frontier in memory: %.1f B\n", bm
		printf "  states/s, best of the runs: spilled %.0f, in memory %.0f, ratio %.2f\n", s, t, (t > 0 ? s / t : 0)
	}'
done
