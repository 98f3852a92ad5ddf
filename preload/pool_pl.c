/*
 * pool_pl.c — the pool allocator (pool.c) behind the preload's allocator
 * seam (pl_alloc.h): the region is the one region.c mapped, and a request
 * the pool cannot meet becomes a preload fault (pl_fault: header field,
 * control record, exit 112 + code), reported to cmc with its trace.
 */
#include <stdint.h>

#include "pl.h"
#include "pl_alloc.h"
#include "layout/pool.h"

_Noreturn void pool_fail(struct cmc_region_hdr *h, uint32_t code, const char *what, uint64_t size,
			 uint64_t align)
{
	struct pl_msg m = {.len = 0};
	pl_msg_str(&m, what);
	if (code == CMC_FAULT_FOREIGN_PTR) {
		pl_msg_str(&m, ": ");
		pl_msg_hex(&m, size);
		pl_fault(code, &m);
	}
	pl_msg_str(&m, ": request ");
	pl_msg_u64(&m, size);
	pl_msg_str(&m, " bytes aligned ");
	pl_msg_u64(&m, align);
	pl_msg_str(&m, ", region ");
	pl_msg_u64(&m, h->size);
	pl_msg_str(&m, " bytes, ");
	pl_msg_u64(&m, h->size - h->used);
	pl_msg_str(&m, " never used (raise " CMC_ENV_HEAP_SIZE ")");
	pl_fault(code, &m);
}

void pl_alloc_init(struct cmc_region_hdr *h)
{
	pool_init(h, POOL_UNIT_SHIFT_DEFAULT, POOL_QUARANTINE);
}

void *pl_alloc(struct cmc_region_hdr *h, size_t size, size_t align, int zero)
{
	/* Free and never-used bytes are POOL_POISON == 0, so blocks come back
	 * zeroed unless the target wrote into freed memory; calloc's memset in
	 * malloc.c covers that case. */
	(void)zero;
	return pool_alloc(h, size, align);
}

void pl_free(struct cmc_region_hdr *h, void *p)
{
	pool_free(h, p);
}

size_t pl_usable(const struct cmc_region_hdr *h, const void *p)
{
	return pool_usable(h, p);
}

void *pl_realloc(struct cmc_region_hdr *h, void *p, size_t size)
{
	return pool_realloc(h, p, size);
}

int pl_owns(const struct cmc_region_hdr *h, const void *p)
{
	return pool_owns(h, p);
}
