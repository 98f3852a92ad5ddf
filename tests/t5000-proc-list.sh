#!/bin/sh
# t5000-proc-list.sh — the seed's table reproduced on the list server
# (share/examples/list): the orders in which keys 1..N can be inserted, each
# key at most once, explored by stateless replay over TCP.
#
# Expected counts, derived here rather than copied from output:
#   canonical (the sorted keys): one state per subset of {1..N}: 2^N.
#   raw (heap bytes): the bump arena places nodes in allocation order, so
#     every ordered selection of distinct keys is its own heap: sum over
#     k = 0..N of N!/(N-k)!  (N = 3: 1 + 3 + 6 + 6 = 16).
#   --hash both explores by the pair, i.e. the finer (raw) partition, and
#     the states it reaches span both counts.
. "$CMC_TOP/tests/test-lib.sh"

EX=$CMC_TOP/$B/examples
SCN=$CMC_TOP/share/examples/list

pow2() { echo $((1 << $1)); }
arrangements() { # sum_{k=0..n} n!/(n-k)!
	n=$1 sum=0 term=1 k=0
	while [ "$k" -le "$n" ]; do
		sum=$((sum + term))
		term=$((term * (n - k)))
		k=$((k + 1))
	done
	echo "$sum"
}


is "derivation: N=3 gives 16 arrangements" "$(arrangements 3)" 16

# The shipped scenario, N = 3.
"$CMC" check --json --hash raw "$SCN/list.scn" >raw.json 2>raw.err
is "list.scn --hash raw: 16 distinct" "$(json_get raw.json distinct)" "$(arrangements 3)"
"$CMC" check --json --hash canonical "$SCN/list.scn" >can.json 2>can.err
is "list.scn --hash canonical: 8 distinct" "$(json_get can.json distinct)" "$(pow2 3)"
"$CMC" check --json --hash both "$SCN/list.scn" >both.json 2>both.err
is "list.scn --hash both: 16 distinct" "$(json_get both.json distinct)" 16
is "list.scn --hash both: raw_distinct 16" "$(json_get both.json raw_distinct)" 16
is "list.scn --hash both: canonical_distinct 8" "$(json_get both.json canonical_distinct)" 8
"$CMC" check --json "$SCN/list.scn" >auto.json 2>auto.err
is "list.scn by default merges canonically: 8" "$(json_get auto.json distinct)" 8
not_ok "the hooked target does not fall back" grep -q "falling back" auto.err
# Canonical merging: every subset S is expanded once, by each key not in S:
# sum over S of (N - |S|) = N * 2^(N-1) = 12 successors, plus the initial.
is "list.scn canonical: 13 generated (1 + 3 * 2^2)" "$(json_get can.json generated)" 13

# The planted bug: keys-present fails, shortest trace INS 2, INS 1.
"$CMC" check --json "$SCN/list-bug.scn" >bug.json 2>bug.err
rc=$?
is "list-bug: exit 1 (violation)" "$rc" 1
ok "list-bug: keys-present is the violated property" grep -q '"property": "keys-present"' bug.json
ok "list-bug: shortest trace INS 2, INS 1" grep -q '"trace": \["INS 2", "INS 1"\]' bug.json
"$CMC" check "$SCN/list-bug.scn" >bug.txt 2>&1
ok "list-bug: the summary names key 2 as lost" grep -q "key 2 was inserted at step 1 but is missing" bug.txt

# Without the hook: falls back to raw, and says so.
list_scenario plain.scn list 3
"$CMC" check --json plain.scn >plain.json 2>plain.err
ok "list without the hook: says it falls back to raw" grep -q "no canonical records: falling back to raw" plain.err
is "list without the hook: raw counts, 16" "$(json_get plain.json distinct)" 16
is "list without the hook: no canonical fingerprints" "$(json_get plain.json canonical_distinct)" 0

# Keys 1..N for larger N: canonical 2^N and raw sum N!/(N-k)!.
for n in 4 5 6; do
	list_scenario "n$n.scn" list-emit "$n"
	"$CMC" check --json --hash canonical "n$n.scn" >"c$n.json" 2>/dev/null
	is "N=$n canonical: 2^$n distinct" "$(json_get "c$n.json" distinct)" "$(pow2 "$n")"
	"$CMC" check --json --hash both "n$n.scn" >"b$n.json" 2>/dev/null
	is "N=$n raw (--hash both): sum $n!/($n-k)! distinct" "$(json_get "b$n.json" distinct)" \
		"$(arrangements "$n")"
	is "N=$n --hash both: canonical_distinct 2^$n" "$(json_get "b$n.json" canonical_distinct)" \
		"$(pow2 "$n")"
done

done_testing
