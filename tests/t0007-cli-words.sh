#!/bin/sh
# t0007-cli-words.sh — what the command line says about a model run is
# true and means something (issue 20): random walks never claim the whole
# state space, the collision figure comes from one formula, the visited
# set's memory is not divided over a handful of states, counts agree with
# their nouns, a state never expanded does not read as having no
# successors, `cmc runs` labels its two transition counts, `cmc heap` of a
# state with nothing to draw is an error, and a label no action gives is a
# usage error naming the labels there are.
. "$CMC_TOP/tests/test-lib.sh"

# ---- simulate: what the walks covered, never "explored" ------------------------
"$CMC" simulate --walks 1 --depth 3 peterson >sim.txt
is "simulate of one short walk exits 0" "$?" 0
not_ok "simulate does not claim the whole state space was explored" \
	grep -q "whole state space was explored" sim.txt
ok "simulate says what the walks covered" \
	grep -q "^no violation in 1 random walk of at most 3 states each: they reached [0-9]* distinct states" sim.txt
"$CMC" simulate --json --walks 1 --depth 3 peterson >sim.json
is "simulate --json: not complete" "$(json_get sim.json complete)" false

# ---- collision probability: one formula, never 0 for two states or more ---------
# diehard: 16 distinct of 97 generated; the list example 16 of 16.  With
# the birthday bound both are 16 * 15 / 2 / 2^128 = 3.53e-37.
"$CMC" check --no-store --json diehard >dh.json
is "diehard: collision probability 16*15/2/2^128" "$(json_get dh.json collision_p)" 3.53e-37
"$CMC" check --no-store --json --max-depth 4 diehard >dh4.json
n=$(json_get dh4.json distinct)
want=$(awk -v n="$n" 'BEGIN { printf "%.3g", n * (n - 1) / 2 / 2^128 }')
is "diehard to depth 4: the same formula ($n states)" "$(json_get dh4.json collision_p)" "$want"
"$CMC" simulate --json --walks 3 --depth 5 diehard >ws.json
n=$(json_get ws.json distinct)
want=$(awk -v n="$n" 'BEGIN { printf "%.3g", n * (n - 1) / 2 / 2^128 }')
is "simulate: the same formula ($n states), not 0" "$(json_get ws.json collision_p)" "$want"

# ---- the visited set: a total, no per-state figure for a few states ------------
"$CMC" check --no-store diehard >dh.txt
not_ok "16 states: no bytes/state figure" grep -q "bytes/state" dh.txt
ok "16 states: the visited set's size as a total" grep -Eq ", [0-9.]+ (KiB|MiB) in the visited set$" dh.txt

# ---- singular and plural -------------------------------------------------------
"$CMC" check --db w.db diehard >/dev/null
"$CMC" show --db w.db 2 >show2.txt # FillBigJug: one step from the initial state
ok "show: trace (1 step)" grep -q "^trace (1 step):" show2.txt
not_ok "show: never '1 steps'" grep -q "1 steps" show2.txt
"$CMC" check --db w.db diehard-solve >/dev/null
"$CMC" replay diehard-solve FillBigJug >r1.txt
ok "replay of one step: 'its 1 step', not 'any of the 1 step'" grep -q "^no violation at its 1 step$" r1.txt
"$CMC" graph --db w.db --run 1 -o one.svg >g.txt
ok "graph: counts with plural nouns" grep -q ": 16 states, 96 transitions" g.txt

# ---- show: a state the search never expanded ----------------------------------
"$CMC" check --db w.db --max-depth 2 diehard >/dev/null
"$CMC" show --db w.db 2 >leaf.txt
not_ok "show of a state past the bound: not 'successors (0)'" grep -q "successors (0)" leaf.txt
ok "show of a state past the bound: 'not expanded'" grep -q "^successors: not expanded" leaf.txt
"$CMC" show --db w.db --json 2 >leaf.json
is "show --json: expanded false" "$(json_get leaf.json expanded)" false
"$CMC" show --db w.db --json 0 >root.json
is "show --json of the initial state: expanded true" "$(json_get root.json expanded)" true

# ---- runs: both transition counts, labelled ------------------------------------
"$CMC" check --db r.db --max-states 10 diehard >/dev/null
"$CMC" runs --db r.db >runs.txt
"$CMC" runs --db r.db --json >runs.json
gen=$(json_get runs.json transitions) kept=$(json_get runs.json stored_transitions)
ok "a state bound leaves generated ($gen) and stored ($kept) transitions apart" test "$gen" -gt "$kept"
"$CMC" graph --db r.db -o r.svg >rg.txt
ok "the graph draws the stored ones" grep -q ": 10 states, $kept transitions" rg.txt
ok "runs: a STORED column beside TRANSITIONS" grep -Eq "^RUN .* TRANSITIONS +STORED +DEPTH" runs.txt
ok "runs: the row shows both" grep -Eq "^1 .* $gen +$kept +[0-9]+ +0 " runs.txt
ok "runs: says what each counts" grep -q "^TRANSITIONS: successors generated, also to states seen before; STORED: transitions kept" runs.txt

# ---- heap: nothing to draw is an error, and no file ----------------------------
"$CMC" heap --db w.db --run 1 0 -o none.svg >heap.out 2>heap.err
is "heap of a model state: exit 2" "$?" 2
not_ok "... and no file written" test -e none.svg
ok "... saying why" grep -q "nothing to draw: no allocator data" heap.err

# ---- replay: a label no action gives is a usage error --------------------------
"$CMC" replay diehard FillBigJug Nope >nope.out 2>nope.err
is "replay with an unknown label: exit 2" "$?" 2
ok "... naming it and its step" grep -q "^cmc replay: step 2: 'Nope' is no operation of diehard" nope.err
ok "... and the labels there are" grep -q "it knows FillSmallJug, FillBigJug, EmptySmallJug" nope.err
not_ok "... not a divergence" grep -qi "diverged\|did not reproduce" nope.out
"$CMC" replay twophase 'TMCommit' >tc.out 2>tc.err
is "a model's own labelled successor name is not unknown (exit 3: not enabled)" "$?" 3
"$CMC" replay twophase 'RMPrepare(r1)' >rp.out 2>rp.err
is "a label built on an action's name is accepted (exit 0)" "$?" 0

# ---- docs: scenario depth against --max-depth; '[' in reply patterns ----------
"$CMC" help check >help.txt 2>&1
ok "check --help: a scenario's depth N is --max-depth N+1" grep -q "depth N., N operations, is --max-depth N+1" help.txt
ok "scenario.md says depth N is --max-depth N+1" grep -q '`depth N` is `--max-depth N+1`' "$CMC_TOP/share/scenario.md"
ok "scenario.md says how to match a literal [ in a reply" grep -q 'literal `\[`.* `\[\[\]`' "$CMC_TOP/share/scenario.md"
not_ok "list-bug.scn: no stray comment line" grep -qx "# examples." "$CMC_TOP/share/examples/list/list-bug.scn"
done_testing
