/*
 * record-fuzzer.c — libFuzzer target for the canonical-record decoder
 * (proc_chan_feed in engine/proc/quiesce.c) and what proc_observe() makes
 * of the decoded record.  Input: one byte choosing how the stream is cut
 * into reads (the decoder must not care), then the bytes the target wrote
 * on its canonical fd.  After every read the decoder's invariants hold:
 * a record in progress never exceeds its announced length, no record ever
 * exceeds CMC_CANON_MAX, a malformed stream stays malformed.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmc_region.h"
#include "proc/target.h"

static void chan_check(const struct proc_chan *c)
{
	assert(c->hdr_got <= 8);
	if (c->bad)
		return;
	assert(c->last.len <= c->max);
	assert(c->last.len <= c->last.size);
	/* a record whose bytes all arrived is complete, never pending (an
	 * empty record too: a pending one is reported as truncated) */
	if (c->hdr_got == 8)
		assert(c->cur.len < c->want && c->want <= c->max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned cut = data[0];
	data++, size--;
	struct proc_scenario sc = {.path = "fuzz", .timeout_ms = 1, .raw_cap = 1};
	struct proc_target t = {.pid = 0, .in_fd = -1, .out_fd = -1, .mem_fd = -1, .sys_fd = -1,
				.stat_fd = -1, .sc = &sc};
	t.canon = (struct proc_chan){.fd = -1, .magic = CMC_CANON_MAGIC, .max = CMC_CANON_MAX};
	t.ctl = (struct proc_chan){.fd = -1, .magic = CMC_CTL_MAGIC, .max = CMC_CTL_MAX};
	bool was_bad = false;
	uint64_t complete = 0;
	uint32_t x = cut * 2654435761u + 1;
	for (size_t off = 0; off < size;) {
		x = x * 1103515245u + 12345u;
		size_t n = cut == 0 ? size : 1 + (x >> 16) % (cut % 64 + 1);
		if (n > size - off)
			n = size - off;
		proc_chan_feed(&t.canon, data + off, n);
		off += n;
		chan_check(&t.canon);
		assert(!was_bad || t.canon.bad);
		assert(t.canon.complete >= complete);
		was_bad = t.canon.bad;
		complete = t.canon.complete;
	}
	struct proc_image img = {0};
	struct proc_obs obs = {0};
	proc_observe(&t, &img, t.canon.bad ? PROC_BADCHAN : PROC_QUIESCENT, &obs);
	if (t.canon.complete) {
		assert(obs.e.flags & ENG_OBS_CANON);
		assert(obs.e.canon_len == t.canon.last.len);
		assert(obs.e.canon_len == 0 || memcmp(obs.e.canon_rec, t.canon.last.p, obs.e.canon_len) == 0);
		assert(!eng_fp_zero(obs.e.canon) || obs.e.canon_len == 0);
	}
	if (t.canon.bad)
		assert(obs.fault == PROC_FAULT_PROTOCOL && strlen(obs.fault_msg) < sizeof obs.fault_msg);
	proc_obs_free(&obs);
	proc_buf_free(&t.canon.cur);
	proc_buf_free(&t.canon.last);
	return 0;
}
