/*
 * fork_cpu.c — keeping a fork executor's worker thread and its targets on
 * one cpu.  Rules: a worker is pinned once, before its root starts (the
 * targets inherit the thread's affinity), and gets its old affinity back
 * when its executor is destroyed (fork_unpin()); a snapshot another worker
 * made is moved to this worker's cpu before it is asked to fork
 * (fork_adopt(), pool lock held).
 */
#include <pthread.h>
#include <sched.h>

#include "fork_int.h"

/*
 * Keep the worker and its targets on one cpu: a transition is a chain of
 * hand-offs (cmc asks, the snapshot forks, the child answers), and on one
 * run queue each hand-off is a yield, not a cross-cpu wake-up that waits
 * for the other cpu's current task (measured: ~0.5 ms per hand-off on a
 * busy 2-cpu machine).  With --jobs each worker has a cpu of its own, and
 * a snapshot another worker made is moved to ours before it forks
 * (fork_adopt()): pinned workers whose snapshots forked on the other cpu were
 * slower than free ones (1600 against 1950 transitions/s on list, keys
 * 1..9); with adoption, quiescence takes as long as with one job (~120
 * us/op, against ~370 unpinned).  The targets inherit the thread's
 * affinity when they are started.
 */
void fork_pin(struct forkx *f)
{
	struct fork_pool *pl = f->pl;
	cpu_set_t one;
	if (f->pinned || CPU_COUNT(&pl->cpus) < 2)
		return;
	/* The first worker starts from the cpu the scheduler runs it on now
	 * (other cmc processes are elsewhere), the others follow round robin
	 * over the cpus cmc was allowed (a thread started by a pinned one
	 * inherits its single cpu). */
	unsigned k = __atomic_fetch_add(&pl->next_cpu, 1, __ATOMIC_RELAXED);
	if (k == 0) {
		int here = sched_getcpu();
		for (int c = 0; c < here && c < CPU_SETSIZE; c++)
			k += CPU_ISSET(c, &pl->cpus) != 0;
		__atomic_store_n(&pl->next_cpu, k + 1, __ATOMIC_RELAXED);
	}
	k %= (unsigned)CPU_COUNT(&pl->cpus);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &pl->cpus) && k-- == 0) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			if (sched_getaffinity(0, sizeof f->saved_cpus, &f->saved_cpus) == 0 &&
			    sched_setaffinity(0, sizeof one, &one) == 0) {
				f->cpu = one;
				f->pinned = true;
			}
			return;
		}
}

/* A snapshot another worker made sleeps on that worker's cpu: move it to
 * ours before asking it to fork (pool lock held), so that the fork request
 * and its children stay on this cpu. */
void fork_adopt(struct forkx *f, struct snap *s)
{
	if (!f->pinned || s->maker == f || s->t->pid <= 0)
		return;
	pthread_mutex_lock(&s->fmu);
	sched_setaffinity(s->t->pid, sizeof f->cpu, &f->cpu);
	s->maker = f;
	pthread_mutex_unlock(&s->fmu);
}

void fork_unpin(struct forkx *f)
{
	if (f->pinned)
		sched_setaffinity(0, sizeof f->saved_cpus, &f->saved_cpus);
	f->pinned = false;
}
