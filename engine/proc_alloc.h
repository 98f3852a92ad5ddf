/*
 * proc_alloc.h — the process executor's allocator check (proc_alloc.c):
 * the pool allocator's validators (preload/pool_check.c) run on the
 * target's heap region after every quiescent operation.  Private to
 * engine/proc*.
 */
#ifndef CMC_PROC_ALLOC_H
#define CMC_PROC_ALLOC_H

#include "cmc_region.h"
#include "proc_target.h"

/*
 * h is the validated copy of the region header just read from the target.
 * Uses obs->raw when it already holds the whole heap window (the heap is
 * the first range raw hashing reads), else reads the window itself.  Sets
 * ENG_OBS_ALLOC, alloc_checked, alloc_failed and obs->alloc_msg (the first
 * failing invariant, "INV-N: what").  Does nothing for a non-pool region.
 */
void proc_alloc_check(struct proc_target *t, const struct cmc_region_hdr *h, struct proc_obs *obs);

#endif
