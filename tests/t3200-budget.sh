#!/bin/sh
# t3200-budget: graphs too big for dot.  Past the budget cmc switches to
# sfdp, and past eight budgets it reduces the graph (the first levels that
# fit, or one node per BFS level, or the counterexample and its neighbours)
# and says so on stderr and in the caption.  Timing is not asserted here;
# tests/bench/viz.sh prints it.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/t3-viz
db=$T/b.db
sq() { sqlite3 "$db" "$1"; }
# bench-counters: 5 counters, BFS level d holds the states whose counters
# sum to d - 1: C(d + 3, 4) of them, 1 5 15 35 70 126 210 330 ...; 1,000
# states fill levels 1-8 (792) and 208 states of level 9.
"$CMC" check --db "$db" --max-states 1000 bench-counters >/dev/null
is "the bounded run holds 1000 states" "$(sq 'select stored_states from run_list where run=1')" 1000

"$CMC" graph --db "$db" --budget 200 -o s.dot >out 2>err; is "over the budget: exit 0" "$?" 0
ok "... laid out with sfdp (stdout)" grep -q "(sfdp)" out
ok "... and says why on stderr" grep -q "exceed the dot budget of 200.*sfdp" err
ok "... and in the picture" grep -q "sfdp" s.dot
is "... with every state and transition" "$("$H" count s.dot | cut -d' ' -f1-4)" \
	"nodes 1000 edges $(sq 'select stored_transitions from run_list where run=1')"

# levels 1-3 hold 1 + 5 + 15 = 21 states, level 4 would make 56 > 50
"$CMC" graph --db "$db" --budget 50 -o c.dot >out 2>err; is "past 8 budgets: exit 0" "$?" 0
is "... cut to the first 3 levels, 21 states" "$("$H" count c.dot | cut -d' ' -f1-2)" "nodes 21"
ok "... says so on stderr" grep -q "first 3 levels (21 states)" err
ok "... and in the caption" grep -q "first 3 levels" c.dot
is "... the legend stays" "$("$H" count c.dot | cut -d' ' -f9-10)" "legend 1"

# level 1 alone fits 5 but two levels (6) do not: a summary by level, and
# as 9 levels are more than 5 nodes, levels go in bands of 2: 1-2 3-4 5-6
# 7-8 9, five nodes.
"$CMC" graph --db "$db" --budget 5 -o l.dot >out 2>err; is "when not two levels fit: exit 0" "$?" 0
is "... a summary by level in 5 bands" "$("$H" names l.dot | grep -c '^L')" 5
ok "... says so" grep -q "one node per BFS level" err
"$CMC" graph --db "$db" --budget 5 --raw-vs-canonical -o r.dot >/dev/null 2>err
is "raw vs canonical with 1000 canonical states over the budget falls back to levels" \
	"$("$H" names r.dot | grep -c '^L')" 5
"$CMC" graph --db "$db" --summary -o f.dot >/dev/null 2>&1
is "--summary draws one node per level (9)" "$("$H" names f.dot | grep -c '^L')" 9
ok "... rendered as SVG too" sh -c '"$CMC" graph --db "$0" --summary -o f.svg && xmllint --noout f.svg' "$db"

# the counterexample alone when not even its neighbours fit
"$CMC" check --db "$db" diehard-solve >/dev/null
vid=$(sq 'select violation from violations_with_traces where run=2')
steps=$(sq "select steps from violations_with_traces where violation=$vid")
"$CMC" graph --db "$db" --trace "$vid" --budget 1 -o t.dot >/dev/null 2>err
is "--trace past the budget keeps the path: steps + 1 states, all steps lit" \
	"$("$H" count t.dot | cut -d' ' -f1-2,7-8)" "nodes $((steps + 1)) trace $steps"
ok "... and says what it drew" grep -q "counterexample" err
"$CMC" graph --db "$db" --run 2 --around 0 --radius 5 --budget 1 --layout dot -o a.dot >/dev/null 2>err
is "--around is cut at the budget" "$("$H" count a.dot | cut -d' ' -f1-2)" "nodes 1"
ok "... and says so" grep -q "cut at 1 states" err
done_testing
