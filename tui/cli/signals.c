/*
 * signals.c — SIGINT, SIGTERM and SIGHUP from the user stop a running
 * search cleanly: they only raise the engine's stop flag (for
 * `simulate`, eng_sim_opts.stop = tui_signals_flag(); for `replay`, none:
 * its wait for the target returns, proc_interrupt()); the command then
 * finishes its report, marks its stored run interrupted,
 * closes its store, destroys the frontend (which kills its targets) and
 * exits 128 + the signal.  A second such signal kills cmc at once, as does
 * the first in a command that has not called tui_signals_stop() (one that
 * starts no search: the signal's default action, unless it was ignored
 * when cmc started).
 *
 * No handler runs: main() blocks the three signals before any thread
 * exists and engine/proc/sigsrc.c reads them from a signalfd (a thread of
 * its own, and every observation of an operation), calling on_user() with
 * each that is the user's.  The same signal sent by one of cmc's targets
 * (a program that kills its parent, or every process it can find) is not
 * the user's: it becomes a `signal` fault of the operation that sent it
 * and the search goes on.  Only a sender still there to be looked at can
 * be recognised (the signal's sender pid); any other is taken for the
 * user.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "proc/proc.h"

static eng_search *_Atomic sig_search;
static atomic_bool installed;
static volatile sig_atomic_t sig_count, sig_first;

/* The signal's own default action: cmc dies of it now. */
static _Noreturn void die_of(int sig)
{
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig); /* pending for this thread until it is unblocked */
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig);
}

/* One of the user's signals (sigsrc.c calls it, one at a time). */
static void on_user(int sig)
{
	if (!atomic_load(&installed)) {
		struct sigaction old;
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			return;
		die_of(sig);
	}
	if (++sig_count > 1)
		die_of(sig);
	sig_first = sig;
	eng_search *s = atomic_load(&sig_search);
	if (s)
		eng_search_stop(s);
	proc_interrupt(); /* a hanging target must not hold the stop up */
}

void tui_signals_init(void) { proc_signals_open(on_user); }

void tui_signals_stop(eng_search *s)
{
	atomic_store(&sig_search, s);
	/* Ignored (a background job of a shell without job control starts
	 * with SIGINT ignored): a search still stops on it. */
	int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			signal(sigs[i], SIG_DFL);
	}
	atomic_store(&installed, true);
}

bool tui_signals_caught(void) { return sig_count > 0; }

const volatile sig_atomic_t *tui_signals_flag(void) { return &sig_count; }

int tui_signals_which(void) { return sig_count > 0 ? (int)sig_first : 0; }

const char *tui_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal";
}
