/*
 * progress.c — one status line on stderr, rewritten a few times a second,
 * when stderr is a terminal (states, states/s, depth, frontier); silent
 * otherwise so pipes and logs stay clean.  It is cmc's only escape
 * sequence, so it goes to the unfiltered stderr (escape.c).
 */
#include <unistd.h>

#include "cmd.h"

static void prog_tick(void *ctx, const eng_stats *st)
{
	fprintf(tui_stderr_raw,
		"\r\033[K%llu distinct, %llu generated, %.0f states/s, depth %u, frontier %llu",
		(unsigned long long)st->distinct, (unsigned long long)st->generated,
		st->states_per_s, st->depth, (unsigned long long)st->frontier);
	fflush(tui_stderr_raw);
}

static void prog_done(void *ctx, const eng_stats *st)
{
	fputs("\r\033[K", tui_stderr_raw);
	fflush(tui_stderr_raw);
}

eng_listener tui_progress_listener(void)
{
	eng_listener l = {0};
	if (isatty(STDERR_FILENO)) {
		l.on_progress = prog_tick;
		l.on_done = prog_done;
	}
	return l;
}
