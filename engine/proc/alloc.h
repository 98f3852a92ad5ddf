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

/* Past this many bytes the window is never read for the check. */
#define PROC_ALLOC_MAX (256ULL << 20)

/*
 * h is the validated copy of the region header just read from the target;
 * win the heap window's bytes when the caller has them all (NULL: none).
 * Without them the window is read here (into obs->win) when `wanted`
 * (property alloc), else not checked (obs->alloc_msg says so, and
 * ENG_OBS_ALLOC stays clear: the stored status is "not checked").  Sets
 * ENG_OBS_ALLOC, alloc_checked, alloc_failed and obs->alloc_msg (the first
 * failing invariant, "INV-N: what").  Does nothing for a non-pool region.
 */
void proc_alloc_check(struct proc_target *t, const struct cmc_region_hdr *h, const uint8_t *win,
		      bool wanted, struct proc_obs *obs);

#endif
