/*
 * fork_fallback.c — when fork snapshots cannot work, and going on without
 * them.  Snapshots are impossible for a target with threads (fork copies
 * only the calling thread), without the preload, when the snapshot server
 * did not start (a statically linked target), or when the target holds a
 * kernel object fork shares instead of copying (a timerfd, ...); they stop
 * working when a snapshot no longer forks on request.  Then the executor
 * says why on stderr (once per run) and delegates everything to the replay
 * executor, the reference, whose counts and traces it reports (fork_mirror()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fork_int.h"

void fork_mirror(struct forkx *f)
{
	f->x.replies = f->fb->replies;
	f->x.nreplies = f->fb->nreplies;
	struct proc_exec_stats own = f->x.st;
	f->x.st = f->fb->st;
	f->x.st.forks = own.forks;
	f->x.st.spent = own.spent;
	f->x.st.discarded = own.discarded;
	f->x.st.peak = own.peak;
	memcpy(f->x.err, f->fb->err, sizeof f->x.err);
}

void fork_fall_back(struct forkx *f, const char *why)
{
	/* from now on x.replies is the replay executor's (fork_mirror()) */
	proc_exec_replies_free(&f->x);
	if (!__atomic_exchange_n(&f->pl->said_fallback, true, __ATOMIC_RELAXED))
		fprintf(stderr, "cmc: %s: fork snapshots unavailable (%s): using the replay executor\n",
			f->x.sc->path, why);
	f->fb = proc_replay_new(f->x.sc, f->x.preload, f->img);
}

/* A kernel object the target holds whose state fork shares between parent
 * and child instead of copying: a timer, a signal or event counter, an
 * io_uring.  Snapshots of such a target are not independent;
 * NULL when there is none, else what it is. */
static const char *shared_object(pid_t pid, char *buf, size_t n)
{
	/* (an eventpoll is not one: the preload makes a child's anew, preload/epoll.c) */
	static const char *const kinds[] = {"timerfd", "signalfd", "eventfd", "io_uring"};
	char fd[16];
	const char *kind = proc_anon_fd(pid, kinds, sizeof kinds / sizeof kinds[0], fd);
	if (!kind)
		return NULL;
	snprintf(buf, n, "the target holds an %s (fd %s), which fork shares between snapshots%s", kind, fd,
		 kind == kinds[0] ? "; it runs on real time, not cmc's virtual clock: states and counts "
				    "may differ from run to run" : "");
	return buf;
}

/* Why fork snapshots cannot work for the root t just started, or NULL
 * when they can (buf holds the text when it is made up). */
const char *fork_unsupported(const struct proc_target *t, char *buf, size_t n)
{
	const char *why = NULL;
	int nt = proc_threads(t->pid);
	/* One READY per exec that loaded the preload (a wrapper such as sh
	 * that execs the program sends one too), read and checked by the
	 * start-up's wait as by the replay executor's: the last counts.
	 * Anything else there is the root's protocol fault, reported by
	 * proc_observe() as under replay. */
	bool ready = t->snap_readies && t->snap_ready_pid == t->pid;
	if (!ready && !t->snap_fault[0])
		why = "the preload's snapshot server is not running in the target (statically linked?)";
	else if (nt != 1) {
		/* Replay runs it, but the kernel schedules its threads: say
		 * that what they do between operations is not cmc's to
		 * repeat (memcached and redis-server gave other counts on
		 * every run). */
		snprintf(buf, n, "the target runs %d threads, which cmc does not schedule: states and counts "
			 "may differ from run to run", nt);
		why = buf;
	} else {
		why = shared_object(t->pid, buf, n);
	}
	return why;
}

/* Snapshots stopped working: one did not fork on request and could not be
 * made again (the target exits once cmc leaves its channels idle, closes or
 * reuses the snapshot socket, blocks the request signal...).  Say why
 * (`died`: the snapshot had ended), drop the root and go on by replay,
 * which needs none of that, at the state after trace[0..n): counts and
 * traces stay those of replay, the reference.  Snapshots already in the
 * pool stay until the executor goes. */
int fork_fall_back_at(struct forkx *f, bool died, const uint16_t *trace, size_t n,
			struct proc_obs *obs)
{
	char why[sizeof f->x.err + 64];
	snprintf(why, sizeof why, "%s", died ? "the target ended while parked as a snapshot" : f->x.err);
	fork_snap_free(f->root);
	f->root = NULL;
	fork_fall_back(f, why);
	int rc = f->fb->ops->reach(f->fb, trace, n, obs);
	fork_mirror(f);
	return rc;
}
