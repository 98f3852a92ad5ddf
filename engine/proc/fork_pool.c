/*
 * fork_pool.c — the snapshot pool the fork executors of all workers share:
 * which snapshots live, which are evicted, and when one is freed.
 *
 * Reference counts: a snapshot's `users` counts the executors that hold it
 * as their origin or fork from it.  A snapshot is never freed while users
 * > 0: taken out of the pool then, it is `doomed`, and its last user's
 * fork_pool_unuse() hands it to the graveyard.  A snapshot with users == 0
 * that leaves the pool goes to the graveyard at once.  The graveyard
 * (`dead`) is emptied by fork_pool_bury(), outside the pool lock, where the
 * processes are killed and reaped.  Every field of the pool and every
 * snapshot's users/doomed/stale/parent are under the pool lock
 * (fork_pool_lock()); the invariants are written above struct fork_pool
 * and checked by fork_pool_is_valid().
 *
 * Eviction: when the pool is full a stale snapshot goes, oldest first, or
 * (when asked) the oldest parent; one in use never does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fork_int.h"

void fork_snap_free(struct snap *s)
{
	if (!s)
		return;
	fork_kill_target(s->t);
	pthread_mutex_destroy(&s->fmu);
	proc_bytes_unref(s->reply);
	for (size_t i = 0; s->replies && i < s->n; i++)
		proc_bytes_unref(s->replies[i]);
	free(s->replies);
	free(s->trace);
	free(s);
}

/* A snapshot keeps its descriptors (its channels and /proc files): the
 * last operation it is expanded by it takes itself, unforked (fork_apply),
 * on the channels it has.  Its buffers go: it is quiescent, so nothing is
 * in flight on them, and the replies live in the snap. */
void fork_snap_trim(struct proc_target *t)
{
	proc_buf_free(&t->reply);
	proc_buf_free(&t->canon.cur);
	proc_buf_free(&t->ctl.cur);
	proc_buf_free(&t->ctl.last);
	for (int i = 0; i < PROC_STICKY; i++) {
		proc_buf_free(&t->ctl.sticky[i]);
		t->ctl.sticky_seen[i] = false; /* reported with the operation that made it */
	}
}

/* The pool lock, with the pool checked whole on the way in and out
 * (CHECK=3): every change to the pool happens between the two. */
void fork_pool_lock(struct fork_pool *pl)
{
	pthread_mutex_lock(&pl->mu);
	CMC_ASSERT_INTERNAL(fork_pool_is_valid(pl));
}

void fork_pool_unlock(struct fork_pool *pl)
{
	CMC_ASSERT_INTERNAL(fork_pool_is_valid(pl));
	pthread_mutex_unlock(&pl->mu);
}

void fork_pool_remove(struct fork_pool *pl, struct snap *s)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->s[i] == s) {
			memmove(pl->s + i, pl->s + i + 1, (pl->n - i - 1) * sizeof *pl->s);
			pl->n--;
			return;
		}
}

/* Used by nobody and never again: killed, reaped and freed by fork_pool_bury(),
 * outside the pool lock.  A kill and wait under it stalled every other
 * worker (and the admitting thread's forget() while they all wait); even
 * a kill alone wakes the snapshot, which then runs before the lock holder
 * gets the cpu back.  Pool lock held. */
void fork_pool_grave(struct fork_pool *pl, struct snap *s)
{
	CMC_ASSERT(s->users == 0);
	if (pl->ndead == pl->dead_cap) {
		pl->dead_cap = pl->dead_cap ? 2 * pl->dead_cap : 16;
		pl->dead = eng_xrealloc(pl->dead, pl->dead_cap * sizeof *pl->dead);
	}
	pl->dead[pl->ndead++] = s;
}

/* Reap the dead that run on f's cpu (all of them for NULL): a snapshot on
 * another worker's cpu exits there, and waiting for it here leaves this
 * cpu idle while it delays that worker. */
void fork_pool_bury(struct fork_pool *pl, const struct forkx *f)
{
	struct snap *mine[64];
	size_t n = 0;
	fork_pool_lock(pl);
	for (size_t i = 0; i < pl->ndead && n < sizeof mine / sizeof mine[0];)
		if (!f || pl->dead[i]->maker == f) {
			mine[n++] = pl->dead[i];
			pl->dead[i] = pl->dead[--pl->ndead];
		} else {
			i++;
		}
	fork_pool_unlock(pl);
	for (size_t i = 0; i < n; i++)
		fork_snap_free(mine[i]);
	if (n == sizeof mine / sizeof mine[0])
		fork_pool_bury(pl, f);
}

/* Out of the pool; freed now, or by its last user (pool lock held). */
void fork_pool_drop(struct fork_pool *pl, struct snap *s)
{
	fork_pool_remove(pl, s);
	if (s->users > 0)
		s->doomed = true;
	else
		fork_pool_grave(pl, s);
}

/* One user fewer (pool lock held). */
void fork_pool_unuse(struct fork_pool *pl, struct snap *s)
{
	CMC_ASSERT(s->users > 0);
	if (--s->users == 0 && s->doomed)
		fork_pool_grave(pl, s);
}

/* Room for one more: evict the oldest stale snapshot, else (when
 * `parents`) the oldest parent; false when neither exists. */
bool fork_pool_room(struct fork_pool *pl, bool parents)
{
	if (pl->n < pl->limit)
		return true;
	for (int pass = 0; pass < 1 + parents; pass++)
		for (size_t i = 0; i < pl->n; i++) { /* the pool is in creation order */
			struct snap *s = pl->s[i];
			if (s->users || !(pass ? s->parent : s->stale))
				continue;
			fork_pool_drop(pl, s);
			CMC_ASSERT_EXPENSIVE(fork_pool_is_valid(pl)); /* after an eviction */
			return true;
		}
	return false;
}

bool fork_same_trace(const struct snap *s, const uint16_t *trace, size_t n)
{
	return s->n == n && (n == 0 || memcmp(s->trace, trace, n * sizeof *trace) == 0);
}

struct snap *fork_snap_new(struct forkx *f, struct proc_target *t, const struct snap *parent, int op)
{
	struct snap *s = eng_xcalloc(1, sizeof *s);
	size_t n = parent ? parent->n + (op >= 0) : 0;
	s->t = t;
	s->n = n;
	s->seq = __atomic_fetch_add(&f->pl->seq, 1, __ATOMIC_RELAXED);
	s->maker = f;
	pthread_mutex_init(&s->fmu, NULL);
	if (n) {
		s->trace = eng_xmalloc(n * sizeof *s->trace);
		if (parent->n) /* memcpy from NULL is UB (UBSan), even for 0 bytes */
			memcpy(s->trace, parent->trace, parent->n * sizeof *s->trace);
		if (op >= 0)
			s->trace[n - 1] = (uint16_t)op;
		s->reply = op >= 0 ? proc_bytes_new(t->reply.p, t->reply.len)
				   : proc_bytes_ref(parent->reply);
		if (f->x.keep_replies) {
			s->replies = eng_xcalloc(n, sizeof *s->replies);
			for (size_t i = 0; i < parent->n; i++)
				s->replies[i] = proc_bytes_ref(parent->replies[i]);
			if (op >= 0)
				s->replies[n - 1] = proc_bytes_ref(s->reply);
		}
	}
	return s;
}

struct fork_pool *fork_pool_new(const char *path, size_t limit)
{
	struct fork_pool *pl = eng_xcalloc(1, sizeof *pl);
	pthread_mutex_init(&pl->mu, NULL);
	pl->limit = fork_fit_fds(path, limit);
	pl->s = eng_xcalloc(pl->limit, sizeof *pl->s);
	pl->refs = 1;
	if (sched_getaffinity(0, sizeof pl->cpus, &pl->cpus) < 0)
		CPU_ZERO(&pl->cpus);
	return pl;
}

void fork_pool_ref(struct fork_pool *pl)
{
	fork_pool_lock(pl);
	pl->refs++;
	fork_pool_unlock(pl);
}

/* One executor fewer; the last one frees the pool and every snapshot
 * left in it (their users are all gone with the executors). */
void fork_pool_unref(struct fork_pool *pl)
{
	fork_pool_lock(pl);
	CMC_ASSERT(pl->refs > 0);
	bool last = --pl->refs == 0;
	if (last) {
		CMC_ASSERT_EXPENSIVE(fork_pool_is_valid(pl)); /* the end of a run */
		for (size_t i = 0; i < pl->n; i++)
			fork_pool_grave(pl, pl->s[i]);
		pl->n = 0;
	}
	fork_pool_unlock(pl);
	if (last) {
		fork_pool_bury(pl, NULL);
		free(pl->dead);
		pthread_mutex_destroy(&pl->mu);
		free(pl->s);
		free(pl);
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

bool fork_snap_is_valid(const struct snap *s)
{
	CMC_VALID(s->users >= 0, "snapshot: %d users", s->users);
	CMC_VALID(s->n == 0 || s->trace, "snapshot: %zu steps and no trace", s->n);
	CMC_VALID(s->n > 0 || !s->reply, "snapshot: a reply with no step");
	CMC_VALID(!s->replies || s->n == 0 || s->replies[s->n - 1] == s->reply,
		  "snapshot: its last step's reply is not its reply");
	return true;
}

bool fork_pool_is_valid(const struct fork_pool *pl)
{
	CMC_VALID(pl->n <= pl->limit, "pool: %zu snapshots, limit %zu", pl->n, pl->limit);
	CMC_VALID(pl->limit == 0 || pl->s, "pool: no array for %zu snapshots", pl->limit);
	CMC_VALID(pl->ndead <= pl->dead_cap, "pool: %zu dead in room for %zu", pl->ndead, pl->dead_cap);
	for (size_t i = 0; i < pl->n; i++) {
		const struct snap *s = pl->s[i];
		CMC_VALID(s, "pool: slot %zu of %zu empty", i, pl->n);
		CMC_VALID(!s->doomed, "pool: snapshot %zu is doomed but still in the pool", i);
		CMC_VALID(s->t, "pool: snapshot %zu has no process", i);
		CMC_VALID(s->n > 0, "pool: snapshot %zu is a root (no step)", i);
		fork_snap_is_valid(s);
	}
	for (size_t i = 0; i < pl->ndead; i++) {
		const struct snap *s = pl->dead[i];
		CMC_VALID(s, "pool: grave %zu of %zu empty", i, pl->ndead);
		CMC_VALID(s->users == 0, "pool: a snapshot to be freed has %d users", s->users);
	}
	/* No snapshot twice, in the pool or the graveyard or across them. */
	size_t all = pl->n + pl->ndead;
	if (all > 1) {
		const struct snap **v = eng_xmalloc(all * sizeof *v);
		memcpy(v, pl->s, pl->n * sizeof *v);
		if (pl->ndead)
			memcpy(v + pl->n, pl->dead, pl->ndead * sizeof *v);
		qsort(v, all, sizeof *v, cmp_ptr);
		for (size_t i = 1; i < all; i++)
			if (v[i] == v[i - 1]) {
				free(v);
				CMC_VALID(false, "pool: a snapshot is listed twice (pool %zu, dead %zu)", pl->n,
					  pl->ndead);
			}
		free(v);
	}
	return true;
}
