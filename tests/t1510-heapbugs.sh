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
# No shorter trace exists: with one command, or two in another order, no
# bug is triggered (each command alone is harmless).
# @inv INV-3 INV-12 INV-13 INV-15 INV-16
. "$CMC_TOP/tests/test-lib.sh"

SCN=$CMC_TOP/share/examples/heapbugs
export CMC_BIN="$CMC_TOP/$B"

bug() { # NAME INV TRACE
	"$CMC" check "$SCN/$1.scn" --no-store --json >"$1.json" 2>"$1.err"
	is "$1: a violation (exit 1)" "$?" 1
	is "$1: reported by the allocator property" "$(first_violation "$1.json" property)" alloc
	msg=$(first_violation "$1.json" message)
	case $msg in
	*"$2:"*) _report 0 "$1: the failing invariant is $2" ;;
	*) _report 1 "$1: the failing invariant is $2"; echo "#   got: $msg" ;;
	esac
	trace=$(first_violation "$1.json" trace)
	is "$1: shortest trace" "$trace" "$3"
}

bug overflow INV-13 '"NEW", "WIDE", "COPY"'
bug doublefree INV-15 '"ADD", "DROP", "FLUSH"'
bug foreignfree INV-16 '"DEFAULT", "CLEAR"'
bug useafterfree INV-12 '"OPEN", "CLOSE", "HIT"'
bug underflow INV-3 '"OPEN", "LEFT", "PUT"'

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
