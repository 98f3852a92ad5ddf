#!/bin/sh
# tests/bench/files.sh — what declared state files cost (issue 23): the
# same target, tests/proc/filekv.c in `pad` mode (db/pad, PAD bytes,
# default 1 MiB, written once at start; each of 5 `once` operations writes
# a small file db/K), explored with and without `state-dir db`.  The heap
# never changes and the once operations tell the states apart, so both
# runs have the same 32 states and 80 transitions: the difference is the
# cost of reading and hashing the directory (PAD bytes and up to 6 files)
# on every state.  Prints, per run, transitions per second (best of REPS,
# default 3, --exec fork unless EXEC says, --jobs 1) and the bytes the
# store holds per state: the state records and every blob (raw copies,
# replies, the state files' summaries), over the states; the database's
# pages are too coarse for the difference.  The file contents themselves
# are not stored.  Asserts nothing: the machine is shared and its speed
# moves.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
KV=$top/$B/tests-helpers/filekv
PAD=${PAD:-1048576}
REPS=${REPS:-3}
EXEC=${EXEC:-fork}
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

{
	echo "target $KV pad $PAD"
	echo "hash raw"
	for k in a b c d e; do printf 'op "PUT %s" "PUT %s 1\\n" once\n' $k $k; done
} >"$T/plain.scn"
{ cat "$T/plain.scn"; echo "state-dir db"; } >"$T/files.scn"

field() { sed -n "s/.*\"$2\": *\([^,}]*\).*/\1/p" "$1" | head -n 1; }

for v in plain files; do
	best=0 i=0
	while [ "$i" -lt "$REPS" ]; do
		"$CMC" check --no-store --json --exec "$EXEC" --jobs 1 "$T/$v.scn" >"$T/$v.json" 2>/dev/null
		tps=$(field "$T/$v.json" transitions_per_s)
		best=$(awk -v a="$best" -v b="$tps" 'BEGIN { print (b > a) ? b : a }')
		i=$((i + 1))
	done
	rm -f "$T/$v.db"
	"$CMC" check --db "$T/$v.db" --exec "$EXEC" --jobs 1 "$T/$v.scn" >/dev/null 2>&1
	states=$(sqlite3 "$T/$v.db" 'SELECT count(*) FROM states')
	bytes=$(sqlite3 "$T/$v.db" 'SELECT (SELECT total(length(data)) FROM state_blocks) + (SELECT total(length(data)) FROM blobs)' | sed 's/\.0$//')
	printf '%-28s %s states, %s transitions: %8.0f transitions/s (best of %s), %s bytes stored, %.0f per state\n' \
		"$([ $v = plain ] && echo "no state-dir" || echo "state-dir db ($PAD bytes)")" \
		"$(field "$T/$v.json" distinct)" "$(field "$T/$v.json" transitions)" "$best" "$REPS" \
		"$bytes" "$(awk -v b="$bytes" -v n="$states" 'BEGIN { print n ? b / n : 0 }')"
done
