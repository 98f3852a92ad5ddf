#!/bin/sh
# t0001-cli: the cmc command itself — help, version, exit codes, --json shape,
# bad input named with exit 2, and the search options' effect on counts.
. "$(dirname "$0")/test-lib.sh"

ok "cmc --version prints the version" sh -c '"$CMC" --version | grep -q "^cmc [0-9]"'
ok "cmc --help lists check, simulate and replay" sh -c '"$CMC" --help | grep -q check && "$CMC" --help | grep -q simulate && "$CMC" --help | grep -q replay'
ok "cmc help check shows its options" sh -c '"$CMC" help check | grep -q -- --max-depth'
"$CMC" frobnicate >/dev/null 2>"$T/err"; is "an unknown command exits 2" "$?" 2
"$CMC" check --bogus diehard >/dev/null 2>"$T/err"; is "an unknown option exits 2" "$?" 2
ok "... and names the option" grep -q -- "--bogus" "$T/err"
"$CMC" check no-such-model >/dev/null 2>"$T/err"; is "an unknown model exits 2" "$?" 2
ok "... and names it" grep -q "no-such-model" "$T/err"
"$CMC" check --max-depth x diehard >/dev/null 2>&1; is "a malformed number exits 2" "$?" 2
echo "not an ELF" >"$T/bad.so"
"$CMC" check "$T/bad.so" >/dev/null 2>"$T/err"; is "a model .so that fails to load exits 2" "$?" 2
ok "... naming the file" grep -q "bad.so" "$T/err"

"$CMC" check --json diehard >"$T/dh.json"; is "diehard has no violation: exit 0" "$?" 0
ok "--json carries the required keys" sh -c 'for k in distinct generated depth violations elapsed_s states_per_s; do grep -q "\"$k\"" "$T/dh.json" || exit 1; done'
# The state space of DieHard is small enough to count by hand: (small, big)
# pairs reachable by the six moves are 16, each state has 6 successors, so
# generated = 1 initial + 16 * 6 = 97.
is "diehard distinct states" "$(json_get "$T/dh.json" distinct)" 16
is "diehard generated states (1 + 16 x 6)" "$(json_get "$T/dh.json" generated)" 97

"$CMC" check --json --max-depth 2 diehard >"$T/d2.json"
# level 1: (0,0); level 2: (3,0) and (0,5): 3 states within two levels
is "--max-depth 2 stops after two levels" "$(json_get "$T/d2.json" distinct)" 3
is "... and says it was bounded" "$(json_get "$T/d2.json" bounded)" true
"$CMC" check --json --max-states 5 diehard >"$T/s5.json"
is "--max-states 5 admits exactly 5 states" "$(json_get "$T/s5.json" distinct)" 5
"$CMC" check --json --dfs diehard >"$T/dfs.json"
is "depth-first finds the same 16 states" "$(json_get "$T/dfs.json" distinct)" 16

"$CMC" check diehard-solve >"$T/solve.txt"; is "a violated invariant exits 1" "$?" 1
ok "the human report names the invariant" grep -q "invariant:NotSolved" "$T/solve.txt"
"$CMC" check --mem 1K diehard >"$T/oom.txt" 2>&1; is "a visited set out of memory exits 2" "$?" 2
ok "... and says so with the counts so far" grep -q "out of memory for the visited set after" "$T/oom.txt"

"$CMC" simulate --json --walks 20 --depth 30 --seed 7 diehard >"$T/sim1.json"; is "simulate exits 0 on diehard" "$?" 0
"$CMC" simulate --json --walks 20 --depth 30 --seed 7 diehard >"$T/sim2.json"
is "the same seed gives the same walks" "$(json_get "$T/sim1.json" distinct)/$(json_get "$T/sim1.json" transitions)" \
	"$(json_get "$T/sim2.json" distinct)/$(json_get "$T/sim2.json" transitions)"
ok "simulate finds the diehard solution" sh -c '"$CMC" simulate --walks 200 --depth 40 diehard-solve >/dev/null; [ $? -eq 1 ]'

# --json "levels": states found at each depth (BFS: the frontier as each
# level begins).  They add up to distinct, one entry per level.
"$CMC" check --json twophase >"$T/lv.json"
tr '{' '\n' <"$T/lv.json" | sed -n 's/^"depth": \([0-9]*\), "states": \([0-9]*\).*/\1 \2/p' >"$T/lv"
is "levels: one entry per BFS level" "$(wc -l <"$T/lv" | tr -d ' ')" "$(json_get "$T/lv.json" depth)"
is "levels: their states add up to distinct" "$(awk '{ s += $2 } END { print s }' "$T/lv")" \
	"$(json_get "$T/lv.json" distinct)"
is "levels: the first is the initial state" "$(head -n 1 "$T/lv")" "1 1"

"$CMC" replay diehard-solve FillBigJug BigToSmall EmptySmallJug BigToSmall FillBigJug BigToSmall >"$T/rp.txt"
is "replay reproduces the diehard solution's violation (exit 1)" "$?" 1
"$CMC" replay twophase TMCommit >"$T/rp.txt"; is "replay of a label that is not enabled exits 3" "$?" 3
ok "... naming the step" grep -q "step 1" "$T/rp.txt"
"$CMC" replay diehard FillBigJug NoSuchAction >"$T/rp.txt" 2>&1; is "replay of a label no action has: usage, exit 2" "$?" 2
done_testing
