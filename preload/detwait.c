/*
 * detwait.c — waits that real time cannot end, in the deterministic
 * environment (CMC_DETERMINISTIC=1, detenv.c), and timeouts as operations.
 *
 * poll, ppoll, select, pselect, epoll_wait and epoll_pwait called with a
 * finite timeout on at least one descriptor first look without waiting;
 * when nothing is ready they wait with no timeout, so they return when a
 * descriptor is ready, or when cmc delivers the timeout (an `op LABEL
 * timeout`, CMC_TICK_SIG): then the call returns 0 (timed out, the sets of
 * select cleared) after the virtual clock moved on by the timeout.  While
 * such a wait is in progress the region header's wait_ms holds its
 * timeout; `timeouts` counts those delivered (cmc waits for it to move).
 *
 * An `op LABEL advance DURATION` (CMC_TICK_SIG sent with sigqueue and the
 * milliseconds as its value) moves the virtual clock on at once: a wait in
 * progress whose deadline (its start on the virtual clock plus its
 * timeout) the jump reaches returns timed out without moving the clock
 * further; one it does not reach goes on waiting, its header wait_ms now
 * the time left.  Programs that read the clock between inputs (a rate
 * limiter, an expiry checked on the next command) see the time passed.
 *
 * Why: an event loop such as lighttpd's wakes from epoll_wait every second
 * to read the clock and run its timers.  While cmc leaves it quiescent
 * (deciding, observing, forking) the number of such wake-ups depends on
 * real time, and each one changes the heap: the same trace reached
 * different states on every run, and `cmc replay` called the target
 * nondeterministic.  Time now passes only when the program reads the clock
 * (detenv.c: 1 ms per call) or a timeout operation says so, and a timer's
 * expiry is explored like an input: in every order with the others.
 * `env CMC_DETERMINISTIC=0` in the scenario restores real waits.
 *
 * A wait on no descriptor at all (poll(NULL, 0, t), select(0, ...) as a
 * sleep) keeps its real timeout.  A signal mask given to ppoll, pselect or
 * epoll_pwait never blocks CMC_TICK_SIG during the endless wait.  Calls the
 * program makes go through these; glibc's internal ones do not (they are
 * not interposable).  Raw system calls only.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pl.h"

#define KSIGSET 8 /* the kernel's sigset size on x86_64 (_NSIG / 8) */

/*
 * The wait in progress and what cmc delivered to it.  deadline_ns is the
 * virtual time a timed wait ends (0: none in progress); last_deadline_ns
 * the one the last wait had when it returned, so that a wait a signal
 * interrupted (a fork request, an advance short of the deadline) resumes
 * toward the same deadline (carry_ns) rather than a fresh timeout.
 */
static volatile sig_atomic_t tick;     /* a timeout was delivered, not yet taken */
static volatile sig_atomic_t due;      /* an advance reached the deadline, not yet taken */
static volatile sig_atomic_t advanced; /* advances delivered (RESUMED compares) */
static int64_t deadline_ns, last_deadline_ns, carry_ns;

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	/* only cmc (the parent of every target and snapshot) may */
	if (si->si_pid != (pid_t)syscall(SYS_getppid))
		return;
	if (si->si_code == SI_QUEUE && si->si_value.sival_int > 0) {
		pl_det_advance((uint32_t)si->si_value.sival_int);
		pl_det_timers();
		if (deadline_ns && pl_det_now_ns() >= deadline_ns)
			due = 1;
		advanced++;
		if (pl_region)
			pl_region->advances++;
	} else if (si->si_code == SI_USER) {
		tick = 1;
	}
}

__attribute__((constructor)) static void pl_detwait_init(void)
{
	if (!pl_det_on())
		return;
	pl_sig_handle(CMC_TICK_SIG, on_tick); /* sigstack.c says why its stack */
}

/* The endless wait begins (ms: the timeout it stands for, unless it
 * resumes one an interruption cut short) and ends. */
static void waiting(int ms)
{
	int64_t now = pl_det_now_ns();
	deadline_ns = carry_ns ? carry_ns : now + (int64_t)ms * 1000000LL;
	carry_ns = 0;
	int64_t left = (deadline_ns - now + 999999) / 1000000;
	if (pl_region)
		pl_region->wait_ms = (uint32_t)(left > 0 ? (left < 0x7fffffff ? left : 0x7fffffff) : 1);
}

/* Take a delivered timeout, if one is waiting (it may have come while
 * the target ran): the clock moves on to the wait's deadline (by ms when
 * none is known yet); or an advance that already passed the deadline. */
static int taken(int ms)
{
	if (due) {
		due = tick = 0;
	} else if (tick) {
		tick = 0;
		if (deadline_ns)
			pl_det_set_ns(deadline_ns);
		else
			pl_det_advance((uint32_t)ms);
		pl_det_timers();
	} else {
		return 0;
	}
	if (pl_region)
		pl_region->timeouts++;
	return 1;
}

/* After an endless wait returned r: a delivered timeout turns its EINTR
 * into 0, "timed out". */
static int ended(long r, int ms)
{
	int e = errno;
	if (pl_region)
		pl_region->wait_ms = 0;
	int timed = (r == 0 || (r < 0 && e == EINTR)) && taken(ms);
	last_deadline_ns = deadline_ns;
	deadline_ns = 0;
	if (timed)
		return 0;
	errno = e;
	return (int)r;
}

static int ms_of_ts(const struct timespec *ts)
{
	long long ms = (long long)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

static int ms_of_tv(const struct timeval *tv)
{
	long long ms = (long long)tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* mask without CMC_TICK_SIG, in *copy (NULL stays NULL) */
static const sigset_t *unblock_tick(const sigset_t *mask, sigset_t *copy)
{
	if (!mask)
		return NULL;
	*copy = *mask;
	sigdelset(copy, CMC_TICK_SIG);
	return copy;
}

/* ---- poll -------------------------------------------------------------- */

static int poll_fds(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (fds[i].fd >= 0)
			return 1;
	return 0;
}

static void no_events(struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		fds[i].revents = 0;
}

static int poll_once(struct pollfd *fds, nfds_t n, int ms)
{
	if (!pl_det_on() || ms <= 0 || !poll_fds(fds, n))
		return (int)syscall(SYS_poll, fds, n, ms);
	int r = (int)syscall(SYS_poll, fds, n, 0);
	if (r != 0)
		return r;
	if (taken(ms))
		return 0;
	waiting(ms);
	long w = syscall(SYS_poll, fds, n, -1);
	r = ended(w, ms);
	if (r == 0 && w != 0)
		no_events(fds, n);
	return r;
}

static int ppoll_once(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	if (!pl_det_on() || !ts || !(ts->tv_sec > 0 || ts->tv_nsec > 0) || !poll_fds(fds, n)) {
		/* (the kernel writes the time left back: a copy, as glibc does) */
		struct timespec left, *tp = NULL;
		if (ts) {
			left = *ts;
			tp = &left;
		}
		return (int)syscall(SYS_ppoll, fds, n, tp, mask, KSIGSET);
	}
	int ms = ms_of_ts(ts);
	struct timespec zero = {0, 0};
	int r = (int)syscall(SYS_ppoll, fds, n, &zero, mask, KSIGSET);
	if (r != 0)
		return r;
	if (taken(ms))
		return 0;
	sigset_t copy;
	waiting(ms);
	long w = syscall(SYS_ppoll, fds, n, NULL, unblock_tick(mask, &copy), KSIGSET);
	r = ended(w, ms);
	if (r == 0 && w != 0)
		no_events(fds, n);
	return r;
}

/* ---- select ------------------------------------------------------------ */

/* Sets copied before the look that clears them; only for nfds within a
 * plain fd_set (larger sets pass through untouched). */
struct sets {
	fd_set r, w, e;
};

static int save_sets(int nfds, const fd_set *r, const fd_set *w, const fd_set *e, struct sets *s)
{
	if (nfds <= 0 || nfds > FD_SETSIZE || (!r && !w && !e))
		return 0;
	if (r) s->r = *r;
	if (w) s->w = *w;
	if (e) s->e = *e;
	return 1;
}

static void restore_sets(fd_set *r, fd_set *w, fd_set *e, const struct sets *s)
{
	if (r) *r = s->r;
	if (w) *w = s->w;
	if (e) *e = s->e;
}

static void clear_sets(fd_set *r, fd_set *w, fd_set *e)
{
	if (r) FD_ZERO(r);
	if (w) FD_ZERO(w);
	if (e) FD_ZERO(e);
}

static int select_once(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	struct sets s;
	if (!pl_det_on() || !tv || !(tv->tv_sec > 0 || tv->tv_usec > 0) || !save_sets(nfds, r, w, e, &s))
		return (int)syscall(SYS_select, nfds, r, w, e, tv);
	int ms = ms_of_tv(tv);
	struct timeval zero = {0, 0};
	int n = (int)syscall(SYS_select, nfds, r, w, e, &zero);
	if (n != 0)
		return n;
	if (taken(ms)) {
		tv->tv_sec = tv->tv_usec = 0; /* Linux reports the time left */
		return 0;
	}
	restore_sets(r, w, e, &s);
	waiting(ms);
	long x = syscall(SYS_select, nfds, r, w, e, NULL);
	n = ended(x, ms);
	if (n == 0 && x != 0) {
		clear_sets(r, w, e);
		tv->tv_sec = tv->tv_usec = 0;
	}
	return n;
}

static int pselect_once(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
		      const sigset_t *mask)
{
	struct sets s;
	struct { const sigset_t *ss; size_t len; } sm = {mask, KSIGSET};
	if (!pl_det_on() || !ts || !(ts->tv_sec > 0 || ts->tv_nsec > 0) || !save_sets(nfds, r, w, e, &s)) {
		struct timespec left, *tp = NULL;
		if (ts) {
			left = *ts;
			tp = &left;
		}
		return (int)syscall(SYS_pselect6, nfds, r, w, e, tp, mask ? &sm : NULL);
	}
	int ms = ms_of_ts(ts);
	struct timespec zero = {0, 0};
	int n = (int)syscall(SYS_pselect6, nfds, r, w, e, &zero, mask ? &sm : NULL);
	if (n != 0)
		return n;
	if (taken(ms))
		return 0;
	restore_sets(r, w, e, &s);
	sigset_t copy;
	sm.ss = unblock_tick(mask, &copy);
	waiting(ms);
	long x = syscall(SYS_pselect6, nfds, r, w, e, NULL, mask ? &sm : NULL);
	n = ended(x, ms);
	if (n == 0 && x != 0)
		clear_sets(r, w, e);
	return n;
}

/* ---- epoll ------------------------------------------------------------- */

static int epoll_wait_once(int ep, struct epoll_event *ev, int max, int ms)
{
	if (!pl_det_on() || ms <= 0)
		return (int)syscall(SYS_epoll_wait, ep, ev, max, ms);
	int r = (int)syscall(SYS_epoll_wait, ep, ev, max, 0);
	if (r != 0)
		return r;
	if (taken(ms))
		return 0;
	waiting(ms);
	return ended(syscall(SYS_epoll_wait, ep, ev, max, -1), ms);
}

static int epoll_pwait_once(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *mask)
{
	if (!pl_det_on() || ms <= 0)
		return (int)syscall(SYS_epoll_pwait, ep, ev, max, ms, mask, KSIGSET);
	int r = (int)syscall(SYS_epoll_pwait, ep, ev, max, 0, mask, KSIGSET);
	if (r != 0)
		return r;
	if (taken(ms))
		return 0;
	sigset_t copy;
	waiting(ms);
	return ended(syscall(SYS_epoll_pwait, ep, ev, max, -1, unblock_tick(mask, &copy), KSIGSET), ms);
}

/* ---- resumed after a fork request -------------------------------------- */

/*
 * A fork request (snap.c) is a signal, and these calls are never restarted
 * by the kernel after a handler ran: they fail with EINTR, which a replayed
 * process never sees.  An event loop would then go round once more (and
 * read the clock once more) in a snapshot's child and not under replay;
 * one that does not retry would end.  So a call the request interrupted is
 * made again, as if it had never returned, toward the deadline it had.
 * So is one an advance interrupted short of its deadline.  (An EINTR that
 * another signal caused at the same moment is swallowed with it: its
 * handler has run.)
 */
#define RESUMED(call)                                                                \
	do {                                                                         \
		for (;;) {                                                           \
			unsigned before_ = pl_snap_requests();                       \
			sig_atomic_t adv_ = advanced;                                \
			last_deadline_ns = 0;                                        \
			int r_ = (call);                                             \
			carry_ns = 0; /* a carried deadline not waited on is void */ \
			if (!(r_ < 0 && errno == EINTR &&                            \
			      (pl_snap_requests() != before_ || advanced != adv_)))  \
				return r_;                                           \
			carry_ns = last_deadline_ns;                                 \
		}                                                                    \
	} while (0)

PL_EXPORT int poll(struct pollfd *fds, nfds_t n, int ms)
{
	RESUMED(poll_once(fds, n, ms));
}

PL_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	RESUMED(ppoll_once(fds, n, ts, mask));
}

PL_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	RESUMED(select_once(nfds, r, w, e, tv));
}

PL_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
		      const sigset_t *mask)
{
	RESUMED(pselect_once(nfds, r, w, e, ts, mask));
}

PL_EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	RESUMED(epoll_wait_once(ep, ev, max, ms));
}

PL_EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *mask)
{
	RESUMED(epoll_pwait_once(ep, ev, max, ms, mask));
}
