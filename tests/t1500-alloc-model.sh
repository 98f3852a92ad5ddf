#!/bin/sh
# t1500-alloc-model.sh — the pool allocator checked by cmc itself
# (share/models/alloc.c): the allocator's own code driven through every
# sequence of calls, every validator checked in every state.
#
# alloc-small: 3 handles, malloc of 8 or 12 bytes (both class 16, 10 slots
# in a 256-byte unit) and free, with no quarantine (a freed slot is reusable
# at once; the preload's quarantine of 8 would make the order of the last
# frees part of every state).  Placement is lowest free slot first, so the
# heap is determined by which handle holds which slot and its size; and
# every injective map of live handles to slots 0..2 is reachable (fill
# lower slots with the other handles, then free them).  So
#   distinct = sum_{j=0..3} C(3,j) * 3!/(3-j)! * 2^j = 1 + 18 + 72 + 48 = 139
# and each state with j live handles has (3-j)*2 mallocs + j frees:
#   generated = 1 + 1*6 + 18*5 + 72*4 + 48*3 = 529.
# alloc-bug: free keeps the bitmap bit.  Freeing a chunk's only block
# releases the chunk and hides the bug, so it takes two blocks in one chunk
# and a free: 3 steps, the first in BFS order being malloc h0 8, malloc h1 8,
# free h0; popcount(bitmap) = 2 but live = 1 (INV-6).
# alloc runs with a quarantine of 1 (INV-24): 109249 states where it had
# 16564 without one; not asserted, the count is the engine's to report.
# @inv INV-6 INV-8 INV-24
. "$CMC_TOP/tests/test-lib.sh"

"$CMC" check alloc-small --no-store --json >small.json 2>small.err
is "alloc-small: no violation (exit 0)" "$?" 0
is "alloc-small: 139 distinct states (derived above)" "$(json_get small.json distinct)" 139
is "alloc-small: 529 generated (derived above)" "$(json_get small.json generated)" 529
is "alloc-small: explored completely" "$(json_get small.json complete)" true

"$CMC" check alloc --no-store --json >full.json 2>full.err
is "alloc (malloc/free/realloc, 3 sizes): every invariant holds everywhere" "$?" 0
is "alloc: explored completely" "$(json_get full.json complete)" true

"$CMC" check alloc-bug --no-store --json >bug.json 2>bug.err
is "alloc-bug: the planted bug is a violation (exit 1)" "$?" 1
is "alloc-bug: caught by INV-6 (bitmap vs live count)" "$(first_violation bug.json property)" "invariant:INV-6"
trace=$(first_violation bug.json trace)
is "alloc-bug: shortest sequence malloc, malloc, free" "$trace" '"malloc h0 8", "malloc h1 8", "free h0"'
done_testing
