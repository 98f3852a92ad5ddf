/*
 * alloc.h — the process executor's allocator check (alloc.c):
 * the pool allocator's validators (preload/layout/pool_check.c) run on the
 * target's heap region after every quiescent operation.  Private to
 * engine/proc/.
 */
#ifndef CMC_PROC_ALLOC_H
#define CMC_PROC_ALLOC_H

#include "layout/cmc_region.h"
#include "target.h"

/*
 * h is the validated copy of the region header just read from the target.
 * With raw_has_heap, obs->raw starts with the heap window (raw hashing
 * reads the heap first) and is used when it holds all of it; otherwise the
 * window is read here.  Sets
 * ENG_OBS_ALLOC, alloc_checked, alloc_failed and obs->alloc_msg (the first
 * failing invariant, "INV-N: what").  Does nothing for a non-pool region.
 */
void proc_alloc_check(struct proc_target *t, const struct cmc_region_hdr *h, bool raw_has_heap,
		      struct proc_obs *obs);

#endif
