#!/bin/sh
# t5380-heap-graph.sh — `hash heap-graph` (engine/proc/heapgraph.c,
# share/scenario.md "Heap-graph hashing"): a canonical form cmc computes
# from the heap itself, so targets built without the emit hook still merge
# the insert orders of one structure.
#
# Expected counts, derived here rather than copied from output:
#   list (sorted singly linked list, no hook), keys 1..N each once: the
#     heap graph of a sorted list is its set, so one state per subset:
#     2^N (raw: every ordered selection, 16 for N = 3; t5000).
#   hashtab (fixed buckets, sorted chains): the shape is a function of the
#     set, so heap-graph counts what the canonical hook counts: one state
#     per (operations applied, set), from tests/proc/bstmodel.awk mode=set.
#   bst (unbalanced tree): the shape depends on the insert order (INS 1,
#     INS 2, INS 3 is a chain; INS 2, INS 1, INS 3 is balanced), so
#     heap-graph counts (operations applied, tree shape and keys), from the
#     model's mode=shape: more states than the hook's (operations applied,
#     set), fewer than raw (where the nodes sit).
# Every count is the same under --exec replay and --exec fork, and twice.
. "$CMC_TOP/tests/test-lib.sh"

EX=$CMC_TOP/$B/examples
SCN=$CMC_TOP/share/examples
MODEL=$CMC_TOP/tests/proc/bstmodel.awk

distinct() { json_get "$1" distinct; }
check() { # OUT EXEC ARGS...: cmc check --json into OUT.json, stderr OUT.err
	out=$1 ex=$2
	shift 2
	"$CMC" check --no-store --json --jobs 1 --exec "$ex" "$@" >"$out.json" 2>"$out.err"
}
model() { # MODE A B C D: states the model tells apart
	awk -v mode="$1" -v a="$2" -v b="$3" -v c="$4" -v d="$5" -f "$MODEL" | sort -u | wc -l | tr -d ' '
}

# -- the list, built without the hook --------------------------------------
list_scenario l3.scn list 3
check nohook fork --hash canonical l3.scn
ok "build/examples/list has no hook: canonical falls back to raw" grep -q "no canonical records" nohook.err
check l3raw fork --hash raw l3.scn
is "list (no hook), keys 1..3, raw: 16" "$(distinct l3raw.json)" 16
check l3hg fork --hash heap-graph l3.scn
is "list (no hook), keys 1..3, heap-graph: 8, the seed's canonical count" "$(distinct l3hg.json)" 8
ok "the summary says how states were merged" grep -q '"note": "merge heap-graph"' l3hg.json
ok "the run reports words taken as pointers and blocks reached" \
	grep -Eq "heap-graph: [0-9]+ walks \(0 without a form\), [1-9][0-9]* of [0-9]+ words taken as pointers" l3hg.err
for n in 1 2 4 5 6; do
	list_scenario "l$n.scn" list "$n"
	check "l$n" fork --hash heap-graph "l$n.scn"
	is "list (no hook), keys 1..$n, heap-graph: 2^$n" "$(distinct "l$n.json")" $((1 << n))
done
check l3hgr replay --hash heap-graph l3.scn
json_untimed l3hg.json >a.cmp
json_untimed l3hgr.json >b.cmp
ok "list keys 1..3: the same --json under replay and fork" diff a.cmp b.cmp
check l5again fork --hash heap-graph l5.scn
json_untimed l5.json >a.cmp
json_untimed l5again.json >b.cmp
ok "list keys 1..5: the same --json twice" diff a.cmp b.cmp
# raw+heap-graph explores by the pair, so the run spans both counts and
# cmc compare shows them (its canonical column counts heap graphs).
"$CMC" check --json --jobs 1 --db pair.db --exec fork --hash raw+heap-graph l3.scn >pair.json 2>pair.err
is "list keys 1..3, raw+heap-graph: 16 explored" "$(distinct pair.json)" 16
is "... spanning 16 raw" "$(json_get pair.json raw_distinct)" 16
is "... and 8 heap graphs" "$(json_get pair.json canonical_distinct)" 8
# ... labelled by what the run counts: heap graphs, not canonical records
# (the run records its identity in runs.space, identity=raw+heap-graph).
"$CMC" compare --db pair.db >cmp.out 2>&1
ok "cmc compare: 16 distinct raw, 8 distinct heap-graph, merge factor 2.00" \
	grep -q '16 distinct raw, 8 distinct heap-graph, merge factor 2.00' cmp.out
ok "... each group is a heap graph, none says canonical" \
	sh -c "grep -q '^heap-graph [0-9a-f]*: 2 raw variants' cmp.out && ! grep -q canonical cmp.out"
"$CMC" compare --json --db pair.db >cmp.json
is "cmc compare --json: identity raw+heap-graph" "$(json_get cmp.json identity)" raw+heap-graph
is "... canon_kind heap-graph" "$(json_get cmp.json canon_kind)" heap-graph
ok "the run records its identity" sh -c "sqlite3 pair.db 'SELECT space FROM runs' | grep -qx 'identity=raw+heap-graph'"

# -- the heap graph of one state, beside raw (hgtable.c: by replay) ----------
# Keys 1..3 in any order: root 1 (.bss, the list head) points at block 1,
# block k at block k + 1 (its next, at offset 8), block 3's next is NULL:
# three 16-byte nodes (int key, padding, pointer), each reached once.
hg_rows() { # DB STATE: the table without addresses, one line a block
	"$CMC" compare --json --db "$1" --heap-graph "$2" 2>/dev/null |
		sed -n 's/.*{"block": \([0-9]*\), "size": \([0-9]*\), "addr": [0-9]*, "out": \(\[[^]]*\]\)}.*/\1 \2 \3/p'
}
deep=$(sqlite3 pair.db "SELECT id FROM states WHERE run = 1 ORDER BY depth DESC, id")
last=$(echo "$deep" | head -n 1)
hg_rows pair.db "$last" >rows.out
is "compare --heap-graph: three blocks reached" "$(wc -l <rows.out | tr -d ' ')" 3
ok "... each 16 bytes, blocks 1 and 2 pointing at the next one's start, block 3 at nothing" \
	sh -c "grep -qx '1 16 \[{\"off\": 8, \"block\": 2, \"offset\": 0}\]' rows.out &&
	       grep -qx '2 16 \[{\"off\": 8, \"block\": 3, \"offset\": 0}\]' rows.out &&
	       grep -qx '3 16 \[\]' rows.out"
"$CMC" compare --db pair.db --heap-graph "$last" >hg.txt 2>&1
ok "... as text: 3 blocks reached of 3 live, 3 pointers, a root pointing at block 1" \
	sh -c "grep -q '3 blocks reached of 3 live, 3 pointers' hg.txt && grep -q '^root 1 .*+[0-9]*:(1, 0)\$' hg.txt"
same=0
for id in $(sqlite3 pair.db "SELECT id FROM states WHERE run = 1 AND depth = (SELECT max(depth) FROM states WHERE run = 1)"); do
	hg_rows pair.db "$id" | cmp -s - rows.out && same=$((same + 1))
done
is "all 6 insert orders of 1, 2, 3 have that one table" "$same" 6
"$CMC" check --jobs 1 --db raw.db --exec fork --hash raw l3.scn >/dev/null 2>&1
rawlast=$(sqlite3 raw.db "SELECT id FROM states WHERE run = 1 ORDER BY depth DESC, id LIMIT 1")
hg_rows raw.db "$rawlast" >rawrows.out
ok "a run hashed raw: the table is computed all the same" cmp -s rawrows.out rows.out
"$CMC" compare --db pair.db --heap-graph 9999 >nostate.out 2>&1
is "--heap-graph on no such state: exit 2" "$?" 2
# The picture: one node per reached block, one edge per pointer, the
# roots in a cluster; the trace in the caption escaped.
"$CMC" graph --db pair.db --heap "$last" -o hg.dot >hgdot.out 2>&1
is "cmc graph --heap: exit 0" "$?" 0
is "... one node per block" "$(grep -cE '^[[:space:]]*b[0-9]+[[:space:]]+\[' hg.dot)" 3
is "... one edge per pointer" "$(grep -c -- ' -> ' hg.dot)" 3
ok "... root 1 in the roots' cluster, pointing at block 1" \
	sh -c "grep -q 'subgraph cluster_roots' hg.dot && grep -q 'r1 -> b1' hg.dot"
ok "... blocks labelled with number and size, edges with offsets" \
	sh -c "grep -q 'label=\"2\\\\n16 B\"' hg.dot && grep -q 'b2 -> b3.*label=\"+8 → +0\"' hg.dot"
"$CMC" graph --db pair.db --heap "$last" -o hg.svg >/dev/null 2>&1
is "... as SVG: 4 nodes (3 blocks, 1 root)" "$(grep -c 'class="node"' hg.svg)" 4
is "... and 3 edges" "$(grep -c 'class="edge"' hg.svg)" 3
"$CMC" graph --db pair.db --heap "$last" --budget 2 -o cut.dot >cut.out 2>&1
is "--budget 2: two blocks drawn" "$(grep -cE '^[[:space:]]*b[0-9]+[[:space:]]+\[' cut.dot)" 2
ok "... and it says so" sh -c "grep -q 'the first 2 of 3 blocks drawn' cut.out && grep -q 'cut: the first 2 blocks drawn; 1 more' cut.dot"
sed 's/op "INS 1"/op "<b>\&INS 1"/' l3.scn >esc.scn
"$CMC" check --jobs 1 --db esc.db --exec fork --hash heap-graph esc.scn >/dev/null 2>&1
escid=$(sqlite3 esc.db "SELECT id FROM states WHERE run = 1 ORDER BY depth DESC, id LIMIT 1")
"$CMC" graph --db esc.db --heap "$escid" -o esc.dot >/dev/null 2>&1
ok "an operation label in the caption is escaped (&lt;b&gt;&amp;INS 1)" \
	sh -c "grep -q '&lt;b&gt;&amp;INS 1' esc.dot && ! grep -q '<b>&INS' esc.dot"

check pairr replay --hash raw+heap-graph l3.scn
json_untimed pair.json >a.cmp
json_untimed pairr.json >b.cmp
ok "raw+heap-graph: the same --json under replay and fork" diff a.cmp b.cmp
# The scenario keyword is the option's twin.
{ cat l3.scn; echo "hash heap-graph"; } >l3kw.scn
check l3kw fork l3kw.scn
is "'hash heap-graph' in the scenario: 8" "$(distinct l3kw.json)" 8
{ cat l3.scn; echo "hash heap"; } >bad.scn
"$CMC" check --no-store bad.scn >bad.out 2>&1
is "'hash heap' is refused (exit 2)" "$?" 2
ok "... naming heap-graph among the choices" grep -q "raw|canonical|both|heap-graph" bad.out

# The planted lost-key bug is still found: merging by heap graph folds INS 2,
# INS 1 (whose lost node is garbage) into INS 1, but properties are judged
# on every transition.  keys-present reads the hook's record, which under
# heap-graph still reaches plugins without identifying states.
for ex in replay fork; do
	check "bug-$ex" "$ex" --hash heap-graph "$SCN/list/list-bug.scn"
	is "list-bug, heap-graph, $ex: a violation (exit 1)" "$?" 1
	ok "list-bug, heap-graph, $ex: keys-present, trace INS 2, INS 1" \
		grep -q '"trace": \["INS 2", "INS 1"\]' "bug-$ex.json"
done

# -- the hash table: order-independent by construction ---------------------
want=$(model set 1 2 5 1)
is "model: hashtab.scn's (ops applied, set) pairs" "$want" 20
for ex in replay fork; do
	check "ht-$ex" "$ex" "$SCN/hashtab/hashtab.scn"
	is "hashtab (no hook), heap-graph, $ex: one state per (ops applied, set)" "$(distinct "ht-$ex.json")" "$want"
done
sed "s|\${CMC_BIN}/examples/hashtab |$EX/hashtab-emit |" "$SCN/hashtab/hashtab.scn" >ht-emit.scn
check ht-emit fork --hash canonical ht-emit.scn
is "hashtab with the hook, canonical: the same count" "$(distinct ht-emit.json)" "$want"
check ht-raw fork --hash raw "$SCN/hashtab/hashtab.scn"
ok "hashtab raw tells more apart ($(distinct ht-raw.json))" test "$(distinct ht-raw.json)" -gt "$want"

# -- the binary search tree: the shape depends on the order ----------------
shapes=$(model shape 1 2 3 2) sets=$(model set 1 2 3 2)
is "model: bst.scn's (ops applied, tree) pairs" "$shapes" 35
is "model: bst.scn's (ops applied, set) pairs" "$sets" 20
for ex in replay fork; do
	check "bst-$ex" "$ex" "$SCN/bst/bst.scn"
	is "bst (no hook), heap-graph, $ex: one state per (ops applied, tree)" "$(distinct "bst-$ex.json")" "$shapes"
done
json_untimed bst-replay.json >a.cmp
json_untimed bst-fork.json >b.cmp
ok "bst: the same --json under replay and fork" diff a.cmp b.cmp
check bst-again fork "$SCN/bst/bst.scn"
is "bst: the same count twice" "$(distinct bst-again.json)" "$shapes"
sed "s|\${CMC_BIN}/examples/bst |$EX/bst-emit |" "$SCN/bst/bst.scn" >bst-emit.scn
check bst-emit fork --hash canonical bst-emit.scn
is "bst with the hook, canonical: one state per (ops applied, set)" "$(distinct bst-emit.json)" "$sets"

# -- a heap that is hard to walk -------------------------------------------
PT=$CMC_TOP/$B/tests-helpers/hgtarget
{
	echo "target $PT"
	printf '%s\n' 'op cycle "cycle\n" once' 'op self "self\n" once'
	echo "property reply * OK"
} >cyc.scn
check cyc fork --hash heap-graph cyc.scn
is "a two-node cycle and a self-loop: one state per subset, 4" "$(distinct cyc.json)" 4
{
	cat cyc.scn
	printf '%s\n' 'op dangle "dangle\n" once' 'op int "int\n" once' \
		'op scribble "scribble\n" once'
} >hard.scn
for ex in replay fork; do
	check "hard-$ex" "$ex" --hash heap-graph hard.scn
	is "cycles, a dangling pointer, a fake one, corrupt metadata, $ex: exit 0" "$?" 0
done
json_untimed hard-replay.json >a.cmp
json_untimed hard-fork.json >b.cmp
ok "... and the same --json under replay and fork" diff a.cmp b.cmp
check hard-raw fork --hash raw hard.scn
ok "... merging no more than raw does ($(distinct hard-raw.json) raw)" \
	test "$(distinct hard-fork.json)" -le "$(distinct hard-raw.json)"

done_testing
