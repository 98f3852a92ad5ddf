/*
 * signals.c — Ctrl-C and SIGTERM stop a running search cleanly: the handler
 * only raises the engine's stop flag; the command then finishes its report,
 * closes its store and destroys the frontend (which kills its targets).
 * A second signal exits at once.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "proc.h"

static eng_search *volatile sig_search;
static volatile sig_atomic_t sig_count;

static void on_signal(int sig)
{
	if (++sig_count > 1) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (sig_search)
		eng_search_stop(sig_search);
	proc_interrupt(); /* a hanging target must not hold the stop up (h3) */
}

void tui_signals_stop(eng_search *s)
{
	sig_search = s;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool tui_signals_caught(void) { return sig_count > 0; }
