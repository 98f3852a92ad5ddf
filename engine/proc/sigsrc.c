/*
 * sigsrc.c — who sent cmc a signal: the user (an interruption), or one
 * of cmc's targets (a fault of that target).
 *
 * A target may signal its parent (kill(getppid(), SIGTERM), which the
 * preload drops, or kill() of a pid it found in /proc): that is the
 * target's misbehaviour, judged like any other, not the user asking cmc to
 * stop.  A target is a child of cmc (fork snapshots too: CLONE_PARENT) or a
 * descendant of one; one that left that tree (a double fork) is still in
 * its jail's cgroup, cmc-<cmc's pid>/... (limits.c).  The signal
 * handler asks here, with the sender's pid (SA_SIGINFO's si_pid): a
 * target's signal is recorded for the observation of the operation that
 * sent it (proc_signal_take(), a `signal` fault) and cmc goes on.
 *
 * The handler side only uses open/read/close and lock-free atomics
 * (async-signal-safe).  A sender that is gone before the handler looks
 * (reaped already: a /bin/kill) is taken for the user; so the observation
 * of an operation waits, before cmc kills or reaps anything of its
 * target, until no such signal is pending or being handled.  What it
 * cannot see is a signal another thread has taken from the queue but not
 * yet begun to handle: then the operation has no fault, and the signal,
 * if its sender is gone by the time it is looked at, reads as the
 * user's (rare; seen under the sanitizers' slower threads).
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "target.h"
#include "util.h"

#define NSIG_SLOTS 16

/* Invariant: a slot's fields are valid while state == FULL; the handler
 * claims a slot FREE -> BUSY, fills it, publishes it FULL; a taker claims
 * FULL -> BUSY, reads, frees it. */
enum { FREE, BUSY, FULL };
static struct {
	atomic_int state;
	pid_t root;             /* the child of cmc it descends from (0: unknown) */
	pid_t pgid, sender;
	int sig;
} slots[NSIG_SLOTS];
static atomic_int in_handler;

static size_t put_int(char *p, long v)
{
	char tmp[24];
	size_t n = 0, k = 0;
	if (v < 0) {
		p[k++] = '-';
		v = -v;
	}
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof tmp);
	while (n)
		p[k++] = tmp[--n];
	return k;
}

/* "/proc/PID/what" into buf (64 bytes). */
static void pid_path(char *buf, pid_t pid, const char *what)
{
	size_t k = 0;
	memcpy(buf, "/proc/", 6);
	k = 6;
	k += put_int(buf + k, pid);
	buf[k++] = '/';
	size_t w = strlen(what);
	memcpy(buf + k, what, w + 1);
}

static ssize_t read_file(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	pid_path(path, pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

static long parse_int(const char **p)
{
	const char *q = *p;
	while (*q == ' ')
		q++;
	bool neg = *q == '-';
	if (neg)
		q++;
	long v = 0;
	while (*q >= '0' && *q <= '9')
		v = v * 10 + (*q++ - '0');
	*p = q;
	return neg ? -v : v;
}

/* Parent and process group of pid, from /proc/PID/stat; false when gone. */
static bool stat_of(pid_t pid, pid_t *ppid, pid_t *pgrp)
{
	char buf[512];
	if (read_file(pid, "stat", buf, sizeof buf) <= 0)
		return false;
	const char *r = strrchr(buf, ')');
	if (!r || !r[1] || !r[2] || !r[3])
		return false;
	const char *p = r + 4; /* past ") S " */
	*ppid = (pid_t)parse_int(&p);
	*pgrp = (pid_t)parse_int(&p);
	return true;
}

/* Is pid in one of this cmc's jails (cgroup path .../cmc-<self>/...)? */
static bool in_jail(pid_t pid, pid_t self)
{
	char buf[2048], want[40];
	if (read_file(pid, "cgroup", buf, sizeof buf) <= 0)
		return false;
	size_t k = 0;
	memcpy(want, "/cmc-", 5);
	k = 5;
	k += put_int(want + k, self);
	want[k++] = '/';
	want[k] = 0;
	return strstr(buf, want) != NULL;
}

bool proc_signal_from_target(int sig, pid_t sender)
{
	pid_t self = getpid();
	if (sender <= 0 || sender == self)
		return false;
	atomic_fetch_add(&in_handler, 1);
	pid_t root = 0, pgid = 0, p = sender;
	bool target = false;
	for (int i = 0; i < 64 && p > 1; i++) {
		pid_t pp, pg;
		if (!stat_of(p, &pp, &pg))
			break;
		if (i == 0)
			pgid = pg;
		if (pp == self) {
			root = p;
			target = true;
			break;
		}
		p = pp;
	}
	if (!target)
		target = in_jail(sender, self);
	if (target)
		for (int i = 0; i < NSIG_SLOTS; i++) {
			int want = FREE;
			if (!atomic_compare_exchange_strong(&slots[i].state, &want, BUSY))
				continue;
			slots[i].root = root;
			slots[i].pgid = pgid;
			slots[i].sender = sender;
			slots[i].sig = sig;
			atomic_store(&slots[i].state, FULL);
			break;
		}
	atomic_fetch_sub(&in_handler, 1);
	return target;
}

static bool take(pid_t pid, pid_t pgid, struct proc_obs *obs)
{
	for (int i = 0; i < NSIG_SLOTS; i++) {
		int want = FULL;
		if (atomic_load(&slots[i].state) != FULL)
			continue;
		bool mine = (pid > 0 && slots[i].root == pid) ||
			    (slots[i].root == 0 && pgid > 0 && slots[i].pgid == pgid) ||
			    (pid == 0 && pgid > 0 && slots[i].pgid == pgid);
		if (!mine || !atomic_compare_exchange_strong(&slots[i].state, &want, BUSY))
			continue;
		int sig = slots[i].sig;
		pid_t sender = slots[i].sender;
		atomic_store(&slots[i].state, FREE);
		if (obs->fault == PROC_FAULT_NONE) {
			obs->fault = PROC_FAULT_SIGNAL;
			snprintf(obs->fault_msg, sizeof obs->fault_msg,
				 "the target sent cmc signal %d (SIG%s)%s: a target must not signal cmc",
				 sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
				 sender == pid ? "" : " from a process of its own");
		}
		return true;
	}
	return false;
}

/* One of the signals cmc's handler looks at (tui/cli/signals.c) is on its
 * way: pending for the process, or in the handler now.  sigpending()
 * cannot say (it reports blocked signals only): the process's shared
 * pending set is ShdPnd in /proc/self/status, where kill() puts them. */
static bool handler_pending(void)
{
	if (atomic_load(&in_handler))
		return true;
	char buf[4096];
	if (read_file(getpid(), "status", buf, sizeof buf) <= 0)
		return false;
	const char *p = strstr(buf, "\nShdPnd:");
	if (!p)
		return false;
	p += 9;
	while (*p == ' ' || *p == '\t')
		p++;
	unsigned long long mask = 0;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		mask = mask << 4 | (unsigned)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	unsigned long long want = 1ull << (SIGINT - 1) | 1ull << (SIGTERM - 1) | 1ull << (SIGHUP - 1);
	return (mask & want) != 0;
}

void proc_signal_take(const struct proc_target *t, struct proc_obs *obs)
{
	/* A signal the target sent before it answered is queued by then;
	 * its handler may still be on its way on another thread. */
	double until = 0;
	while (!take(t->pid, t->pgid, obs) && handler_pending() && !proc_interrupted) {
		double now = eng_now();
		if (!until)
			until = now + 1.0;
		else if (now > until)
			break;
		sched_yield();
	}
}
