/*
 * signals.c — SIGINT, SIGTERM and SIGHUP from the user stop a running
 * search cleanly: the handler only raises the engine's stop flag (for
 * `simulate`, eng_sim_opts.stop = tui_signals_flag(); for `replay`, none:
 * its wait for the target returns, proc_interrupt()); the command then
 * finishes its report, marks its stored run interrupted,
 * closes its store, destroys the frontend (which kills its targets) and
 * exits 128 + the signal.  A second such signal exits at once.
 *
 * The same signal sent by one of cmc's targets (a program that kills its
 * parent, or every process it can find) is not the user's: it becomes a
 * `signal` fault of the operation that sent it (engine/proc/sigsrc.c) and
 * the search goes on.  Only a sender still there to be looked at can be
 * recognised (SA_SIGINFO's si_pid); any other is taken for the user.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "proc/proc.h"

static eng_search *volatile sig_search;
static volatile sig_atomic_t sig_count, sig_first;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE) &&
	    proc_signal_from_target(sig, si->si_pid))
		return;
	if (++sig_count > 1) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	sig_first = sig;
	if (sig_search)
		eng_search_stop(sig_search);
	proc_interrupt(); /* a hanging target must not hold the stop up */
}

void tui_signals_stop(eng_search *s)
{
	sig_search = s;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool tui_signals_caught(void) { return sig_count > 0; }

const volatile sig_atomic_t *tui_signals_flag(void) { return &sig_count; }

int tui_signals_which(void) { return sig_count > 0 ? (int)sig_first : 0; }

const char *tui_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal";
}
