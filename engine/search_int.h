/*
 * search_int.h — the search's state, shared by search.c (the loop, one
 * state at a time), parallel.c (many states expanded by worker threads,
 * admitted in the same order) and level.c (a model's states found and
 * numbered by every thread).  Private to the engine.
 */
#ifndef CMC_SEARCH_INT_H
#define CMC_SEARCH_INT_H

#include <signal.h>

#include "cmc.h"
#include "fpset.h"
#include "labels.h"
#include "queue.h"

#define MAX_LISTENERS 8

/*
 * A violation found while a frontend produced successors, reported when it
 * returns (eng__flush_pending()).  A transition's violation names the
 * transition: from --label--> state (state ENG_NO_STATE when the action
 * produced none: an action that failed); its trace is the shortest trace to
 * `from` plus `label`, whether or not `state` was new.  A state's violation
 * (deadlock) has no label and its trace is the shortest one to `state`.
 */
struct pending {
	uint32_t state;   /* where it holds; ENG_NO_STATE when no state exists */
	uint32_t parent;  /* the transition's source (ENG_NO_STATE: none) */
	char *label;      /* the transition's label, or NULL */
	eng_fp fp;        /* the fingerprint `label` reached (zero: none) */
	char *property;
	char *message;
};

/*
 * Successors of one expansion wait here so that the visited-set lookups of
 * the whole batch can be prefetched before any is resolved: each lookup is
 * two cache misses (index slot, then record), and overlapping them is most
 * of the search's speed.  Only plain successors are batched (no observation,
 * no violation); anything else flushes the batch first, keeping the order.
 */
#define BATCH 256
#define GROUP 16 /* states expanded before their successors are looked up */

struct batched {
	eng_fp fp;
	uint32_t from, depth;
	size_t off, len;      /* state bytes in arena */
	const char *label;    /* interned (search.labels) */
	bool terminal;
	bool deadlock;        /* not a successor: `from` has none (a marker
			       * that keeps the report order of a sequential
			       * search) */
};

struct eng_search {
	eng_frontend *fe;
	eng_opts o;
	fpset *set;
	fpset *raw_set, *canon_set; /* distinct observation fingerprints */
	eng_queue *q;
	eng_listener ls[MAX_LISTENERS];
	size_t nls;
	eng_stats st;
	volatile sig_atomic_t stop;
	bool inited, failed;
	bool probed, one_job;   /* --jobs default: measured, and threads lost */
	uint32_t ticks;
	char err[512];
	double t0, next_tick, elapsed_before;

	/* the expansion in progress */
	uint32_t cur_id, cur_depth;
	unsigned cur_succ;
	uint32_t last_id;       /* id of the last successor seen (for apply) */
	const char *want_label; /* apply without frontend support: filter */

	struct pending *pend;
	size_t npend, pend_cap;

	/* defer.c: successors of the expansion in progress, admitted when
	 * next() returns 0.  deferring: this expansion's successors go there
	 * (from its first one with an observation on; the batch is empty). */
	struct deferred *defer;
	size_t ndefer, defer_cap;
	bool in_expand, deferring;
	/* eng_search_stop() was called since the run began: a frontend that
	 * fails now was interrupted, which stops the search, not fails it */
	volatile sig_atomic_t asked;
	/* an interrupted expansion was dropped: the frontier is not empty,
	 * whatever the queue says, so the search is not complete */
	bool dropped;

	struct batched batch[BATCH];
	size_t nbatch;
	unsigned char *arena;
	size_t arena_len, arena_cap;

	struct eng_pool *pool;  /* worker threads when o.jobs > 1 */
	struct eng_level *level; /* or these, for a model (level.c) */
	eng_labels *labels;     /* this thread's copies of labels (labels.h) */

	/* Transitions out of edges_from waiting for the on_edges() listeners
	 * (want_edges: there is one).  Their labels and observations point
	 * into the batch's arena or a worker's buffer: delivered before
	 * either is reused (eng__edges_flush()). */
	bool want_edges;
	/* some listener reads observations' bytes (eng_listener.no_obs_bytes):
	 * without one, successors carry only fingerprints and flags */
	bool obs_bytes;
	uint32_t edges_from;
	eng_edge *edges;
	size_t nedges, edges_cap;
};

/* search.c */
/* check.h: every structure of the search by its validator, and the
 * figures last reported; between runs (no worker runs). */
bool eng_search_is_valid(const eng_search *s);
void eng__edges_flush(eng_search *s);
bool eng__admit(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t known);
/* One verdict of a frontend's check() on a state (property, message). */
typedef struct eng_verdict {
	const char *property, *message;
} eng_verdict;
/* Admit a successor the bulk admission (parallel.c) already numbered: id
 * in the set, fresh when this successor is the one that added it.  v/nv:
 * check()'s verdicts on a fresh state, judged ahead on a worker (v NULL:
 * none). */
bool eng__admit_placed(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t id,
		       bool fresh, const eng_verdict *v, size_t nv);
void eng__add_pending(eng_search *s, uint32_t state, uint32_t parent, const char *label,
		      eng_fp fp, const char *property, const char *message);
void eng__flush_pending(eng_search *s);
/* eng_search_trace(), and when it returns NULL, where re-deriving the
 * trace lost it (eng_violation.trace_lost_at). */
eng_trace *eng__search_trace(eng_search *s, uint32_t id, size_t *lost_at);
void eng__fail(eng_search *s, const char *what);
void eng__tick(eng_search *s);

/* Expand one state and admit its successors at once, as the one-thread
 * search does (level.c's fallback). */
void eng__expand_now(eng_search *s, uint32_t id, uint32_t depth, const void *state, size_t len);

/* level.c: breadth-first search of a model on o.jobs threads */
bool eng__level_usable(const eng_search *s);
int eng__level_start(eng_search *s);
void eng__level_step(eng_search *s);
void eng__level_free(eng_search *s);
bool eng__level_is_valid(const eng_search *s);

/* defer.c */
void eng__defer_put(eng_search *s, const eng_succ *x, uint32_t depth);
/* Admit them in order until one says stop; false then. */
bool eng__defer_admit(eng_search *s, uint32_t from, uint32_t depth);
void eng__defer_drop(eng_search *s);
void eng__defer_free(eng_search *s);

/* parallel.c: expand a chunk of the frontier on o.jobs threads, then admit
 * every successor in frontier order.  0, or -1 when the frontend cannot be
 * cloned (the caller then runs one state at a time). */
int eng__pool_start(eng_search *s);
/* overlap: expand the next chunk while this one is admitted (false when
 * the caller is about to hand over to the one-thread search). */
void eng__pool_step(eng_search *s, bool overlap);
bool eng__pool_pending(const eng_search *s);
void eng__pool_free(eng_search *s);
/* check.h: the pool's slot rule (parallel.c), between steps; true
 * without a pool. */
bool eng__pool_is_valid(const eng_search *s);

#endif

