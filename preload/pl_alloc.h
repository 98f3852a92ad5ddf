/*
 * pl_alloc.h — the allocator behind the interposed entry points.
 *
 * Exactly one file implements it: pool_pl.c, the pool allocator of
 * preload/layout/pool.c (CMC_ALLOC_POOL); another allocator would replace
 * that one file.  malloc.c owns
 * the C-level semantics (argument checks, overflow, errno, NULL, foreign
 * pointers, locking) and calls these with clean arguments only, one call at
 * a time (it holds the lock).
 *
 * Contract for an implementation:
 *  - All state lives inside the region (the header and [data_off, used)),
 *    so a fork child carries the allocator with it and cmc can read it.
 *  - Deterministic: the same sequence of calls gives the same addresses and
 *    the same region bytes, in every run.
 *  - Never returns NULL: when it cannot satisfy a request it calls
 *    pl_fault(CMC_FAULT_HEAP_EXHAUSTED or CMC_FAULT_TOO_LARGE, ...).
 *  - Keeps hdr->used, n_malloc, n_free and live_bytes as cmc_region.h says.
 */
#ifndef PL_ALLOC_H
#define PL_ALLOC_H

#include <stddef.h>

#include "layout/cmc_region.h"

/* Called once, right after the region is mapped and magic, version,
 * hdr_size, base, size and pid are written: sets data_off, used, alloc_kind
 * and any allocator metadata. */
void pl_alloc_init(struct cmc_region_hdr *h);

/* `size` bytes (0 allowed: a unique, minimal block) aligned to `align`, a
 * power of two >= 16.  With `zero`, the bytes read as 0. */
void *pl_alloc(struct cmc_region_hdr *h, size_t size, size_t align, int zero);

/* p is non-NULL and was returned by pl_alloc/pl_realloc (pl_owns is true). */
void pl_free(struct cmc_region_hdr *h, void *p);
size_t pl_usable(const struct cmc_region_hdr *h, const void *p);
/* Resize p (owned, size > 0) keeping min(old, size) bytes; may move it. */
void *pl_realloc(struct cmc_region_hdr *h, void *p, size_t size);

/* Whether p lies in the allocator's data window (a cheap range test; the
 * pool allocator's invariant checks go further). */
int pl_owns(const struct cmc_region_hdr *h, const void *p);

#endif
