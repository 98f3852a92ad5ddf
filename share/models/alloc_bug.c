/*
 * alloc_bug.c — the self-check model (alloc.c) over a planted bug in the
 * allocator's own code: pool.c built with POOL_PLANT_KEEP_BIT, whose free
 * forgets to clear the slot's bitmap bit.  A single block's free releases
 * its chunk and hides the bug, so the shortest sequence that shows it is
 * three steps: two blocks in one chunk, then free one (INV-6, INV-8 fail).
 */
#define POOL_PLANT_KEEP_BIT 1
#include "alloc.c"
