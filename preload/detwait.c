/*
 * detwait.c — waits that real time cannot end, in the deterministic
 * environment (CMC_DETERMINISTIC=1, detenv.c): poll, ppoll, select,
 * pselect, epoll_wait and epoll_pwait called with a finite timeout on at
 * least one descriptor first look without waiting; when nothing is ready
 * they wait with no timeout, so they return only when a descriptor is.
 *
 * Why: an event loop such as lighttpd's wakes from epoll_wait every second
 * to read the clock and run its timers.  While cmc leaves it quiescent
 * (deciding, observing, forking) the number of such wake-ups depends on
 * real time, and each one changes the heap (the clock it stored, timer
 * bookkeeping): the same trace reached different states on every run, and
 * `cmc replay` called the target nondeterministic.  In the deterministic
 * environment time passes only when the program reads the clock (detenv.c:
 * 1 ms per call), so a timeout on input never expires while the program
 * waits for input: operations, not the wall clock, drive the state.  What
 * a program would do on a timeout alone (close an idle connection) is then
 * not explored; `env CMC_DETERMINISTIC=0` in the scenario restores real
 * waits, and real time, whole.
 *
 * A wait on no descriptor at all (poll(NULL, 0, t), select(0, ...) as a
 * sleep) keeps its timeout: it waits for nothing else and would never end.
 * Calls the program makes go through these; glibc's internal ones do not
 * (they are not interposable, and need not be).  Raw system calls only.
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

/* A finite, non-zero timeout in ms (negative: none). */
static int finite_ms(int ms)
{
	return ms > 0;
}

static int finite_ts(const struct timespec *ts)
{
	return ts && (ts->tv_sec > 0 || ts->tv_nsec > 0);
}

static int finite_tv(const struct timeval *tv)
{
	return tv && (tv->tv_sec > 0 || tv->tv_usec > 0);
}

/* ---- poll -------------------------------------------------------------- */

static int poll_fds(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (fds[i].fd >= 0)
			return 1;
	return 0;
}

PL_EXPORT int poll(struct pollfd *fds, nfds_t n, int ms)
{
	if (pl_det_on() && finite_ms(ms) && poll_fds(fds, n)) {
		int r = (int)syscall(SYS_poll, fds, n, 0);
		if (r != 0)
			return r;
		ms = -1;
	}
	return (int)syscall(SYS_poll, fds, n, ms);
}

PL_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	if (pl_det_on() && finite_ts(ts) && poll_fds(fds, n)) {
		struct timespec zero = {0, 0};
		int r = (int)syscall(SYS_ppoll, fds, n, &zero, mask, KSIGSET);
		if (r != 0)
			return r;
		ts = NULL;
	}
	/* (the kernel writes the time left back: a copy, as glibc does) */
	struct timespec left, *tp = NULL;
	if (ts) {
		left = *ts;
		tp = &left;
	}
	return (int)syscall(SYS_ppoll, fds, n, tp, mask, KSIGSET);
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

PL_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	struct sets s;
	if (pl_det_on() && finite_tv(tv) && save_sets(nfds, r, w, e, &s)) {
		struct timeval zero = {0, 0};
		int n = (int)syscall(SYS_select, nfds, r, w, e, &zero);
		if (n != 0)
			return n;
		restore_sets(r, w, e, &s);
		tv = NULL;
	}
	return (int)syscall(SYS_select, nfds, r, w, e, tv);
}

PL_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
		      const sigset_t *mask)
{
	struct sets s;
	struct { const sigset_t *ss; size_t len; } sm = {mask, KSIGSET};
	if (pl_det_on() && finite_ts(ts) && save_sets(nfds, r, w, e, &s)) {
		struct timespec zero = {0, 0};
		int n = (int)syscall(SYS_pselect6, nfds, r, w, e, &zero, mask ? &sm : NULL);
		if (n != 0)
			return n;
		restore_sets(r, w, e, &s);
		ts = NULL;
	}
	struct timespec left, *tp = NULL;
	if (ts) {
		left = *ts;
		tp = &left;
	}
	return (int)syscall(SYS_pselect6, nfds, r, w, e, tp, mask ? &sm : NULL);
}

/* ---- epoll ------------------------------------------------------------- */

PL_EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	if (pl_det_on() && finite_ms(ms)) {
		int r = (int)syscall(SYS_epoll_wait, ep, ev, max, 0);
		if (r != 0)
			return r;
		ms = -1;
	}
	return (int)syscall(SYS_epoll_wait, ep, ev, max, ms);
}

PL_EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *mask)
{
	if (pl_det_on() && finite_ms(ms)) {
		int r = (int)syscall(SYS_epoll_pwait, ep, ev, max, 0, mask, KSIGSET);
		if (r != 0)
			return r;
		ms = -1;
	}
	return (int)syscall(SYS_epoll_pwait, ep, ev, max, ms, mask, KSIGSET);
}
