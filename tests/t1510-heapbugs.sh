#!/bin/sh
# t1510-heapbugs.sh — each heap bug class in share/examples/heapbugs caught
# in a real target as an allocator invariant violation, with the shortest
# trace.  Each target has three commands, each used once; the bug needs two
# of them in a particular order (see each .c file):
#   overflow     NEW (16-byte block), WIDE (copy 24), COPY: both before COPY;
#                BFS meets NEW, WIDE, COPY first (ops are tried in file
#                order) -> INV-13 (redzone after the block written)
#   doublefree   ADD, DROP (free, pointer kept), FLUSH (free again) -> INV-15
#   foreignfree  DEFAULT (static name), CLEAR (free it): 2 steps -> INV-16
#   useafterfree OPEN, CLOSE (free, pointer kept), HIT (write) -> INV-12
#   underflow    OPEN (32 KiB: a chunk of its own), LEFT (cursor -1), PUT
#                (write at the cursor): into the chunk header -> INV-3
#   uafreuse     OPEN, CLOSE (free, pointer kept), TOUCH (write through it,
#                then allocate the same size): the freed slot is still in
#                the quarantine, so the write is seen, not handed out
#                again -> INV-12
#   uafreuse-op  OPEN, RECYCLE (free, write, allocate the same size in one
#                operation: the written slot is handed out again and its
#                poison verified as it is) -> INV-12
# The two uafreuse scenarios run under both executors: the violation and
# its trace must not depend on fork snapshots or replay.
# No shorter trace exists: with one command, or two in another order, no
# bug is triggered (each command alone is harmless).
# @inv INV-3 INV-12 INV-13 INV-15 INV-16
. "$CMC_TOP/tests/test-lib.sh"

SCN=$CMC_TOP/share/examples/heapbugs
export CMC_BIN="$CMC_TOP/$B"

bug() { # NAME INV TRACE [CHECK ARGS...]
	name=$1 inv=$2 want=$3
	shift 3
	what="$name${1:+ ($*)}"
	"$CMC" check "$SCN/$name.scn" --no-store --json "$@" >"$name.json" 2>"$name.err"
	is "$what: a violation (exit 1)" "$?" 1
	is "$what: reported by the allocator property" "$(first_violation "$name.json" property)" alloc
	msg=$(first_violation "$name.json" message)
	case $msg in
	*"$inv:"*) _report 0 "$what: the failing invariant is $inv" ;;
	*) _report 1 "$what: the failing invariant is $inv"; echo "#   got: $msg" ;;
	esac
	trace=$(first_violation "$name.json" trace)
	is "$what: shortest trace" "$trace" "$want"
}

bug overflow INV-13 '"NEW", "WIDE", "COPY"'
bug doublefree INV-15 '"ADD", "DROP", "FLUSH"'
bug foreignfree INV-16 '"DEFAULT", "CLEAR"'
bug useafterfree INV-12 '"OPEN", "CLOSE", "HIT"'
bug underflow INV-3 '"OPEN", "LEFT", "PUT"'
for exec in replay fork; do
	bug uafreuse INV-12 '"OPEN", "CLOSE", "TOUCH"' --exec $exec
	bug uafreuse-op INV-12 '"OPEN", "RECYCLE"' --exec $exec
done
msg=$(first_violation uafreuse-op.json message)
case $msg in
*"handed out again"*) _report 0 "uafreuse-op: found as the slot was handed out again" ;;
*) _report 1 "uafreuse-op: found as the slot was handed out again"; echo "#   got: $msg" ;;
esac

# The invariants are checked whatever raw hashing covers: with the heap
# left out of raw (raw none), the double free is still caught.
sed 's/^property alloc/raw none\nproperty alloc/' "$SCN/doublefree.scn" >df-noraw.scn
"$CMC" check df-noraw.scn --no-store --json >df-noraw.json 2>df-noraw.err
is "raw none: the double free is still a violation" "$?" 1
is "raw none: the same shortest trace" "$(first_violation df-noraw.json trace)" '"ADD", "DROP", "FLUSH"'

# A healthy target under the same property: the list server, whose raw and
# canonical counts stay the seed's 16 and 8 with the pool (it never frees,
# so nodes still land in allocation order: sum over k of 3!/(3-k)! = 16
# ordered selections; 2^3 = 8 subsets).
sed 's/^property reply/property alloc\nproperty reply/' "$CMC_TOP/share/examples/list/list.scn" >list.scn
"$CMC" check list.scn --hash both --no-store --json >list.json 2>list.err
is "list + property alloc: no violation" "$?" 0
is "list: 16 raw states with the pool" "$(json_get list.json raw_distinct)" 16
is "list: 8 canonical states" "$(json_get list.json canonical_distinct)" 8
done_testing
