/*
 * fork_int.h — what the pieces of the fork-snapshot executor share; private
 * to engine/proc/fork_*.c and exec_fork.c.
 *
 *   exec_fork.c      the executor protocol (reach, apply, discard, forget,
 *                    release, destroy: exec.h) and where snapshots come from
 *   fork_pool.c      the snapshot pool: reference counts, eviction, graves
 *   fork_request.c   asking a snapshot to fork; the child as a proc_target
 *   fork_fds.c       the channels a child is given; cmc's fd limit
 *   fork_fallback.c  when snapshots cannot work: detection, and replay
 *   fork_cpu.c       pinning a worker and its targets to one cpu
 */
#ifndef CMC_PROC_FORK_INT_H
#define CMC_PROC_FORK_INT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/cmc_region.h"
#include "exec.h"
#include "target.h"
#include "util.h"

/* A live snapshot: the process and the state it holds.  Invariants
 * (fork_snap_is_valid() checks what cmc can see of them): users >= 0;
 * n > 0 implies trace; t->pid > 0 and the process is quiescent (blocked
 * on its input) until it is reaped; reply is the
 * reply of trace's last step (NULL: empty, or n == 0); replies is NULL
 * unless the executors keep every step's reply (proc_exec.keep_replies),
 * then it has n entries and replies[n - 1] == reply; t->canon.last is the
 * last complete canonical record the process wrote over its whole history.
 *
 * What it costs in cmc (share/scenario.md, "Executors"): the process's fds
 * (fork_fit_fds()), its trace (2 bytes a step), its last reply (at most
 * reply-cap bytes), its canonical record (at most CMC_CANON_MAX) and, with
 * a plugin property, one pointer a step: the replies are shared, each held
 * once by every snapshot whose trace passes through its step.  Its raw
 * window and observation are not kept: observe_snap() reads them again. */
struct snap {
	struct proc_target *t;
	uint16_t *trace;
	size_t n;
	struct proc_bytes *reply;
	struct proc_bytes **replies;
	uint64_t seq;           /* creation order */
	bool stale;
	bool parent;            /* expanded, kept for children the pool could not hold */
	int users;              /* executors using it as origin or fork source (pool lock) */
	bool doomed;            /* out of the pool: the last user frees it */
	pthread_mutex_t fmu;    /* one fork request at a time on its socket */
	const void *maker;      /* the executor whose cpu it runs on (compared only) */
};

/*
 * The pool, shared by the executors of all workers (--jobs: a state made by
 * one worker is often expanded by another).  Every field and every snap's
 * users/doomed/stale/parent are under mu (fork_pool_lock()).  Invariants
 * (fork_pool_is_valid()):
 *   n <= limit; s[0..n) are distinct live snapshots, none doomed, each
 *     with its process and at least one step (roots are never in the
 *     pool), in the order they went in (eviction takes the oldest first);
 *   a snapshot in use (users > 0) is never freed: taken out of the pool,
 *     it is doomed, and goes to dead when its users reach 0;
 *   dead[0..ndead) (ndead <= dead_cap) hold snapshots with users == 0,
 *     none of them also in s: fork_pool_bury() frees them;
 *   refs counts the executors sharing the pool; the last one frees it.
 */
struct fork_pool {
	pthread_mutex_t mu;
	struct snap **s;
	size_t n, limit;
	uint64_t seq;
	unsigned refs;          /* executors sharing it */
	cpu_set_t cpus;         /* cmc's allowed cpus before any worker was pinned */
	unsigned next_cpu;      /* fork_pin(): the next worker's, round robin */
	struct snap **dead;     /* out of the pool, killed, not yet reaped: fork_pool_bury() */
	size_t ndead, dead_cap;
	bool said_fallback;     /* one "fork snapshots unavailable" line per run */
};

/* One fork executor (one per worker); the pool is shared. */
struct forkx {
	struct proc_exec x;     /* first: the common part */
	const struct proc_image *img;
	struct proc_exec *fb;   /* the replay executor, once fork snapshots cannot work */
	struct proc_exec *byreplay; /* a replay executor for the operations a
				 * snapshot cannot make (crash, reconnect:
				 * proc_op_replay_only()) and the states
				 * after them; NULL until needed */
	bool via_replay;        /* the reached state's trace has one: byreplay
				 * holds it, and every apply goes there */
	bool replay_at_origin;  /* byreplay has reached the fork origin's state */
	struct snap *root;      /* the initial state; NULL before the first reach */
	struct fork_pool *pl;   /* live snapshots besides roots and temporary origins */
	struct snap *origin;    /* the reached state (users counts us) */
	bool origin_temp;       /* origin is not in the pool: killed at release */
	bool unkept;            /* the last apply's successor could go on, but the
				 * pool had no room for it: its origin becomes a
				 * parent unless discard() says it is not wanted */
	struct snap *kept;      /* put in the pool by the last apply; compared, never
				 * followed, unless found in the pool (lock held) */
	bool forged;            /* a snapshot lied about its child (fork_child()):
				 * snapshots are trusted no more */
	int lfd;                /* tcp: listener the new connections come from */
	uint16_t lport;
	int conn_no;            /* tcp: the target's connection fd number, -1 unknown */
	struct proc_obs scratch;
	bool pinned;            /* the executing thread was pinned to one cpu */
	cpu_set_t saved_cpus;   /* its affinity before */
	cpu_set_t cpu;          /* the one it is pinned to */
};


/* ---- fork_pool.c: pool lock held unless said otherwise ---- */
struct fork_pool *fork_pool_new(const char *path, size_t limit); /* no lock */
void fork_pool_ref(struct fork_pool *pl);                        /* takes the lock */
void fork_pool_unref(struct fork_pool *pl);                      /* takes the lock */
void fork_pool_lock(struct fork_pool *pl);
void fork_pool_unlock(struct fork_pool *pl);
void fork_pool_remove(struct fork_pool *pl, struct snap *s);
void fork_pool_grave(struct fork_pool *pl, struct snap *s);
void fork_pool_bury(struct fork_pool *pl, const struct forkx *f); /* takes the lock */
void fork_pool_drop(struct fork_pool *pl, struct snap *s);
void fork_pool_unuse(struct fork_pool *pl, struct snap *s);
bool fork_pool_room(struct fork_pool *pl, bool parents);
bool fork_pool_is_valid(const struct fork_pool *pl);
bool fork_snap_is_valid(const struct snap *s);
/* no lock needed: */
struct snap *fork_snap_new(struct forkx *f, struct proc_target *t, const struct snap *parent, int op);
void fork_snap_free(struct snap *s);
void fork_snap_trim(struct proc_target *t);
bool fork_same_trace(const struct snap *s, const uint16_t *trace, size_t n);

/* ---- fork_request.c ---- */
struct proc_target *fork_child(struct forkx *f, struct snap *s, const struct proc_op *first);
void fork_kill_target(struct proc_target *t);

/* ---- fork_fds.c ---- */
/* A child's channels: cmc's ends (in_mine, out[0], canon[0], ctl[0],
 * sp[0]) and the child's (in_theirs and the [1]s); -1 when closed. */
struct fork_chans {
	int in_mine, in_theirs;
	int out[2], canon[2], ctl[2], sp[2];
	uint16_t cport;         /* tcp: cmc's end's port */
};
int fork_chans_open(struct forkx *f, bool tcp, struct fork_chans *c);
void fork_chans_close_theirs(struct fork_chans *c);
void fork_chans_close_mine(struct fork_chans *c);
size_t fork_presend(int fd, bool tcp, const struct proc_op *op);
size_t fork_fit_fds(const char *path, size_t limit);
void fork_close_fd(int *fd);

/* ---- fork_fallback.c ---- */
void fork_mirror(struct forkx *f);
void fork_fall_back(struct forkx *f, const char *why);
const char *fork_unsupported(const struct proc_target *t, char *buf, size_t n);
int fork_fall_back_at(struct forkx *f, bool died, const uint16_t *trace, size_t n, struct proc_obs *obs);

/* ---- fork_cpu.c ---- */
void fork_pin(struct forkx *f);
void fork_adopt(struct forkx *f, struct snap *s);
void fork_unpin(struct forkx *f);

#endif
