/*
 * exec.h — the executor interface of process mode: how the frontend
 * (frontend.c) gets a live target to a state and observes one operation from it.
 *
 * Two executors implement it: stateless replay (exec_replay.c: a fresh
 * process per reach, the trace replayed; the correctness reference) and
 * fork snapshots (exec_fork.c and fork_*.c: the preload forks the
 * quiescent target, each child takes one operation, and children still
 * quiescent are kept as snapshots).  They must give identical observations.
 *
 * Protocol, per state the frontend expands:
 *     reach(x, trace, n, &obs)      live target at the state after `trace`
 *     apply(x, op, &obs)            observe the successor by op; the state
 *     apply(x, op2, &obs)           reached by reach() stays the origin of
 *     ...                           every apply until the next reach
 *     discard(x)                    (optional) the last apply's successor
 *                                   will never be reached: let it go
 *     forget(x, trace, n)           (optional, any time between states)
 *                                   the same for an earlier apply's, by trace
 *     release(x)                    nothing live is needed any more
 * and destroy(x) once, which kills every process the executor started.
 * A replay executor re-reaches (respawn + replay) inside apply when its live
 * process has already moved on; a fork executor forks a child per apply.
 */
#ifndef CMC_PROC_EXEC_H
#define CMC_PROC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmc.h"
#include "scenario.h"

/* A growable owned byte buffer.  Invariant: len <= size; p NULL iff size 0. */
struct proc_buf {
	uint8_t *p;
	size_t len, size;
};

void proc_buf_set(struct proc_buf *b, const void *p, size_t n);
/* Room for n more bytes at p + len (len unchanged: the caller adds n). */
uint8_t *proc_buf_room(struct proc_buf *b, size_t n);
void proc_buf_add(struct proc_buf *b, const void *p, size_t n);
void proc_buf_free(struct proc_buf *b);

/* Which fault an observation carries (ENG_OBS_FAULT); names reports. */
enum proc_fault {
	PROC_FAULT_NONE,
	PROC_FAULT_START,    /* could not start / exited or failed during start-up */
	PROC_FAULT_LISTEN,   /* tcp target never listened on its port */
	PROC_FAULT_TIMEOUT,  /* not quiescent within the per-op timeout */
	PROC_FAULT_FLOOD,    /* more output than reply-cap for one op */
	PROC_FAULT_PROTOCOL, /* malformed canonical/control record, bad region header */
	PROC_FAULT_HEAP,     /* the preload reported a fault (exhausted, base taken...) */
	PROC_FAULT_STOPPED,  /* the target stopped (SIGSTOP, ptrace) */
	PROC_FAULT_LIMIT,    /* a resource limit was hit (limits.c) */
	PROC_FAULT_SIGNAL,   /* the target signalled cmc (sigsrc.c) */
};

const char *proc_fault_name(enum proc_fault f);

/*
 * An observation with the buffers its eng_obs points into.  The executor
 * fills it; eng_obs pointers stay valid until the next fill or proc_obs_free.
 * `reply` holds the output of the last operation only; `canon` the last
 * complete canonical record of the whole run of the process so far.
 */
/* The preload's CMC_CTL_EXIT_LIVE record, decoded and length-checked
 * (cmc_region.h section 3): what was live when the target exited normally.
 * Invariants: seen only for an exited target; n_lost <= n_blocks;
 * n_listed <= PROC_EXIT_LIVE_LIST. */
#define PROC_EXIT_LIVE_LIST 8u
struct proc_exit_live {
	bool seen;
	bool complete;          /* every chunk was walked: the counts are exact */
	uint64_t n_blocks, bytes;       /* the target's blocks still live */
	uint64_t n_lost, lost_bytes;    /* of those, reachable from no root */
	uint64_t n_libc, libc_bytes;    /* the C library's own */
	uint32_t n_listed;
	struct {
		uint64_t addr, size;
		bool lost;
	} list[PROC_EXIT_LIVE_LIST];
};

struct proc_obs {
	eng_obs e;
	struct proc_buf raw, canon, reply;
	struct proc_buf files;  /* the declared state files' summary (files.c) */
	struct proc_buf win, bounce; /* reused between observations: the whole heap
				 * window when the allocator check needs it past
				 * raw-cap, and the reads of changed pages (pages.c) */
	enum proc_fault fault;
	char fault_msg[512];
	char alloc_msg[200];    /* first failing allocator invariant (alloc.c) */
	struct proc_exit_live exit_live;
	double quiesce_s;       /* time from sending the op to quiescence */
	uint32_t alarm_ms, alarm_every_ms; /* its virtual ITIMER_REAL timer (region
				   header, detalarm.c): left and interval, 0: none */
	uint32_t wait_ms;       /* the timeout of the wait it sleeps in (region
				 * header; 0: none, or no header) */
	bool no_region;         /* the preload's heap region is not mapped: the
				 * preload is not running in the target (with
				 * raw heap, also a protocol fault) */
	char hg_msg[160];       /* why this state has no heap-graph form (heapgraph.c) */
	struct proc_hg *hg;     /* the heap-graph walk's scratch (owned; NULL: none yet) */
	bool pages_readonly;    /* set by the caller after proc_obs_reset: the
				 * target may be observed by another thread at
				 * once (a pool snapshot), so its page cache is
				 * read, not replaced (pages.h) */
};

void proc_obs_reset(struct proc_obs *o);
void proc_obs_free(struct proc_obs *o);
/* Point o->e's byte pointers at the buffers (after filling them). */
void proc_obs_seal(struct proc_obs *o);

/* Counters an executor keeps for the benchmark and -v output. */
struct proc_exec_stats {
	uint64_t spawns;        /* processes started */
	uint64_t ops;           /* operations sent, replayed prefixes included */
	double quiesce_s;       /* total time from send to quiescence */
	double spawn_s;         /* total time from fork to start-up quiescence */
	uint64_t replayed;      /* prefix operations re-executed */
	uint64_t forks;         /* snapshot children forked (fork executor) */
	uint64_t spent;         /* last operations a snapshot took itself, unforked */
	uint64_t discarded;     /* children let go at once: discard() */
	uint64_t peak;          /* most snapshots live in the pool at once */
};

struct proc_exec;
struct proc_exec_ops {
	const char *name;       /* "replay", "fork" */
	/* Live target at the state after trace[0..n).  obs gets the observation
	 * of that state (for n == 0: the initial state).  Returns 0; -1 when
	 * the state could not be reached: for n == 0 a start-up failure (obs
	 * carries the fault), for n > 0 a prefix that behaved differently from
	 * before (x->err says how: the target is nondeterministic). */
	int (*reach)(struct proc_exec *x, const uint16_t *trace, size_t n, struct proc_obs *obs);
	/* Observe the successor of the reached state by ops[op].  `last`: no
	 * other apply follows before release(), so the executor may spend the
	 * reached state on this one (the fork executor lets the snapshot take
	 * the operation itself instead of forking it).  Returns 0 (faults,
	 * exits and crashes are observations, not errors) or -1 with x->err
	 * when the origin could not be re-established. */
	int (*apply)(struct proc_exec *x, unsigned op, bool last, struct proc_obs *obs);
	/* Optional: the successor the last apply observed will never be
	 * reached (a state seen before, or past the bounds): drop whatever
	 * apply kept live for it. */
	void (*discard)(struct proc_exec *x);
	/* Optional: the same for the successor reached by trace[0..n), which
	 * some earlier apply (of any executor sharing this one's snapshots)
	 * observed; not called while that executor is inside apply. */
	void (*forget)(struct proc_exec *x, const uint16_t *trace, size_t n);
	void (*release)(struct proc_exec *x);
	void (*destroy)(struct proc_exec *x);
};

/*
 * Immutable bytes shared by reference (bytes.c): a reply held once
 * however many snapshots and executors hold it.  NULL stands for none.
 * Invariant: refs >= 1 while reachable; p[0 .. len) never changes.
 */
struct proc_bytes {
	unsigned refs;
	size_t len;
	uint8_t p[];
};
/* A copy of p[0 .. n) with one reference; NULL when n is 0. */
struct proc_bytes *proc_bytes_new(const void *p, size_t n);
struct proc_bytes *proc_bytes_ref(struct proc_bytes *b);
void proc_bytes_unref(struct proc_bytes *b);

/*
 * The common part every executor embeds first.  `replies` holds, after
 * reach(), the reply of each of the n steps of the trace, when
 * keep_replies (a plugin property reads them: proc_props_read_replies());
 * else nreplies is 0 and no reply outlives the observation it belongs to.
 * `sc` is not owned.
 */
struct proc_exec {
	const struct proc_exec_ops *ops;
	const struct proc_scenario *sc;
	const char *preload;    /* path of libcmc-preload.so, or "" for none */
	bool keep_replies;
	struct proc_bytes **replies; /* nreplies entries, each a reference (NULL: empty) */
	size_t nreplies, replies_cap;
	struct proc_exec_stats st;
	char err[1024];
	/* replay: where the run records that it said its target runs threads
	 * or a real-time timer (once per run, on stderr, as the fork
	 * executor's fallback line does); NULL when that is someone else's
	 * to say */
	bool *said_threads;
};

/* x->replies[i] = b, taking the reference (entries below i are NULL
 * until set); clear drops every entry, free the array too. */
void proc_exec_replies_set(struct proc_exec *x, size_t i, struct proc_bytes *b);
void proc_exec_replies_clear(struct proc_exec *x);
void proc_exec_replies_free(struct proc_exec *x);

struct proc_image;
/* The stateless replay executor; img (what raw covers besides the heap) is
 * not owned and outlives the executor. */
struct proc_exec *proc_replay_new(const struct proc_scenario *sc, const char *preload,
				  const struct proc_image *img);

/* The fork-snapshot executor (exec_fork.c): at most `limit` live snapshots
 * (0: PROC_FORK_LIMIT_DEFAULT); falls back to replay, saying why on stderr,
 * for targets it cannot snapshot. */
#define PROC_FORK_LIMIT_DEFAULT 1000
struct proc_exec *proc_fork_new(const struct proc_scenario *sc, const char *preload,
				const struct proc_image *img, size_t limit);
/* Another worker's fork executor sharing other's snapshot pool (--jobs); a
 * new one when other is not a fork executor.  The pool lives until the last
 * executor sharing it is destroyed. */
struct proc_exec *proc_fork_share(struct proc_exec *other, const struct proc_scenario *sc,
				  const char *preload, const struct proc_image *img);

#endif
