#!/bin/sh
# tests/bench/viz.sh — render times of `cmc graph` on runs of 100, 1,000,
# 5,000 and 20,000 states (bench-counters cut with --max-states), with the
# layout or reduction cmc chose; then dot forced on 1,000 states and sfdp
# forced on 5,000 for comparison.  One figure per line:
#   viz_graph_N_s SECONDS LAYOUT [what was reduced]
# Goal: every default render under 10 s.
set -u
: "${B:=build}"
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench-viz.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

now() { date +%s.%N; }
render() { # name db extra-args...
	name=$1 db=$2; shift 2
	t0=$(now)
	"$CMC" graph --db "$db" -o "$T/$name.svg" "$@" >"$T/out" 2>"$T/err" || { echo "$name FAILED: $(cat "$T/err")"; return; }
	t1=$(now)
	layout=$(sed -n 's/.*(\([a-z]*\))$/\1/p' "$T/out")
	printf '%s %.2f %s %s\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$layout" "$(tr '\n' ' ' <"$T/err")"
}
for n in 100 1000 5000 20000; do
	"$CMC" check --db "$T/b$n.db" --max-states "$n" bench-counters >/dev/null
	render "viz_graph_${n}_s" "$T/b$n.db"
done
render viz_graph_1000_forced_dot_s "$T/b1000.db" --layout dot --budget 100000
render viz_graph_5000_forced_sfdp_s "$T/b5000.db" --layout sfdp --budget 100000
render viz_graph_20000_summary_s "$T/b20000.db" --summary
