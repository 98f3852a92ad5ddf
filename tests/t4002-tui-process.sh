#!/bin/sh
# t4002-tui-process.sh — the workbench on the bundled list example (process
# mode, `--hash both`): step by hand on the live target (reply bytes,
# canonical record, allocator summary), search, raw against canonical (the
# seed's 16 raw states in 8 canonical ones, list.scn's own comment), the hex
# diff of the two raw variants of {1,2}, and the allocator view.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
# Reached through a long directory name, as on a machine whose checkout
# lives deep: the header must keep its counts and cut the path instead.
LONG=$T/a-checkout-directory-whose-name-is-long-enough-to-crowd-the-header
mkdir -p "$LONG" && ln -s "$CMC_TOP/share/examples/list" "$LONG/list"
SCN=$LONG/list/list.scn
if [ ! -x "$CMC_TOP/$B/examples/list-emit" ]; then
	skip "workbench on the list example" "$B/examples/list-emit is not built"
	done_testing
	exit
fi

start "'$CMC' tui --hash both '$SCN'"
ok "open: the live target reaches its initial state" wait_for 'live .*list\.scn.* \| idle \| 1 distinct'
ok "open: a long scenario path is cut at its head, the counts stay" \
	grep -Eq '(^| > )run [0-9]+ live .*\.\.\..*list\.scn( bfs)? \| idle \| 1 distinct.* fr [0-9]+' "$T/screen"
keys Enter
ok "state: the scenario's three operations are offered" wait_for '^  INS 3 +\(not taken yet\)'
keys Enter
ok "step by hand: INS 1 runs on the live target" wait_for 'state 1  depth 2  from 0 by INS 1'
ok "step by hand: the target's reply is shown, escaped" wait_for '^reply  3 bytes: "OK\\n"'
ok "step by hand: the canonical record is shown" wait_for '^canon  [0-9]+ bytes: '
ok "step by hand: the allocator's invariants hold" wait_for '^alloc  ([0-9]+) of \1 invariants hold'
keys a
ok "allocator: the view lists the invariants as holding" wait_for 'every checked invariant holds'
ok "allocator: one row per invariant" wait_for '^  ok +[A-Za-z0-9-]+'
keys Escape

keys r
# list.scn: each of 3 keys inserted at most once; 16 ordered selections.
ok "search: the whole space is explored" wait_for 'search complete: 16 distinct states'
keys c
ok "compare: 16 raw states in 8 canonical ones" \
	wait_for '16 states: 16 distinct raw, 8 distinct canonical'
screen >"$T/cmp"
# The first canonical state with two raw variants (a two-key subset).
row=$(awk 'NR >= 4 && / 2 raw variants/ { print NR - 4; exit }' "$T/cmp")
ok "compare: a canonical state has 2 raw variants" test -n "$row"
i=0
while [ $i -lt "${row:-0}" ]; do keys j; i=$((i + 1)); done
keys Enter
ok "hex: Enter diffs the two raw variants" wait_for 'raw snapshot of state [0-9]+ \(A\) against state [0-9]+ \(B\)'
ok "hex: the allocation orders leave different bytes" wait_for '[1-9][0-9]* bytes? differs?, first at offset 0x'
keys n
ok "hex: n moves to a differing row" wait_for '^[0-9a-f]{8}<'
keys Escape Escape
keys q
ok "quit: leaves with status 0" wait_for 'EXITED=0'
ok "quit: the run is stored complete" sh -c "'$CMC' runs --json | grep -q '\"status\": \"complete\"'"
done_testing
