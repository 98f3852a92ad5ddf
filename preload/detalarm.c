/*
 * detalarm.c — the real-time interval timer on the virtual clock, in the
 * deterministic environment (CMC_DETERMINISTIC=1, detenv.c).
 *
 * alarm, ualarm, setitimer and getitimer on ITIMER_REAL arm a timer the
 * preload keeps instead of the kernel's: its SIGALRM comes when the
 * virtual clock reaches the deadline through an `advance` or `timeout`
 * operation (detwait.c calls pl_det_timers() after the clock moved), never
 * by real time.  Before, a program that armed alarm(1) (a watchdog, a
 * protocol timeout) got its SIGALRM one real second later, wherever cmc
 * happened to be — between two operations, or while a fork snapshot was
 * parked — so the same trace ended in other states on other runs, and a
 * program without a handler died at a random point.  The clock's 1 ms
 * steps per read (detenv.c) fire nothing: they keep time moving forward,
 * they are not time passing; a deadline they pass fires at the next
 * advance or timeout.  An advance past several periods of an interval
 * timer delivers one SIGALRM, as a standard signal still pending would
 * coalesce; the next deadline is the first one after the clock.
 *
 * The timer lives in the process's memory, so a fork snapshot's child
 * keeps its parent's (the kernel's is not inherited by fork at all), and a
 * replay re-arms it by replaying the same calls.  Not modelled: timers the
 * program arms by raw system calls or keeps across an exec (the kernel's
 * survive exec, this one does not), POSIX timers (timer_create), timerfd,
 * ITIMER_VIRTUAL and ITIMER_PROF (CPU time: left to the kernel).
 * Without the deterministic environment every call goes to the kernel.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "pl.h"

#define NS 1000000000LL

/* Invariant: armed == (due_ns != 0); every_ns >= 0 (0: one shot). */
static int64_t due_ns, every_ns;

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NS + (int64_t)tv->tv_usec * 1000;
}

static struct timeval ns_tv(int64_t ns)
{
	struct timeval tv = {(time_t)(ns / NS), (suseconds_t)(ns % NS / 1000)};
	return tv;
}

/* The timer as getitimer() shows it: an armed one never shows 0 left. */
static void current(struct itimerval *cur)
{
	int64_t left = 0;
	if (due_ns) {
		left = due_ns - pl_det_now_ns();
		if (left < 1000)
			left = 1000;
	}
	cur->it_value = ns_tv(left);
	cur->it_interval = ns_tv(every_ns);
}

static uint32_t ms_up(int64_t ns)
{
	int64_t ms = (ns + 999999) / 1000000;
	return ms <= 0 ? 0 : ms > 0xffffffffLL ? 0xffffffffu : (uint32_t)ms;
}

/* What cmc sees of the timer (part of a state with advance or timeout
 * operations): its time left as of now, which only arming and the
 * clock's advances change (reads of the clock do not call this). */
static void publish(void)
{
	if (!pl_region)
		return;
	int64_t left = due_ns ? due_ns - pl_det_now_ns() : 0;
	pl_region->alarm_ms = due_ns ? (left > 0 ? ms_up(left) : 1) : 0;
	pl_region->alarm_every_ms = due_ns ? ms_up(every_ns) : 0;
}

static void arm(int64_t value_ns, int64_t interval_ns)
{
	due_ns = value_ns > 0 ? pl_det_now_ns() + value_ns : 0;
	every_ns = due_ns ? interval_ns : 0;
	publish();
}

void pl_det_timers(void)
{
	int64_t now = pl_det_now_ns();
	if (!due_ns || now < due_ns) {
		publish();
		return;
	}
	if (every_ns > 0)
		due_ns += ((now - due_ns) / every_ns + 1) * every_ns;
	else
		due_ns = 0;
	publish();
	/* process-directed, as the kernel's ITIMER_REAL sends it */
	syscall(SYS_kill, syscall(SYS_getpid), SIGALRM);
}

PL_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv, struct itimerval *ov)
{
	if (!pl_det_on() || which != ITIMER_REAL)
		return (int)syscall(SYS_setitimer, which, nv, ov);
	if (!nv) {
		errno = EFAULT;
		return -1;
	}
	if (nv->it_value.tv_sec < 0 || nv->it_value.tv_usec < 0 || nv->it_value.tv_usec >= 1000000 ||
	    nv->it_interval.tv_sec < 0 || nv->it_interval.tv_usec < 0 || nv->it_interval.tv_usec >= 1000000) {
		errno = EINVAL;
		return -1;
	}
	if (ov)
		current(ov);
	arm(tv_ns(&nv->it_value), tv_ns(&nv->it_interval));
	return 0;
}

PL_EXPORT int getitimer(__itimer_which_t which, struct itimerval *cur)
{
	if (!pl_det_on() || which != ITIMER_REAL)
		return (int)syscall(SYS_getitimer, which, cur);
	if (!cur) {
		errno = EFAULT;
		return -1;
	}
	current(cur);
	return 0;
}

/* The seconds left of the previous alarm, rounded as the kernel rounds
 * them (to the nearest, and 1 rather than 0 while one is armed). */
PL_EXPORT unsigned int alarm(unsigned int seconds)
{
	if (!pl_det_on())
		return (unsigned int)syscall(SYS_alarm, seconds);
	struct itimerval old;
	current(&old);
	unsigned int left = 0;
	if (due_ns) {
		left = (unsigned int)old.it_value.tv_sec + (old.it_value.tv_usec >= 500000);
		if (!left)
			left = 1;
	}
	arm((int64_t)seconds * NS, 0);
	return left;
}

PL_EXPORT useconds_t ualarm(useconds_t usecs, useconds_t interval)
{
	struct itimerval nv = {{(time_t)(interval / 1000000), (suseconds_t)(interval % 1000000)},
			       {(time_t)(usecs / 1000000), (suseconds_t)(usecs % 1000000)}},
			 ov;
	if (setitimer(ITIMER_REAL, &nv, &ov) < 0)
		return (useconds_t)-1;
	return (useconds_t)(ov.it_value.tv_sec * 1000000 + ov.it_value.tv_usec);
}
