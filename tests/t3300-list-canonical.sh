#!/bin/sh
# t3300-list-canonical: raw against canonical in a picture.  The list
# example explored by both identities reaches 16 raw states (every ordered
# selection of keys 1, 2, 3: 1 + 3 + 6 + 6) in 8 canonical ones (the subsets
# of {1,2,3}); --raw-vs-canonical draws one cluster per subset holding its
# raw variants: the full set {1,2,3} is reached in 3! = 6 orders.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/t3-viz
db=$T/l.db
(cd "$CMC_TOP" && "$CMC" check --db "$db" --hash both share/examples/list/list.scn) >check.out 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "16 distinct states" check.out; then
	skip "list example" "process mode could not explore it here (exit $rc): $(head -n 1 check.out)"
	done_testing
	exit
fi
"$CMC" graph --db "$db" --raw-vs-canonical -o l.dot >out 2>err; is "raw vs canonical: exit 0" "$?" 0
"$H" count l.dot >cnt
is "16 raw states in 8 canonical clusters" "$(cut -d' ' -f1-2,5-6 cnt)" "nodes 16 clusters 8"
ok "stdout says 8 canonical states" grep -q "16 states, .* 8 canonical states" out
ok "the caption gives both counts" grep -q "16 raw states in 8 canonical states" l.dot
ok "one cluster holds the 6 orders of {1,2,3}" grep -q "6 raw variants" l.dot
ok "SVG of it is well-formed" sh -c '"$CMC" graph --db "$0" --raw-vs-canonical -o l.svg && xmllint --noout l.svg' "$db"

# the allocator picture of a process state: the pool's chunk map, decoded
# from the raw window (state 3 is at depth 2: one key, one node, one chunk;
# tests/t3400-heap.sh checks the map itself)
"$CMC" heap --db "$db" 3 -o h.svg >out 2>err; is "cmc heap on a process state exits 0" "$?" 0
ok "... well-formed SVG" xmllint --noout h.svg
ok "... draws the pool's chunk map (one chunk, singular)" grep -q "0 failing, 1 chunk$" out
ok "... with the raw window size in the picture" grep -q "raw window" h.svg
done_testing
