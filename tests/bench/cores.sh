#!/bin/sh
# tests/bench/cores.sh — what moving data between two cores costs here,
# beside what one state costs the search on one core: the figures that
# decide whether a shared-memory parallel search (--jobs 2) can pay on
# this machine (issue 21).  corecost (tests/bench/corecost.c) measures a
# cache line handed between two pinned threads (a dependent access: a
# compare-and-swap on a shared table, a record the other core just wrote)
# and lines read in order or scattered after the other core wrote them;
# the search's figure is bench-counters-small on one thread, nanoseconds
# per distinct state (five transitions each).  Asserts nothing.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
CC_=$top/$B/tests-helpers/corecost
for f in "$CMC" "$CC_"; do
	[ -x "$f" ] || { echo "cores.sh: missing $f (make first)" >&2; exit 2; }
done
"$CC_" | tee "${TMPDIR:-/tmp}/cores.$$"
h=$(sed -n 's/^handoff ns: //p' "${TMPDIR:-/tmp}/cores.$$")
rm -f "${TMPDIR:-/tmp}/cores.$$"
j=$("$CMC" check bench-counters-small --no-store --jobs 1 --json 2>/dev/null)
n=$(printf '%s' "$j" | sed -n 's/.*"distinct": *\([0-9]*\).*/\1/p')
t=$(printf '%s' "$j" | sed -n 's/.*"elapsed_s": *\([0-9.]*\).*/\1/p')
awk -v n="$n" -v t="$t" -v h="$h" 'BEGIN {
	s = t * 1e9 / n
	printf "one thread, ns per state (bench-counters-small): %.0f\n", s
	printf "hand-offs that cost one state: %.1f\n", s / h
}'
