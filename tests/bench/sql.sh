#!/bin/sh
# tests/bench/sql.sh — what the plain rows of states and transitions
# (state_rows, transition_rows; store/SCHEMA.md) cost, and how fast the
# everyday queries answer from them, on a large model run.  One figure per
# line.
#
# Model: bench-counters bounded at BENCH_STATES (default 1,000,000)
# states, about 4.4 transitions each.  Figures:
#   wall_s_store, cpu_s_store       cmc check with the store (rows included)
#   wall_s_norows, cpu_s_norows     the same check with --no-sql-rows
#                                   (blocks only), and the ratios
#   wall_s_nostore, cpu_s_nostore   the same check with --no-store
#   db_mb, db_mb_norows             the two files
#   rows_mb, blocks_mb              the rows' tables and the
#                                   blocks' (state, edge and predecessor
#                                   blocks), from SQLite's dbstat
#   rows_bytes_per_state            rows_mb over the states
#   rows_fill_s                     rebuilding every row from the blocks on
#                                   one thread: the file made schema 6
#                                   again and upgraded (`cmc runs`)
#   q_*_s                           the sqlite3 program answering: count(*)
#                                   FROM states, the states at a depth,
#                                   the transitions out of a state, states
#                                   per depth, the path to a deep state,
#                                   the transitions into a state (a scan)
# The configurations alternate BENCH_REPEAT times (default 2), the best of
# each kept: other work on a shared machine only ever slows a run down.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=${CMC:-$top/$B/cmc}
N=${BENCH_STATES:-1000000}
R=${BENCH_REPEAT:-2}

[ -x "$CMC" ] || { echo "sql.sh: cannot run, missing $CMC (make B=$B all)" >&2; exit 2; }
command -v sqlite3 >/dev/null 2>&1 || { echo "sql.sh: needs the sqlite3 program" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == 0 || b < a ? b : a) }'; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
TIME=
[ -x /usr/bin/time ] && TIME="/usr/bin/time -o $tmp/cpu -f %U+%S"
cpu() { if [ -n "$TIME" ]; then awk -F+ '{ print $1 + $2 }' "$tmp/cpu"; else echo 0; fi; }

# run NAME CMC [options]: best wall and cpu of R runs into wall_NAME, cpu_NAME
w_store=0 c_store=0 w_norows=0 c_norows=0 w_nostore=0 c_nostore=0
run() {
	name=$1 bin=$2
	shift 2
	rm -f "$tmp"/$name.db*
	t0=$(now)
	$TIME "$bin" check bench-counters --max-states "$N" "$@" >/dev/null || exit 2
	w=$(since "$t0")
	eval "w_$name=\$(least \$w_$name $w); c_$name=\$(least \$c_$name $(cpu))"
}
i=0
while [ "$i" -lt "$R" ]; do
	run store "$CMC" --db "$tmp/store.db"
	run norows "$CMC" --no-sql-rows --db "$tmp/norows.db"
	run nostore "$CMC" --no-store
	i=$((i + 1))
done
db=$tmp/store.db
states=$(sqlite3 "$db" 'SELECT count(*) FROM states')
edges=$(sqlite3 "$db" 'SELECT count(*) FROM transitions')
echo "model bench-counters --max-states $N ($states states, $edges transitions, best of $R)"
echo "wall_s_store $w_store"
echo "cpu_s_store $c_store"
echo "wall_s_norows $w_norows"
echo "cpu_s_norows $c_norows"
awk -v a="$w_store" -v b="$w_norows" 'BEGIN { printf "ratio_wall_rows_over_norows %.2f\n", a / b }'
awk -v a="$c_store" -v b="$c_norows" 'BEGIN { printf "ratio_cpu_rows_over_norows %.2f\n", a / b }'
echo "wall_s_nostore $w_nostore"
echo "cpu_s_nostore $c_nostore"

mb() { sqlite3 "$1" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null; du -k "$1" | awk '{ printf "%.1f", $1 / 1024 }'; }
echo "db_mb $(mb "$db")"
echo "db_mb_norows $(mb "$tmp/norows.db")"
sqlite3 "$db" "SELECT
	printf('rows_mb %.1f', sum(CASE WHEN name IN ('state_rows', 'transition_rows') THEN pgsize END) / 1048576.0),
	printf('blocks_mb %.1f', sum(CASE WHEN name IN ('state_blocks', 'edge_blocks', 'pred_blocks') THEN pgsize END) / 1048576.0),
	printf('rows_bytes_per_state %.1f', sum(CASE WHEN name IN ('state_rows', 'transition_rows') THEN pgsize END) * 1.0 / $states)
	FROM dbstat" 2>/dev/null | tr '|' '\n' || echo "rows_mb (this sqlite3 has no dbstat)"

# the rows rebuilt from the blocks, as an upgrade from schema 6 does
cp "$db" "$tmp/v6.db"
sqlite3 "$tmp/v6.db" "DROP VIEW states; DROP VIEW transitions; DROP TABLE state_rows;
	DROP TABLE transition_rows; ALTER TABLE runs DROP COLUMN sql_rows; PRAGMA user_version = 6;
	VACUUM" >/dev/null
t0=$(now)
"$CMC" runs --db "$tmp/v6.db" >/dev/null || exit 2
echo "rows_fill_s $(since "$t0")"

# q NAME SQL: the sqlite3 program's answer time (a fresh process each)
q() {
	t0=$(now)
	sqlite3 "$db" "$2" >/dev/null || exit 2
	echo "q_$1_s $(since "$t0")"
}
deep=$((states - 1))
q count 'SELECT count(*) FROM states'
q at_depth 'SELECT id, parent, label, status FROM states WHERE run = 1 AND depth = 20'
q out_of "SELECT label, target FROM transitions WHERE run = 1 AND source = $((states / 2))"
q per_depth 'SELECT depth, count(*) FROM states WHERE run = 1 GROUP BY depth'
q path "WITH RECURSIVE p(id, parent, label) AS (
	SELECT id, parent, label FROM states WHERE run = 1 AND id = $deep
	UNION ALL SELECT s.id, s.parent, s.label FROM states s, p WHERE s.run = 1 AND s.id = p.parent)
	SELECT label FROM p"
q into "SELECT source, label FROM transitions WHERE run = 1 AND target = $deep"
q status 'SELECT status, count(*) FROM states WHERE run = 1 GROUP BY status'
