#!/bin/sh
# tests/bench/interp.sh — what the store keeps per state of an interpreter
# whose heap is large and changes a little per operation: Debian's perl,
# evaluating one line per operation (arrays and hashes grown and shrunk),
# raw merging (nothing merges: 781 states at depth 4).  Printed: the
# database's bytes per state, the mean raw window a state has (what one
# whole copy per state would cost), the unique 4 KiB pages stored, and the
# ratio of the two per-state figures; the goal is at most 1/20 of a whole
# window per state.  DEPTH (default 4) sets the size.  Asserts nothing.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=${CMC:-$top/$B/cmc}
PERL=$(command -v perl) || { echo "interp.sh: perl is not installed" >&2; exit 2; }
command -v sqlite3 >/dev/null 2>&1 || { echo "interp.sh: sqlite3 is not installed" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

cat >"$T/perl.scn" <<EOF
target $PERL -e "\$|=1; while (<STDIN>) { eval \$_; print qq(ok\\\\n) }"
op push "push @a, 1;\\n"
op pop "pop @a;\\n"
op set "\$h{scalar @a} = 'x' x 100;\\n"
op del "delete \$h{0};\\n"
op count "print scalar(@a), qq(\\\\n);\\n"
depth ${DEPTH:-4}
EOF
"$CMC" check --db "$T/p.db" --json "$T/perl.scn" >"$T/out.json" 2>"$T/err" || {
	echo "interp.sh: cmc check failed:" >&2
	cat "$T/err" >&2
	exit 2
}
n=$(sed -n 's/.*"distinct": *\([0-9]*\).*/\1/p' "$T/out.json")
size=$(stat -c %s "$T/p.db")
set -- $(sqlite3 -separator ' ' "$T/p.db" \
	"SELECT (SELECT count(*) FROM pages), (SELECT avg(full_len) FROM blobs WHERE full_len >= 65536)")
pages=$1 window=${2:-0}
awk -v n="$n" -v s="$size" -v p="$pages" -v w="$window" 'BEGIN {
	per = s / n
	printf "perl, raw merge: %d states, database %.1f MB\n", n, s / 1e6
	printf "bytes per state in the database: %.0f\n", per
	printf "mean raw window per state: %.0f bytes; unique pages stored: %d (%.1f per state)\n", w, p, p / n
	if (w > 0)
		printf "per state / one whole window: 1/%.0f (goal: at most 1/20): %s\n", w / per, (w / per >= 20 ? "met" : "not met")
}'
