#!/bin/sh
# tests/bench/process.sh — process mode by stateless replay on the list
# example (keys 1..N inserted in every order, each once, canonical merging),
# N = 3..7: distinct states, transitions, states/s, mean replay depth (prefix
# operations re-executed per target started), and beside them the machine's
# own limit measured in the same run: one bare fork+exec+wait of the target
# (plain, and as cmc starts it: preload loaded, ASLR off).  The last column
# is cmc's cost per transition over that limit.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
EX=$top/$B/examples
FE=$top/$B/tests-helpers/forkexec
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

plain=$("$FE" 300 "$EX/list")
pre=$(CMC_PRELOAD="$top/$B/libcmc-preload.so" "$FE" -p 300 "$EX/list")
echo "fork+exec+wait of the target, plain: $plain us"
echo "fork+exec+wait of the target, preload + ASLR off: $pre us"
printf '%-3s %9s %12s %10s %13s %14s %14s %10s\n' N distinct transitions states/s "transitions/s" "replay depth" "us/transition" "x limit"
for n in 3 4 5 6 7; do
	scn=$T/list$n.scn
	{
		echo "target $EX/list-emit {port}"
		echo "transport tcp"
		k=1
		while [ "$k" -le "$n" ]; do
			printf 'op "INS %d" "INS %d\\n" once\n' "$k" "$k"
			k=$((k + 1))
		done
	} >"$scn"
	CMC_PROC_STATS=1 "$CMC" check --no-store --json --hash canonical "$scn" >"$T/out.json" 2>"$T/err"
	get() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" "$T/out.json" | head -n 1; }
	[ -s "$T/out.json" ] || { echo "N=$n: cmc failed:"; cat "$T/err"; }
	depth=$(sed -n 's/.*mean replay depth \([0-9.]*\).*/\1/p' "$T/err")
	el=$(get elapsed_s) tr=$(get transitions)
	awk -v n="$n" -v d="$(get distinct)" -v tr="$tr" -v sps="$(get states_per_s)" \
	    -v tps="$(get transitions_per_s)" -v dep="$depth" -v el="$el" -v pre="$pre" 'BEGIN {
		us = tr > 0 ? el * 1e6 / tr : 0
		printf "%-3s %9s %12s %10s %13s %14s %14.0f %10.2f\n", n, d, tr, sps, tps, dep, us, us / pre
	}'
done
