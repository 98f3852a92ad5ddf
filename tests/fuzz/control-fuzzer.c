/*
 * control-fuzzer.c — libFuzzer target for the preload's control messages as
 * cmc reads them: the CMCC record framing (proc_chan_feed with the control
 * magic and bound) and the fault convention proc_observe() decodes when a
 * target has ended (CMC_CTL_FAULT code + message, or exit status 112+code).
 * Input: byte 0 the exit status, byte 1 bit 0 "died on a signal" (the
 * signal is byte 2) and bit 1 "a leak property asked for the exit report"
 * (CMC_CTL_EXIT_LIVE, decoded only then), then the control stream (a
 * CMC_CTL_LIMIT or CMC_CTL_SIGNAL record anywhere in it is kept and decoded
 * too).  The fault text that results
 * is bounded and NUL-terminated; its message part came from the target and
 * is checked to be no longer than the preload may send.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmc_region.h"
#include "proc/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	int status = data[0], sig = data[2] % 64 + 1;
	bool signaled = data[1] & 1, report = data[1] & 2;
	data += 3, size -= 3;
	struct proc_scenario sc = {.path = "fuzz", .timeout_ms = 1, .raw_cap = 1,
				   .exit_live = report};
	struct proc_target t = {.pid = 0, .in_fd = -1, .out_fd = -1, .mem_fd = -1, .sys_fd = -1,
				.stat_fd = -1, .sc = &sc};
	t.canon = (struct proc_chan){.fd = -1, .magic = CMC_CANON_MAGIC, .max = CMC_CANON_MAX};
	t.ctl = (struct proc_chan){.fd = -1, .magic = CMC_CTL_MAGIC, .max = CMC_CTL_MAX,
				   .sticky_kind = {CMC_CTL_LIMIT, CMC_CTL_SIGNAL}};
	/* two halves, so a record split across reads is exercised too */
	proc_chan_feed(&t.ctl, data, size / 2);
	proc_chan_feed(&t.ctl, data + size / 2, size - size / 2);
	if (!t.ctl.bad)
		assert(t.ctl.last.len <= CMC_CTL_MAX);
	t.exited = !signaled;
	t.signaled = signaled;
	t.status = signaled ? sig : (status & 0xff) << 8;
	struct proc_image img = {0};
	struct proc_obs obs = {0};
	proc_observe(&t, &img, t.ctl.bad ? PROC_BADCHAN : PROC_GONE, &obs);
	assert(memchr(obs.fault_msg, 0, sizeof obs.fault_msg));
	if (obs.exit_live.seen) {
		/* (a limit report earlier in the stream may have set a fault:
		 * property leak then does not judge the exit) */
		assert(sc.exit_live && !signaled);
		assert(obs.exit_live.n_listed <= PROC_EXIT_LIVE_LIST);
		assert(obs.exit_live.n_lost <= obs.exit_live.n_blocks);
	}
	if (obs.fault == PROC_FAULT_HEAP)
		assert(strlen(obs.fault_msg) <= 40 + 300);
	if (signaled && !t.ctl.bad)
		assert((obs.e.flags & ENG_OBS_SIGNALED) && obs.e.term_signal == sig);
	else if (!t.ctl.bad)
		assert((obs.e.flags & ENG_OBS_EXITED) && obs.e.exit_status == status);
	proc_obs_free(&obs);
	proc_buf_free(&t.ctl.cur);
	proc_buf_free(&t.ctl.last);
	for (int i = 0; i < PROC_STICKY; i++)
		proc_buf_free(&t.ctl.sticky[i]);
	return 0;
}
