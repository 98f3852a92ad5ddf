#!/bin/sh
# tests/bench/heapgraph.sh — what `hash heap-graph` costs per state next to
# raw hashing (issue 22), on the list server built without the hook
# (share/examples/list, $B/examples/list): keys 1..N inserted in every
# order (N = KEYS, default 5), under the fork executor, one job; first on
# the bare list, then on one whose first operation inserts FILL more keys
# (default 2000: a heap of that many blocks for every walk).
# For each, from one heap-graph run (the best of REPS, default 3):
#   raw ms/st   what raw observation costs a state: the heap window read
#               and hashed, the allocator's validators run (CMC_PROC_STATS'
#               "raw observation" line; cmc does this in every mode);
#   walk ms/st  what the heap-graph walk adds to it (the run's last line);
#   ratio       walk / raw: the walk's overhead against raw hashing.
# Then whole runs, wall milliseconds per state (wall / (transitions + 1):
# every transition is one observation) under --hash raw and --hash
# heap-graph, and the states each explores: heap-graph explores fewer, so
# a run ends sooner, while its per-state wall also carries the start-up
# and the snapshots of fewer states.  Not run by make test; asserts
# nothing: the machine is shared and its speed moves.  Needs nothing
# outside the repository but sh and awk (and, for the last rows, the
# Debian programs of t5500 that `make test` installs: calc, lua5.4,
# gdbmtool, beanstalkd, each explored to depth 4 by its tests/reach scenario).
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
LIST=$top/$B/examples/list
KEYS=${KEYS:-5}
FILL=${FILL:-2000}
REPS=${REPS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
[ -x "$CMC" ] && [ -x "$LIST" ] || { echo "heapgraph.sh: build first (make all)" >&2; exit 2; }

scenario() { # FILE FILL
	{
		echo "target $LIST {port}"
		echo "transport tcp"
		echo "timeout 5000"
		if [ "$2" -gt 0 ]; then
			# one operation of FILL lines: keys 1000.. inserted at once
			printf 'op FILL "'
			awk -v n="$2" 'BEGIN { for (k = 0; k < n; k++) printf "INS %d\\n", 1000 + k }'
			printf '" once\n'
		fi
		k=1
		while [ "$k" -le "$KEYS" ]; do
			printf 'op "INS %d" "INS %d\\n" once\n' "$k" "$k"
			k=$((k + 1))
		done
	} >"$1"
}

field() { sed -n "s/.*\"$2\": *\([^,}]*\).*/\1/p" "$1" | head -n 1; }

# best of REPS runs: "wall_ms_per_state states raw_us_per_obs walk_us_per_walk"
run() { # SCN HASH
	best="" i=0
	while [ "$i" -lt "$REPS" ]; do
		CMC_PROC_STATS=1 "$CMC" check --no-store --json --exec fork --jobs 1 --hash "$2" "$1" \
			>"$T/o.json" 2>"$T/o.err"
		s=$(field "$T/o.json" elapsed_s) tr=$(field "$T/o.json" transitions)
		st=$(field "$T/o.json" distinct)
		ms=$(awk -v s="$s" -v t="$tr" 'BEGIN { printf "%.3f", s * 1000 / (t + 1) }')
		raw=$(sed -n 's/.*raw observation: [0-9]*, \([0-9.]*\) us each.*/\1/p' "$T/o.err" | head -n 1)
		walk=$(sed -n 's/.*, \([0-9.]*\) us per walk.*/\1/p' "$T/o.err")
		if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$ms bst=$st braw=${raw:-0} bwalk=${walk:-0}
		fi
		i=$((i + 1))
	done
	echo "$best $bst $braw $bwalk"
}

ms() { awk -v u="$1" 'BEGIN { printf "%.4f", u / 1000 }'; }
printf '%-18s %9s %9s %7s | %7s %7s %11s %11s\n' case "raw ms/st" "walk ms/st" ratio \
	"raw st" "hg st" "raw wall/st" "hg wall/st"
for fill in 0 "$FILL"; do
	scenario "$T/l.scn" "$fill"
	set -- $(run "$T/l.scn" raw)
	rwall=$1 rst=$2
	set -- $(run "$T/l.scn" heap-graph)
	hwall=$1 hst=$2 raw=$3 walk=$4
	name="keys 1..$KEYS"
	[ "$fill" -gt 0 ] && name="$name, +$fill"
	printf '%-18s %9s %9s %7s | %7s %7s %11s %11s\n' "$name" "$(ms "$raw")" "$(ms "$walk")" \
		"$(awk -v a="$walk" -v b="$raw" 'BEGIN { printf "%.2f", b ? a / b : 0 }')" \
		"$rst" "$hst" "$rwall" "$hwall"
done

# Debian programs (t5500's corpus, tests/reach/PROG.scn, depth 4): the same
# figures for each one installed (`make test` installs them).
for prog in calc lua5.4 gdbmtool beanstalkd; do
	command -v "$prog" >/dev/null 2>&1 || [ -x "/usr/sbin/$prog" ] || {
		echo "$prog: not installed"
		continue
	}
	scn=$top/tests/reach/$prog.scn
	set -- $(run "$scn" raw)
	rwall=$1 rst=$2
	set -- $(run "$scn" heap-graph)
	hwall=$1 hst=$2 raw=$3 walk=$4
	printf '%-18s %9s %9s %7s | %7s %7s %11s %11s\n' "$prog" "$(ms "$raw")" "$(ms "$walk")" \
		"$(awk -v a="$walk" -v b="$raw" 'BEGIN { printf "%.2f", b ? a / b : 0 }')" \
		"$rst" "$hst" "$rwall" "$hwall"
done
