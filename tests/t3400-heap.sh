#!/bin/sh
# t3400-heap: `cmc heap STATE` and the workbench's allocator view draw the
# pool allocator's chunk map decoded from the stored raw window, name the
# invariants from the validator table, and point a failing one at its chunk,
# slot and byte.
#
# Expected figures, derived from the examples and preload/layout/pool.h (not read
# off the output):
#   16 KiB units (POOL_UNIT_SHIFT_DEFAULT 14).  A malloc(16) needs 16 bytes
#   plus POOL_REDZONE 1 = 17, so class 1 (32-byte slots).  A class-32 chunk
#   holds n slots with a 64-byte header, an n-bit bitmap in 8-byte words and
#   2n bytes of sizes before the 16-aligned payload:  n = 478 is the largest
#   with 64 + 64 + 956 -> 1088 (aligned) and 1088 + 478 * 32 = 16384.
#   The window starts at the pool meta (data_off = POOL_META_OFF 256); the
#   scenario's default 64 MiB region has about 4,000 units, so the meta and
#   the unit table (a byte per unit) end below 16 KiB and unit 0 starts at
#   region offset 16384, window offset 16128 = 0x3f00, and slot i at window offset
#   0x3f00 + 1088 + 32 i.
#   overflow (NEW, WIDE, COPY): one 16-byte record, slot 0 of unit 0, and 24
#     bytes copied into it: the first byte past the block is slot byte 16,
#     window 0x3f00 + 0x440 + 0x10 = 0x4350 -> INV-13, slot 0, strip "!...".
#   useafterfree (OPEN, CLOSE, HIT): main's session block in slot 0, the
#     counter in slot 1, freed, then its first word incremented: window
#     0x3f00 + 0x440 + 0x20 = 0x4360 -> INV-12, slot 1, strip "#x...",
#     one live slot.
#   list: one 16-byte node per key inserted (the server allocates nothing
#     else on its request path), so the live slots of a state at depth d are
#     d - 1 and every invariant holds.
# @inv INV-12 INV-13
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/t3-viz
SCN=$CMC_TOP/share/examples/heapbugs
export CMC_BIN="$CMC_TOP/$B"

# violating_state DB: the state of the first violation (cmc trace --json).
violating_state() {
	"$CMC" trace --db "$1" --json | sed -n 's/.*"state": \([0-9]*\), "length".*/\1/p' | head -n 1
}
# dot_attr FILE NODE ATTR: an attribute of a node in a cgraph-written DOT
# (attributes may span lines; values without quotes or quoted).
dot_attr() {
	awk -v n="$2" '$1 == n && $2 ~ /^\[/ { on = 1 } on { print } on && /\];?$/ { exit }' "$1" |
		sed -n "s/.*$3=\"\{0,1\}\([^\",]*\).*/\1/p" | head -n 1
}
# live_total FILE: live slots over every chunk drawn.
live_total() { sed -n 's/.*cmc_live=\([0-9]*\).*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }
chunks() { "$H" names "$1" | grep -c '^k[0-9]'; }

# ---- overflow: INV-13 at slot 0 ---------------------------------------------
"$CMC" check "$SCN/overflow.scn" --db o.db >/dev/null 2>&1
is "overflow: a violation (exit 1)" "$?" 1
s=$(violating_state o.db)
ok "overflow: cmc heap writes DOT" "$CMC" heap --db o.db "$s" -o o.dot
ok "overflow: the DOT parses back through cgraph" "$H" names o.dot
is "overflow: one chunk (one 16-byte record)" "$(chunks o.dot)" 1
is "overflow: chunk k0 is unit 0, a class chunk" "$(dot_attr o.dot k0 cmc_unit) $(dot_attr o.dot k0 cmc_kind)" "0 class"
strip=$(dot_attr o.dot k0 cmc_slots)
is "overflow: 478 slots of 32 bytes" "${#strip}" 478
is "overflow: slot 0 live with its redzone written, the rest free" \
	"$(echo "$strip" | cut -c1-3) $(echo "$strip" | tr -d . | wc -c)" "!.. 2"
is "overflow: one live slot" "$(live_total o.dot)" 1
is "overflow: the chunk is marked by INV-13" "$(dot_attr o.dot k0 cmc_bad)" INV-13
ok "overflow: INV-13 is named from the validator table" grep -q 'INV-13 redzones intact (no overflow)' o.dot
ok "overflow: ... and fails at chunk k0 slot 0, window byte 0x4350" \
	grep -q 'FAIL: chunk k0 slot 0, window byte +0x4350' o.dot
ok "overflow: ... with the validator's message" grep -q "unit 0 slot 0: bytes past the block" o.dot
ok "overflow: an edge from the failing row to the chunk" grep -q 'invariants:i12 -> k0' o.dot
ok "overflow: 16 other invariants pass" sh -c '[ "$(grep -o "pass *</TD>" "$0" | wc -l)" -eq 16 ]' o.dot
ok "overflow: the SVG is well-formed XML" sh -c '"$0" heap --db o.db "$1" -o o.svg && xmllint --noout o.svg' "$CMC" "$s"

# ---- useafterfree: INV-12 at slot 1 -----------------------------------------
"$CMC" check "$SCN/useafterfree.scn" --db u.db >/dev/null 2>&1
is "useafterfree: a violation (exit 1)" "$?" 1
s=$(violating_state u.db)
ok "useafterfree: cmc heap writes DOT" "$CMC" heap --db u.db "$s" -o u.dot
is "useafterfree: one chunk" "$(chunks u.dot)" 1
is "useafterfree: the session block live, the freed counter written" \
	"$(dot_attr u.dot k0 cmc_slots | cut -c1-3)" "#x."
is "useafterfree: one live slot" "$(live_total u.dot)" 1
is "useafterfree: the chunk is marked by INV-12" "$(dot_attr u.dot k0 cmc_bad)" INV-12
ok "useafterfree: INV-12 fails at slot 1, window byte 0x4360" \
	grep -q 'INV-12 poison of freed slots intact.*FAIL: chunk k0 slot 1, window byte +0x4360' u.dot
ok "useafterfree: the SVG is well-formed XML" sh -c '"$0" heap --db u.db "$1" -o u.svg && xmllint --noout u.svg' "$CMC" "$s"

# ---- list: healthy states ----------------------------------------------------
sed 's/^property reply/property alloc\nproperty reply/' "$CMC_TOP/share/examples/list/list.scn" >list.scn
"$CMC" check list.scn --db l.db >/dev/null 2>&1
is "list + property alloc: no violation" "$?" 0
n=$("$CMC" runs --db l.db --json | sed -n 's/.*"stored_states": \([0-9]*\).*/\1/p')
is "list: 8 states stored (the subsets of {1,2,3})" "$n" 8
bad=
i=0
while [ "$i" -lt "${n:-0}" ]; do
	d=$("$CMC" show --db l.db --json "$i" | sed -n 's/^{"run": [0-9]*, "state": [0-9]*, "depth": \([0-9]*\).*/\1/p')
	"$CMC" heap --db l.db "$i" -o "l$i.dot" >"l$i.out" 2>&1 || bad="$bad $i:heap"
	grep -q ' 0 failing' "l$i.out" || bad="$bad $i:failing"
	grep -q 'FAIL' "l$i.dot" && bad="$bad $i:FAIL"
	[ "$(live_total "l$i.dot")" = "$((d - 1))" ] || bad="$bad $i:live=$(live_total "l$i.dot"),keys=$((d - 1))"
	i=$((i + 1))
done
is "list: every state passes every invariant, live slots == keys inserted" "${bad:-none}" none
ok "list: 17 invariants passing, by name (INV-1..16, INV-24)" sh -c '[ "$(grep -o "pass *</TD>" l7.dot | wc -l)" -eq 17 ]'
ok "list: the empty initial state says the pool holds no chunk" grep -q 'holds no chunk' l0.out

# ---- the workbench's allocator view ----------------------------------------
. "$CMC_TOP/tests/tui-lib.sh"
s=$(violating_state o.db)
start "'$CMC' tui --db o.db"
ok "tui: opens the stored overflow run, saying it holds a violation" \
	wait_for '^run 1: 9 states, 1 violation: v lists it'
keys / "$s" Enter
keys a
ok "tui: the failing invariant names its chunk, slot and byte" \
	wait_for 'FAIL INV-13 redzones intact \(no overflow\) -> chunk 0 slot 0, byte \+0x4350'
ok "tui: the chunk row with its slot strip" wait_for '^  \*0 +unit 0 +class +32 B live +1/478 !\.\.\.'
keys Escape q
ok "tui: quits with status 0" wait_for 'EXITED=0'
done_testing
