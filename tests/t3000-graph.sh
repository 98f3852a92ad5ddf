#!/bin/sh
# t3000-graph: `cmc graph` draws stored runs.  Output parses (DOT back
# through cgraph with the t3-viz helper, SVG through xmllint); node and edge
# counts equal the states and transitions in the database (counted with the
# engine's own counts from `cmc check --json`, and the store's documented
# run_list view) and, for DieHard, the hand count; --trace
# highlights exactly the counterexample path; --depth and --around select
# what they should; the legend is on every picture; formats follow the name.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/t3-viz
db=$T/t.db
sq() { sqlite3 "$db" "$1"; }

"$CMC" check --db "$db" diehard >/dev/null; is "diehard is stored" "$?" 0
ok "graph writes DOT" "$CMC" graph --db "$db" -o dh.dot
# 16 (small, big) pairs, 6 moves from each: 96 transitions (see t0001).
is "DOT parses: 16 states, 96 transitions, a legend" "$("$H" count dh.dot)" \
	"nodes 16 edges 96 clusters 0 trace 0 legend 1"
is "... the numbers the store reports" "$(sq 'select stored_states, stored_transitions from run_list where run=1')" "16|96"
ok "graph writes SVG that is well-formed XML" sh -c '"$CMC" graph --db "$0" -o dh.svg && xmllint --noout dh.svg' "$db"
ok "... with the legend in it" grep -q "legend" dh.svg
ok "PNG by extension" sh -c '"$CMC" graph --db "$0" -o dh.png && head -c 4 dh.png | grep -q PNG' "$db"
ok "PDF by extension" sh -c '"$CMC" graph --db "$0" -o dh.pdf && head -c 4 dh.pdf | grep -q "%PDF"' "$db"
"$CMC" graph --db "$db" -o dh.jpeg 2>err; is "an unknown extension exits 2" "$?" 2
ok "... naming the file and the formats" grep -q "dh.jpeg.*\.svg" err
"$CMC" graph --db "$db" --run 99 -o x.svg 2>err; is "no such run exits 2" "$?" 2
ok "... and says so" grep -q "no run 99" err
"$CMC" graph --db "$T/none.db" -o x.svg 2>/dev/null; is "a missing database exits 2" "$?" 2
"$CMC" graph --db "$db" --radius 2 -o x.svg 2>/dev/null; is "--radius without --around exits 2" "$?" 2
"$CMC" graph --db "$db" --around 16 -o x.svg 2>err; is "--around past the last state exits 2" "$?" 2

# --depth: levels 1 and 2 are (0,0), (3,0), (0,5) (t0001 derives them).
# Moves among them: all 6 of (0,0) (4 leave it as is, 2 reach the others);
# from (3,0): FillSmall, EmptyBig, BigToSmall stay, EmptySmall -> (0,0);
# from (0,5): FillBig, EmptySmall, SmallToBig stay, EmptyBig -> (0,0).
"$CMC" graph --db "$db" --depth 2 -o d2.dot >/dev/null
is "--depth 2 draws 3 states and the 14 transitions among them" "$("$H" count d2.dot)" \
	"nodes 3 edges 14 clusters 0 trace 0 legend 1"

# --around: (0,0) is reached in one move from every (x,0) by EmptySmall and
# every (0,y) by EmptyBig: (1,0) (2,0) (3,0) and (0,1)..(0,5) are reachable,
# so with (0,0) itself the neighbourhood of radius 1 is 9 states.
"$CMC" graph --db "$db" --around 0 --radius 1 -o a1.dot >/dev/null
is "--around 0 --radius 1 draws (0,0) and its 8 neighbours" "$("$H" count a1.dot | cut -d' ' -f1-2)" "nodes 9"
"$CMC" graph --db "$db" --around 0 --radius 0 -o a0.dot >/dev/null
is "--radius 0 draws the state alone" "$("$H" nodes a0.dot | tr '\n' ' ')" "0 "

# --trace: diehard-solve stops at the solution; the violation's trace is
# highlighted edge by edge from the initial state to the violating state.
"$CMC" check --db "$db" diehard-solve >/dev/null
vid=$(sq 'select violation from violations_with_traces where run=2')
steps=$(sq "select steps from violations_with_traces where violation=$vid")
vstate=$(sq "select state from violations_with_traces where violation=$vid")
"$CMC" graph --db "$db" --trace "$vid" -o tr.dot >out; is "--trace exits 0" "$?" 0
"$H" count tr.dot >cnt
is "the run's graph is drawn whole" "$(cut -d' ' -f1-4 cnt)" \
	"nodes $(sq 'select stored_states from run_list where run=2') edges $(sq 'select stored_transitions from run_list where run=2')"
is "as many highlighted edges as the trace has steps" "$(cut -d' ' -f7-8 cnt)" "trace $steps"
"$H" trace tr.dot >path
at=0 chain=yes
while read -r a b; do
	[ "$a" = "$at" ] || chain=no
	at=$b
done <path
is "the highlighted edges chain from the initial state" "$chain" yes
is "... to the violating state" "$at" "$vstate"
ok "the caption names the violated property" grep -q "NotSolved" tr.dot
"$CMC" graph --db "$db" --trace 999 -o x.svg 2>err; is "--trace of no such violation exits 2" "$?" 2
"$CMC" graph --db "$db" --run 1 --trace "$vid" -o x.svg 2>err; is "--trace of another run's violation exits 2" "$?" 2

# twophase: a larger model, counts against the engine's own.
"$CMC" check --db "$db" --json twophase >tp.json
r=$(sq 'select max(run) from run_list')
"$CMC" graph --db "$db" --run "$r" --budget 5000 -o tp.svg >out 2>err; is "twophase renders" "$?" 0
ok "... as well-formed SVG" xmllint --noout tp.svg
"$CMC" graph --db "$db" --run "$r" --budget 5000 -o tp.dot >/dev/null
is "twophase: states and transitions as stored" "$("$H" count tp.dot | cut -d' ' -f1-4)" \
	"nodes $(json_get tp.json distinct) edges $(json_get tp.json transitions)"

# heap: a model run has no allocator data: nothing to draw, an error, no file.
"$CMC" heap --db "$db" --run 1 0 -o heap.svg >out 2>err; is "cmc heap on a model state exits 2" "$?" 2
not_ok "... writes no picture" test -e heap.svg
ok "... and says there is no allocator data" grep -q "no allocator data" err
"$CMC" heap --db "$db" --run 1 99 -o heap.svg 2>err; is "cmc heap of no such state exits 2" "$?" 2
ok "... naming it" grep -q "no state 99" err
done_testing
