/*
 * alloc.c — the allocator's invariants on every explored state: hands
 * the target's heap window (read-only bytes cmc already copied out of the
 * target) to the pool validators of preload/layout/pool_check.c, compiled into
 * libcmc, and records per-invariant status in the observation.
 *
 * The window is untrusted target memory; the validators bound every read.
 * A window larger than PROC_ALLOC_MAX is not checked (alloc_checked stays 0
 * and the message says why) rather than read unboundedly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/pool.h"
#include "alloc.h"
#include "util.h"

#define PROC_ALLOC_MAX (256ULL << 20)

static uint8_t *read_window(struct proc_target *t, uint64_t addr, uint64_t len)
{
	uint8_t *buf = eng_xmalloc(len ? (size_t)len : 1);
	uint64_t got = 0;
	while (got < len) {
		ssize_t r = pread(t->mem_fd, buf + got, (size_t)(len - got), (off_t)(addr + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return NULL;
		}
		got += (uint64_t)r;
	}
	return buf;
}

void proc_alloc_check(struct proc_target *t, const struct cmc_region_hdr *h, bool raw_has_heap,
		      struct proc_obs *obs)
{
	obs->alloc_msg[0] = 0;
	if (h->alloc_kind != CMC_ALLOC_POOL)
		return;
	uint64_t len = h->used - h->data_off;
	uint8_t *own = NULL;
	const uint8_t *win = obs->raw.p;
	if (!raw_has_heap || obs->raw.len < len) {
		if (len > PROC_ALLOC_MAX) {
			snprintf(obs->alloc_msg, sizeof obs->alloc_msg,
				 "heap window of %llu bytes not checked (over %llu)",
				 (unsigned long long)len, (unsigned long long)PROC_ALLOC_MAX);
			return;
		}
		own = read_window(t, h->base + h->data_off, len);
		if (!own) {
			snprintf(obs->alloc_msg, sizeof obs->alloc_msg, "heap window unreadable");
			return;
		}
		win = own;
	}
	struct pool_view v = {.hdr = *h, .win = win, .len = len};
	struct pool_msg first;
	obs->e.alloc_failed = pool_check_all(&v, &obs->e.alloc_checked, &first);
	obs->e.flags |= ENG_OBS_ALLOC;
	if (obs->e.alloc_failed)
		snprintf(obs->alloc_msg, sizeof obs->alloc_msg, "%s", first.text);
	free(own);
}
