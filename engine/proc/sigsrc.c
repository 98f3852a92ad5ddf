/*
 * sigsrc.c — who sent cmc a signal: the user (an interruption), or one
 * of cmc's targets (a fault of that target).
 *
 * A target may signal its parent (kill(getppid(), SIGTERM), which the
 * preload drops, or kill() of a pid it found in /proc): that is the
 * target's misbehaviour, judged like any other, not the user asking cmc to
 * stop.  In a PID namespace it cannot name cmc; without one the seccomp
 * wall (sigwall.c) stops the call before anything is sent and the
 * preload reports it (CMC_CTL_SIGNAL, judged by walled() here, with the
 * operation).  What follows is for a signal that still arrives: a target
 * with no wall (the kernel refused the filter), or a path the wall does
 * not cover.  Such signals are not exact: two targets that signal at once
 * are one pending signal (the kernel keeps one of each), and one of them
 * goes unjudged.  A target is a child of cmc (fork snapshots too: CLONE_PARENT) or a
 * descendant of one; one that left that tree (a double fork) is still in
 * its jail's cgroup, cmc-<cmc's pid>/... (limits.c).
 *
 * SIGINT, SIGTERM and SIGHUP never interrupt a thread of cmc: the main
 * thread blocks them before any other thread exists (proc_signals_open()),
 * every thread inherits that mask, and they are read from one signalfd.
 * proc_signals_drain() reads every one pending, holding `mu`, and looks at
 * each sender (ssi_pid, read from /proc): a target's signal is parked in a
 * slot for the observation of the operation that sent it
 * (proc_signal_take(), a `signal` fault) and cmc goes on; any other is the
 * user's, handed to the callback given to proc_signals_open() (still under
 * `mu`, so one at a time).  A sender that is gone before it is looked at
 * (reaped already: a /bin/kill) is taken for the user.  A small thread
 * polls the signalfd and drains it, so the user's signal is acted on
 * at once whatever cmc is doing.
 *
 * There is no window: a target's kill() has queued its signal before the
 * target answers the operation, and proc_signal_take() runs after the
 * answer and drains first.  The signal is then either still in the
 * signalfd, and read now, or was read by another thread, which held `mu`
 * until it had parked it.
 *
 * A process cmc starts must not keep that mask: a target's child sets an
 * empty one before exec (spawn.c) and the PID namespace's init its own
 * (pids.c); cmc starts no other process.  The signal that stops cmc at
 * once (the user's second, tui/cli/signals.c) is unblocked by the thread
 * that raises it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "layout/cmc_region.h"
#include "proc.h"
#include "target.h"
#include "util.h"

#define NSIG_SLOTS 16

/* Invariant (under mu): slots[i] is a target's signal not yet taken when
 * used; sfd is the signalfd of the three signals (-1: not opened, and
 * nothing is blocked). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool used;
	pid_t root;             /* the child of cmc it descends from (0: unknown) */
	pid_t pgid, sender;
	int sig;
} slots[NSIG_SLOTS];
static int sfd = -1;
static void (*on_user)(int sig);

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

/* Was sig, sent by sender, a target's?  Then it is parked (under mu). */
static bool from_target(int sig, pid_t sender)
{
	pid_t self = getpid();
	if (sender <= 0 || sender == self)
		return false;
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
			if (slots[i].used)
				continue;
			slots[i].used = true;
			slots[i].root = root;
			slots[i].pgid = pgid;
			slots[i].sender = sender;
			slots[i].sig = sig;
			break;
		}
	return target;
}

/* Caller holds mu. */
static void drain_locked(void)
{
	if (sfd < 0)
		return;
	struct signalfd_siginfo si[8];
	for (;;) {
		ssize_t n = read(sfd, si, sizeof si);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof si[0])
			return; /* EAGAIN: none left */
		for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
			int sig = (int)si[i].ssi_signo;
			/* An I/O signal (POLL_IN ... POLL_HUP: a descriptor whose
			 * owner is cmc, F_SETSIG naming this signal) is nobody's
			 * request: never the user's.  sigwall.c keeps targets
			 * from making cmc an owner; cmc makes none itself. */
			if (si[i].ssi_code > 0 && si[i].ssi_code < SI_KERNEL)
				continue;
			bool by_kill = si[i].ssi_code == SI_USER || si[i].ssi_code == SI_QUEUE;
			if (by_kill && from_target(sig, (pid_t)si[i].ssi_pid))
				continue;
			if (on_user)
				on_user(sig);
		}
	}
}

void proc_signals_drain(void)
{
	pthread_mutex_lock(&mu);
	drain_locked();
	pthread_mutex_unlock(&mu);
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = {.fd = sfd, .events = POLLIN};
		if (poll(&p, 1, -1) > 0)
			proc_signals_drain();
	}
	return NULL;
}

static void signals_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void proc_signals_open(void (*user)(int sig))
{
	sigset_t set;
	signals_set(&set);
	pthread_mutex_lock(&mu);
	on_user = user;
	if (sfd >= 0) {
		pthread_mutex_unlock(&mu);
		return;
	}
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		eng_die("signalfd: %s", strerror(errno));
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int e = pthread_create(&th, &at, watch, NULL);
	pthread_attr_destroy(&at);
	if (e)
		eng_die("pthread_create: %s", strerror(e));
	pthread_mutex_unlock(&mu);
}

/* The fault of an operation whose target signalled cmc (other: from a
 * process the program made, not the one cmc runs). */
static void signal_fault(struct proc_obs *obs, int sig, bool other)
{
	if (obs->fault != PROC_FAULT_NONE)
		return;
	obs->fault = PROC_FAULT_SIGNAL;
	snprintf(obs->fault_msg, sizeof obs->fault_msg,
		 "the target sent cmc signal %d (SIG%s)%s: a target must not signal cmc", sig,
		 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", other ? " from a process of its own" : "");
}

/* The wall's report (CMC_CTL_SIGNAL, sigwall.c): a call that would have
 * signalled cmc was stopped.  The record is the target's word, checked for
 * form only: a target that forges one faults itself. */
static void walled(const struct proc_target *t, struct proc_obs *obs)
{
	const struct proc_chan *c = &t->ctl;
	if (!c->sticky_seen[PROC_STICKY_SIGNAL])
		return;
	const struct proc_buf *b = &c->sticky[PROC_STICKY_SIGNAL];
	uint32_t sig = b->len == CMC_CTL_SIGNAL_LEN ? proc_le32(b->p + 4) : 0;
	uint32_t flags = b->len == CMC_CTL_SIGNAL_LEN ? proc_le32(b->p + 8) : 0;
	if (sig < 1 || sig > 64 || (flags & ~CMC_SIGNAL_OTHER) || proc_le32(b->p + 12) != 0) {
		if (obs->fault == PROC_FAULT_NONE) {
			obs->fault = PROC_FAULT_PROTOCOL;
			snprintf(obs->fault_msg, sizeof obs->fault_msg,
				 "malformed signal report on the control fd (%zu bytes)", b->len);
		}
		return;
	}
	signal_fault(obs, (int)sig, flags & CMC_SIGNAL_OTHER);
}

/* Caller holds mu. */
static bool take(pid_t pid, pid_t pgid, struct proc_obs *obs)
{
	for (int i = 0; i < NSIG_SLOTS; i++) {
		if (!slots[i].used)
			continue;
		bool mine = (pid > 0 && slots[i].root == pid) ||
			    (slots[i].root == 0 && pgid > 0 && slots[i].pgid == pgid) ||
			    (pid == 0 && pgid > 0 && slots[i].pgid == pgid);
		if (!mine)
			continue;
		int sig = slots[i].sig;
		pid_t sender = slots[i].sender;
		slots[i].used = false;
		signal_fault(obs, sig, sender != pid);
		return true;
	}
	return false;
}

void proc_signal_take(const struct proc_target *t, struct proc_obs *obs)
{
	/* A signal the target sent before it answered is queued by then:
	 * in the signalfd still, or parked by whoever read it. */
	pthread_mutex_lock(&mu);
	drain_locked();
	take(t->pid, t->pgid, obs);
	pthread_mutex_unlock(&mu);
	walled(t, obs);
}
