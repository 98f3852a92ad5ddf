#!/bin/sh
# t5381-list-bug-plain.sh — the seed's lost-key bug found in the list
# server built with no cmc code at all (share/examples/list,
# list-bug-plain.scn): heap-graph hashing merges its insert orders without
# the hook, and the property asks the server (keys_listed.so reads LIST's
# reply) instead of reading a canonical record.  The correct server under
# the same scenario holds.
. "$(dirname "$0")/test-lib.sh"
EX=$CMC_TOP/share/examples/list
BUG=$CMC_TOP/$B/examples/list-bug-plain
ok "list-bug-plain has no cmc code (no emit hook)" not_ok sh -c "nm '$BUG' | grep -q cmc_emit"
for ex in replay fork; do
	"$CMC" check --exec $ex --no-store "$EX/list-bug-plain.scn" >bug-$ex.out 2>&1
	is "list-bug-plain ($ex): exit 1" "$?" 1
	ok "list-bug-plain ($ex): keys-listed, key 2 lost" \
		grep -q 'violation: keys-listed: key 2 was inserted at step 1 but LIST does not show it' bug-$ex.out
	ok "list-bug-plain ($ex): the shortest trace INS 2, INS 1, LIST" \
		sh -c "grep -A3 '^  trace (3 steps)' bug-$ex.out | tr -d ' ' | tr '\n' ' ' | grep -q '1:INS2 2:INS1 3:LIST'"
	ok "list-bug-plain ($ex): merged by the heap graph" grep -q '^merge heap-graph' bug-$ex.out
done
# the correct server (plain build), the same scenario: no violation
sed "s|/examples/list-bug-plain |/examples/list |" "$EX/list-bug-plain.scn" >good.scn
"$CMC" check --no-store good.scn >good.out 2>&1
is "the plain list server, the same scenario: exit 0" "$?" 0
done_testing
