/*
 * alloc.c — the allocator's invariants on an explored state: hands
 * the target's heap window (read-only bytes cmc copied out of the target)
 * to the pool validators of preload/layout/pool_check.c, compiled into
 * libcmc, and records per-invariant status in the observation.  Run when
 * `property alloc` asks, and otherwise only when the bytes are in hand
 * anyway (the window within the kept raw copy): a large heap is not read
 * whole on every state for a check nobody asked for.
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

/* Into obs->win, reused between observations (no fresh mapping a state). */
static const uint8_t *read_window(struct proc_target *t, struct proc_obs *obs, uint64_t addr,
				  uint64_t len)
{
	uint8_t *buf = proc_buf_room(&obs->win, (size_t)len + 1) - obs->win.len;
	uint64_t got = 0;
	while (got < len) {
		ssize_t r = pread(t->mem_fd, buf + got, (size_t)(len - got), (off_t)(addr + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		got += (uint64_t)r;
	}
	return buf;
}

void proc_alloc_check(struct proc_target *t, const struct cmc_region_hdr *h, const uint8_t *win,
		      bool wanted, struct proc_obs *obs)
{
	obs->alloc_msg[0] = 0;
	if (h->alloc_kind != CMC_ALLOC_POOL)
		return;
	uint64_t len = h->used - h->data_off;
	if (!win && !wanted) {
		snprintf(obs->alloc_msg, sizeof obs->alloc_msg,
			 "heap window of %llu bytes not checked (past raw-cap, and no property alloc)",
			 (unsigned long long)len);
		return;
	}
	if (!win) {
		if (len > PROC_ALLOC_MAX) {
			snprintf(obs->alloc_msg, sizeof obs->alloc_msg,
				 "heap window of %llu bytes not checked (over %llu)",
				 (unsigned long long)len, (unsigned long long)PROC_ALLOC_MAX);
			return;
		}
		obs->win.len = 0;
		win = read_window(t, obs, h->base + h->data_off, len);
		if (!win) {
			snprintf(obs->alloc_msg, sizeof obs->alloc_msg, "heap window unreadable");
			return;
		}
	}
	struct pool_view v = {.hdr = *h, .win = win, .len = len};
	struct pool_msg first;
	obs->e.alloc_failed = pool_check_all(&v, &obs->e.alloc_checked, &first);
	obs->e.flags |= ENG_OBS_ALLOC;
	if (obs->e.alloc_failed)
		snprintf(obs->alloc_msg, sizeof obs->alloc_msg, "%s", first.text);
}
