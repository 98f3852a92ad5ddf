#!/bin/sh
# tests/bench/heapsize.sh — what process mode pays per transition as the
# heap grows while each operation changes one page (issue 21, item 1).
# The target (tests/proc/heapsize.c) allocates and writes H bytes of heap
# once at start; each of OPS operations (`once`, default 4) sets one byte
# in a page of its own, the pages spread over the heap.  For H = 64 KiB,
# 1, 8 and 32 MiB: the fork executor's milliseconds per transition with
# raw merging, wall, start-up left out (the start-up CMC_PROC_STATS
# reports), the best of REPS runs (default 3);
# beside it, whole runs: cmc's wall seconds and the naive loop's a user
# would write (the target run once per order of the operations, no
# dedup); the machine's floor for one fork transition at that heap size
# (tests/fork/forklimit.c: fork, one page changed, a pipe round trip,
# kill, reap: page tables are copied and torn down whatever changed); and
# the ratio 32 MiB / 64 KiB, the issue's goal being at most 2, beside the
# floor's own.  Asserts nothing: the machine is shared and its speed moves.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
HS=$top/$B/tests-helpers/heapsize
FL=$top/$B/tests-helpers/forklimit
OPS=${OPS:-4}
REPS=${REPS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# every order of 1..n, one per line
perms() {
	awk -v n="$1" 'function p(pre, left, k, i, rest) {
		if (left == "") { print substr(pre, 2); return }
		k = split(left, a, " ")
		for (i = 1; i <= k; i++) {
			rest = ""
			for (j = 1; j <= k; j++) if (j != i) rest = rest " " a[j]
			p(pre " " a[i], substr(rest, 2))
		}
	} BEGIN { s = ""; for (i = 1; i <= n; i++) s = s " " i; p("", substr(s, 2)) }'
}

# the pages the operations change: spread over the heap, so that most
# lie past the kept raw copy (raw-cap, 1 MiB) when the heap is larger
keys() { # H -> OPS page numbers
	awk -v h="$1" -v n="$OPS" 'BEGIN {
		p = int(h / 4096); for (k = 1; k <= n; k++) printf "%d ", int(p * k / (n + 1)) }'
}

# cmc: ms per transition, wall, start-up left out (the start-up time
# CMC_PROC_STATS reports), best of REPS; and the run's whole wall time.
run_cmc() { # H -> "wall_ms transitions elapsed_s"
	scn=$T/h$1.scn
	{
		echo "target $HS $1"
		echo "transport stdin"
		echo "hash raw"
		for k in $(keys "$1"); do printf 'op "SET %d" "SET %d\\n" once\n' "$k" "$k"; done
	} >"$scn"
	i=0
	while [ "$i" -lt "$REPS" ]; do
		CMC_PROC_STATS=1 "$CMC" check --no-store --json --exec fork --jobs 1 "$scn" \
			>"$T/out.json" 2>"$T/err"
		el=$(sed -n 's/.*"elapsed_s": *\([^,}]*\).*/\1/p' "$T/out.json")
		tr=$(sed -n 's/.*"transitions": *\([^,}]*\).*/\1/p' "$T/out.json")
		su=$(sed -n 's/.* \([0-9]*\) spawns.*mean start-up \([0-9.]*\) ms.*/\1 \2/p' "$T/err")
		[ -n "$el" ] && [ -n "$tr" ] && [ -n "$su" ] || { echo "H=$1: cmc failed:" >&2; cat "$T/err" >&2; return 1; }
		awk -v el="$el" -v tr="$tr" -v su="$su" 'BEGIN {
			split(su, s, " ")
			printf "%.4f %d %.4f\n", (el - s[1] * s[2] / 1000) * 1000 / tr, tr, el }'
		i=$((i + 1))
	done | sort -g | head -n 1
}

# the naive loop: its wall seconds, best of REPS
run_loop() { # H -> s
	perms "$OPS" >"$T/perms"
	ks=$(keys "$1")
	n=$(wc -l <"$T/perms")
	i=0
	while [ "$i" -lt "$REPS" ]; do
		t0=$(date +%s%N)
		while read -r order; do
			for i in $order; do printf 'SET %d\n' "$(echo $ks | cut -d' ' -f"$i")"; done |
				"$HS" "$1" >/dev/null
		done <"$T/perms"
		t1=$(date +%s%N)
		echo "$t0 $t1" | awk '{ printf "%.4f\n", ($2 - $1) / 1e9 }'
		i=$((i + 1))
	done | sort -g | head -n 1
}

echo "heap-size target, $OPS ops once, one page each, fork executor, raw merge, best of $REPS"
printf '%-6s %6s %11s %10s %10s %10s %9s\n' H trans "wall ms/tr" "floor ms" "cmc s" "loop s" "cmc/loop"
for h in 65536 1048576 8388608 33554432; do
	set -- $(run_cmc "$h") || continue
	l=$(run_loop "$h")
	fl=$("$FL" 300 "$h")
	awk -v h="$h" -v w="$1" -v tr="$2" -v el="$3" -v l="$l" -v fl="$fl" 'BEGIN {
		name = h >= 1048576 ? sprintf("%dM", h / 1048576) : sprintf("%dK", h / 1024)
		printf "%-6s %6d %11.3f %10.3f %10.3f %10.3f %8.2fx\n", name, tr, w, fl / 1000, el, l,
			(l > 0 ? el / l : 0)
	}'
	echo "$h $1 $fl" >>"$T/rows"
done
awk '$1 == 65536 { w0 = $2; f0 = $3 } $1 == 33554432 { w1 = $2; f1 = $3 }
END {
	if (w0 > 0 && f0 > 0)
		printf "32 MiB / 64 KiB per transition: %.1fx (goal: at most 2x): %s; the floor'"'"'s own: %.1fx\n",
			w1 / w0, (w1 / w0 <= 2 ? "met" : "not met"), f1 / f0
}' "$T/rows"
