#!/bin/sh
# t5020-proc-examples.sh — the other shipped examples under cmc: bss (state
# in a global array, read through the ELF symbol table) and kv (stdio:
# fgets in, printf out, the quiescence case a read() interposer misses).
#
# Expected counts, derived:
#   bss, keys 1..3 each once, raw = the symbol bss_present only: the array
#     is the set, so one state per subset of {1,2,3}: 2^3 = 8.  Canonical
#     merging of the subsets: each subset S is expanded by the 3 - |S| keys
#     not in it, 3 * 2^2 = 12 successors + 1 initial = 13 generated.
#   kv, keys a, b, c set once each, raw heap: strdup'd keys and values land
#     in allocation order, so every ordered selection differs: 1 + 3 + 6 + 6
#     = 16.  Its canonical record (sorted pairs) is written after each
#     command only, so the 16 states span the 7 non-empty subsets plus the
#     initial state, which has none.
. "$CMC_TOP/tests/test-lib.sh"

SHARE=$CMC_TOP/share/examples

"$CMC" check --json "$SHARE/bss/bss.scn" >bss.json 2>bss.err
is "bss: exit 0" "$?" 0
is "bss: raw symbol hashing gives 8 distinct" "$(json_get bss.json distinct)" 8
is "bss: 13 generated" "$(json_get bss.json generated)" 13
is "bss: 8 raw fingerprints" "$(json_get bss.json raw_distinct)" 8

# The same target hashed by its (unchanging) heap instead: the raw bytes
# cannot tell the subsets apart (one raw fingerprint); the states still
# differ by which `once` ops were applied, which joins the identity, so 8.
sed -e 's/^raw symbol bss_present$/raw heap/' "$SHARE/bss/bss.scn" | \
	sed -e "s|\${CMC_BIN}|$CMC_TOP/$B|" >bss-heap.scn
"$CMC" check --json bss-heap.scn >bssh.json 2>/dev/null
is "bss hashed by heap only: the set is invisible to raw, 1 fingerprint" "$(json_get bssh.json raw_distinct)" 1
is "bss hashed by heap only: 8 states by the applied-op sets" "$(json_get bssh.json distinct)" 8

# Writable segments cover .data/.bss, so they see the array too.
sed -e 's/^raw symbol bss_present$/raw segments/' "$SHARE/bss/bss.scn" | \
	sed -e "s|\${CMC_BIN}|$CMC_TOP/$B|" >bss-seg.scn
"$CMC" check --json bss-seg.scn >bsss.json 2>/dev/null
is "bss hashed by writable segments: 8" "$(json_get bsss.json distinct)" 8

"$CMC" check --json --hash raw "$SHARE/kv/kv.scn" >kv.json 2>kv.err
is "kv (stdio): exit 0" "$?" 0
is "kv --hash raw: 16 distinct" "$(json_get kv.json distinct)" 16
"$CMC" check --json --hash both "$SHARE/kv/kv.scn" >kvb.json 2>kvb.err
is "kv --hash both: raw_distinct 16" "$(json_get kvb.json raw_distinct)" 16
is "kv --hash both: canonical_distinct 7 (non-empty subsets)" "$(json_get kvb.json canonical_distinct)" 7
ok "kv: no record at start, so cmc says it falls back to raw" grep -q "falling back to raw" kvb.err

# A reply pattern that fails names the op and the pattern.
sed -e 's/^property reply \* "OK"$/property reply "SET b" "NOPE*"/' "$SHARE/kv/kv.scn" | \
	sed -e "s|\${CMC_BIN}|$CMC_TOP/$B|" >kvr.scn
"$CMC" check --json kvr.scn >kvr.json 2>/dev/null
is "kv with a failing reply property: exit 1" "$?" 1
ok "kv: the reply violation has the shortest trace SET b" grep -q '"trace": \["SET b"\]' kvr.json

# simulate: seeded random walks on the live target are reproducible.
"$CMC" simulate --json --seed 7 "$SHARE/kv/kv.scn" >sim1.json 2>/dev/null
"$CMC" simulate --json --seed 7 "$SHARE/kv/kv.scn" >sim2.json 2>/dev/null
ok "simulate runs on a scenario" test -s sim1.json
# the timing fields differ from run to run; everything else must not
json_untimed sim1.json >sim1.cmp
json_untimed sim2.json >sim2.cmp
ok "simulate with one seed twice gives the same counts" cmp sim1.cmp sim2.cmp
ok "simulate walked and generated states" grep -q '"generated": [1-9]' sim1.json

done_testing
