/*
 * cmc.h — the public contract of libcmc, the search engine.
 *
 * The engine explores a transition system it knows only through a frontend
 * (struct eng_frontend): the frontend hands out initial states and, for a
 * state, its successors, each with an action label, the successor's opaque
 * state bytes and the fingerprint that identifies it.  Step-function models
 * (cmc_model.h) and the process executor are two frontends; the search loop
 * knows nothing else about where states come from.
 *
 * What the engine explores it reports to listeners (struct eng_listener):
 * the store is one, the progress display another.  Nothing here knows about
 * SQLite, ncurses or Graphviz.
 *
 * State ids are dense, assigned in discovery order from 0; the initial states
 * come first.  Every state keeps its fingerprint and the id of the parent it
 * was first reached from, so the shortest (BFS) trace to any state can be
 * rebuilt by walking parents and re-deriving each step's label.
 */
#ifndef CMC_ENGINE_H
#define CMC_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMC_VERSION "0.1.0"

/* What libcmc exports: the engine is compiled with hidden visibility and
 * the installed libcmc.a keeps only the functions marked CMC_API (this
 * header's), so its other globals cannot clash with a user's. */
#define CMC_API __attribute__((visibility("default")))

/* ---- fingerprints ------------------------------------------------------ */

/* An XXH3-128 fingerprint.  The all-zero value means "absent". */
typedef struct eng_fp {
	uint64_t hi, lo;
} eng_fp;

CMC_API eng_fp eng_fp_of(const void *data, size_t len);
CMC_API eng_fp eng_fp_combine(eng_fp a, eng_fp b); /* identity of a pair (a, b) */
static inline bool eng_fp_eq(eng_fp a, eng_fp b) { return a.hi == b.hi && a.lo == b.lo; }
static inline bool eng_fp_zero(eng_fp a) { return (a.hi | a.lo) == 0; }
/* 32 lowercase hex digits and a NUL into buf (33 bytes). */
CMC_API char *eng_fp_hex(eng_fp fp, char buf[33]);

#define ENG_NO_STATE UINT32_MAX

/* ---- observations (process mode; models leave them NULL) --------------- */

enum {
	ENG_OBS_CANON = 1u << 0,      /* a canonical record was received */
	ENG_OBS_RAW_OVER = 1u << 1,   /* raw window exceeded its cap (reported) */
	ENG_OBS_EXITED = 1u << 2,     /* target exited: exit_status is valid */
	ENG_OBS_SIGNALED = 1u << 3,   /* target died on a signal: term_signal */
	ENG_OBS_FAULT = 1u << 4,      /* fault (hang, flood, start-up failure): fault */
	ENG_OBS_ALLOC = 1u << 5,      /* allocator status fields are valid */
	ENG_OBS_CLOSED = 1u << 6,     /* tcp: the target closed the connection (no
	                                 operation can reach it any more) */
};

/*
 * What a frontend saw after an operation.  All pointers are owned by the
 * frontend and valid only for the duration of the callback that carries them;
 * a listener that keeps bytes copies them.  Every byte here came from the
 * target and is untrusted: bounded by the frontend, escaped by whoever prints.
 */
typedef struct eng_obs {
	eng_fp raw;                 /* raw heap/segment fingerprint (zero: none) */
	eng_fp canon;               /* canonical record fingerprint (zero: none) */
	const uint8_t *raw_bytes;   /* raw snapshot, capped; may be NULL */
	size_t raw_len;
	const uint8_t *canon_rec;   /* last complete canonical record; may be NULL */
	size_t canon_len;
	const uint8_t *reply;       /* bytes the target replied to this operation */
	size_t reply_len;
	unsigned flags;             /* ENG_OBS_* */
	int exit_status;            /* valid with ENG_OBS_EXITED */
	int term_signal;            /* valid with ENG_OBS_SIGNALED */
	const char *fault;          /* human text for ENG_OBS_FAULT, else NULL */
	uint32_t alloc_failed;      /* bitmask of failing allocator invariants */
	uint32_t alloc_checked;     /* bitmask of allocator invariants evaluated */
	eng_fp files;               /* the declared state files' contents (zero: none
				       declared; process mode's state-file/state-dir) */
	const uint8_t *files_sum;   /* their summary, one text line a file; may be NULL */
	size_t files_len;
} eng_obs;

/* ---- the frontend interface -------------------------------------------- */

/*
 * One successor (or initial state) handed from a frontend to the engine.
 * `label` names the step in a trace ("FillBig", "INS 1"); it must identify
 * the successor among its siblings so that a trace of labels replays.
 * `state` is copied by the engine before the callback returns.
 * `violation`, when non-NULL, is an assertion that failed inside the action
 * (or a built-in process property such as a crash); `property` names it.
 * It is the frontend's verdict on this transition, so the search judges it
 * on every transition it is given, whether the successor is new, was seen
 * before, or lies past the state bound; the process frontend reports here
 * everything it judges (reply, exit status, crash and faults, allocator
 * status, leaks, plugins), as each reads this operation's observation or
 * the path taken, which differ between transitions into the same state.
 */
typedef struct eng_succ {
	const char *label;
	const void *state;
	size_t state_len;
	eng_fp fp;                  /* the identity that deduplicates */
	const eng_obs *obs;         /* NULL for models */
	const char *property;       /* violated property name, or NULL */
	const char *violation;      /* its message, or NULL */
	bool terminal;              /* no successors by design (target exited) */
	/* Optional (NULL), for a frontend that keeps something live per
	 * successor (a fork snapshot): it sets *wanted true before the
	 * callback, the engine sets it false when the successor will never be
	 * expanded (a state seen before, or one the bounds leave unexpanded),
	 * so the frontend can let go of it at once.  A hint: a successor left
	 * true may still never be expanded. */
	bool *wanted;
} eng_succ;

/* Returns false to ask the frontend to stop producing successors. */
typedef bool (*eng_succ_fn)(void *ctx, const eng_succ *s);
/* A frontend's invariant check reports each violated property here. */
typedef void (*eng_bad_fn)(void *ctx, const char *property, const char *message);

typedef struct eng_frontend eng_frontend;
struct eng_frontend_ops {
	const char *kind;          /* "model", "process" */
	/* Emit every initial state.  Returns 0, or -1 on a frontend error
	 * (message available through last_error). */
	int (*initial)(eng_frontend *fe, eng_succ_fn fn, void *ctx);
	/* Emit every successor of `state`.  Returns 0 or -1 as above. */
	int (*next)(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx);
	/* Emit the successors of one action only (stepping by hand); NULL means
	 * the engine filters next() by label. */
	int (*apply)(eng_frontend *fe, const void *state, size_t len, const char *label,
		     eng_succ_fn fn, void *ctx);
	/* Check the state invariants of a newly found state; may be NULL.
	 * Called once per state, when it is new: what it reports must be a
	 * function of what the fingerprint identifies (a model's state bytes),
	 * never of the transition that reached it, which goes in eng_succ's
	 * property/violation instead. */
	void (*check)(eng_frontend *fe, const void *state, size_t len, const eng_obs *obs,
		      eng_bad_fn bad, void *ctx);
	/* Labels of the actions this frontend can take (for menus); may be NULL. */
	unsigned (*n_actions)(eng_frontend *fe);
	const char *(*action_name)(eng_frontend *fe, unsigned i);
	/* Print a state for humans (one line or a few); may be NULL. */
	void (*print)(eng_frontend *fe, const void *state, size_t len, FILE *out);
	/* Text of the last error, or NULL. */
	const char *(*last_error)(eng_frontend *fe);
	void (*destroy)(eng_frontend *fe);
	/* A frontend for another worker thread (--jobs): it must give the
	 * same successors as fe, and may be fe itself when fe is safe to call
	 * from several threads at once.  NULL: the frontend is single-threaded
	 * and the search runs one job.  The search destroys clones that are not
	 * fe. */
	eng_frontend *(*clone)(eng_frontend *fe);
	/* A successor next() emitted that the search will never expand: a
	 * duplicate that only its admission found (--jobs: a successor of
	 * another state in the same chunk), or one past the bounds.  The
	 * frontend may let go of what it keeps for it.  Called on the
	 * search's thread with its own fe, while no worker runs; may be NULL. */
	void (*forget)(eng_frontend *fe, const void *state, size_t len);
};

/* Frontends embed this as their first member. */
struct eng_frontend {
	const struct eng_frontend_ops *ops;
	bool deadlock_ok;          /* states without successors are fine */
	const char *name;          /* model or scenario name, for reports */
};

/* ---- traces ------------------------------------------------------------- */

/* A sequence of action labels from an initial state.  Owns its strings. */
typedef struct eng_trace {
	size_t len;
	char **labels;
	eng_fp *fps;               /* fingerprint after each step (len entries) */
	eng_fp init_fp;            /* fingerprint of the initial state */
} eng_trace;

CMC_API void eng_trace_free(eng_trace *t);

/* ---- search ----------------------------------------------------------- */

typedef enum { ENG_BFS, ENG_DFS } eng_order;

typedef struct eng_opts {
	eng_order order;
	uint32_t max_depth;        /* 0: unbounded; depth counts levels, init = 1 */
	uint64_t max_states;       /* 0: unbounded (distinct states) */
	bool keep_going;           /* report every violation, do not stop at first */
	bool check_deadlock;       /* deadlock is a violation unless fe->deadlock_ok */
	size_t mem_limit;          /* bytes for the visited set; 0: no limit */
	double progress_interval;  /* seconds between progress ticks; 0: 0.25 */
	unsigned jobs;             /* worker threads expanding states; 0 or 1:
				    * one.  Breadth-first only; the results
				    * (ids, counts, traces, listener calls and
				    * their order) do not depend on it. */
	bool jobs_auto;            /* jobs is a default, not a request: the
				    * search measures threads against one
				    * thread for a moment and keeps the
				    * faster (search.c, pool_wins) */
} eng_opts;

CMC_API void eng_opts_default(eng_opts *o);

/* Final and running counts, counted as TLC counts them (engine/search.c
 * keeps them; the TLC and SPIN comparisons are tests/t0050, t0150). */
typedef struct eng_stats {
	uint64_t distinct;         /* distinct states, initial ones included */
	uint64_t generated;        /* initial states + every successor produced */
	uint64_t transitions;      /* successors produced (generated - initial) */
	uint32_t depth;            /* BFS levels, initial states = level 1 */
	uint64_t frontier;         /* states waiting to be expanded */
	uint64_t frontier_max;
	uint64_t violations;
	uint64_t raw_distinct;     /* distinct raw fingerprints (process mode) */
	uint64_t canon_distinct;   /* distinct canonical fingerprints */
	double elapsed_s;
	double states_per_s;       /* distinct / elapsed */
	double transitions_per_s;
	size_t set_bytes;          /* memory held by the visited set */
	double collision_p;        /* expected fingerprint collision probability */
	bool complete;             /* explored everything within the bounds */
	bool bounded;              /* a depth or state bound cut the search */
	bool stopped;              /* stopped by eng_search_stop() */
	bool out_of_memory;        /* visited set could not grow */
} eng_stats;

/*
 * A violation belongs to a transition (from --label--> to) or, for a
 * deadlock or an initial state, to a state; a state invariant (check())
 * names the transition that found its state.  Its trace is the shortest
 * trace to `from` followed by `label`: when `to` was seen before, its own
 * shortest trace may be another, shorter one that never takes the
 * violating step.
 */
typedef struct eng_violation {
	const char *property;      /* "invariant:TypeOK", "deadlock", "assert", ... */
	const char *message;
	uint32_t state;            /* state id where it holds: the transition's
				    * target, or its source when the step
				    * produced no state the search kept (an
				    * action that failed, a successor past
				    * the state bound); ENG_NO_STATE: none */
	const eng_trace *trace;    /* the trace described above; NULL when the
				    * frontend could not reproduce it */
	uint32_t from;             /* the transition's source; ENG_NO_STATE when
				    * the violation is a state's (deadlock,
				    * an initial state) or a random walk's */
	const char *label;         /* the transition's label (NULL: from is none) */
	uint32_t to;               /* its target (ENG_NO_STATE: none kept) */
	size_t trace_lost_at;      /* trace NULL: where re-deriving it found the
				    * frontend's successors differed from
				    * the first time (the target did not
				    * repeat itself): 0 its initial state,
				    * i after the i-th step */
} eng_violation;

typedef struct eng_state_info {
	uint32_t id;
	uint32_t parent;           /* ENG_NO_STATE for initial states */
	const char *label;         /* action from parent (NULL for initial) */
	uint32_t depth;            /* 1 for initial states */
	eng_fp fp;
	const void *state;
	size_t state_len;
	const eng_obs *obs;        /* may be NULL */
	bool bad;                  /* a property fails here */
} eng_state_info;

/* One transition as on_edges() reports it. */
typedef struct eng_edge {
	uint32_t to;
	bool new_state;            /* `to` was discovered by this transition */
	const char *label;
	const eng_obs *obs;        /* may be NULL */
} eng_edge;

/*
 * Listeners: every callback may be NULL.  They run on the search thread;
 * they must not call back into the search except eng_search_stop().
 *
 * Transitions come one call each through on_transition(), right after the
 * on_state() of the state they discover, or, to a listener that sets
 * on_edges() instead, several at once: consecutive transitions out of one
 * state, in the order generated, after the on_state() calls of the states
 * they discover and before the state is expanded again or the search
 * returns.  One expansion may arrive in several calls.  Per-transition
 * calls cost a listener that does little per call more than its own work.
 *
 * A label pointer a listener is given (eng_state_info.label, on_edges(),
 * on_transition()) keeps its text until the search is freed: listeners may
 * key what they know of a label by the pointer.  Different pointers may
 * still hold the same text.
 */
typedef struct eng_listener {
	void (*on_state)(void *ctx, const eng_state_info *s);
	/* n more distinct states at depth `depth`, in the order of their ids
	 * (so depths never decrease): for a listener that only counts the
	 * states of each depth, instead of an on_state() call each.  Several
	 * states may come in one call (a threaded search tells a segment's
	 * at once, and then need not build what on_state() is given). */
	void (*on_depth)(void *ctx, uint32_t depth, uint64_t n);
	void (*on_transition)(void *ctx, uint32_t from, uint32_t to, const char *label,
			      const eng_obs *obs, bool new_state);
	void (*on_edges)(void *ctx, uint32_t from, const eng_edge *e, size_t n);
	void (*on_violation)(void *ctx, const eng_violation *v);
	void (*on_progress)(void *ctx, const eng_stats *st);
	void (*on_done)(void *ctx, const eng_stats *st);
	void *ctx;
	/* This listener never reads an observation's bytes (raw_bytes,
	 * canon_rec, reply, fault, files_sum).  When no listener reads them
	 * the search does not carry them at all (raw heaps run to a megabyte
	 * a successor): every listener then gets them NULL, lengths 0, on any
	 * number of jobs.  Fingerprints and flags always come. */
	bool no_obs_bytes;
} eng_listener;

typedef struct eng_search eng_search;

/* The search does not own the frontend. */
CMC_API eng_search *eng_search_new(eng_frontend *fe, const eng_opts *o);
CMC_API void eng_search_free(eng_search *s);
CMC_API void eng_search_listen(eng_search *s, const eng_listener *l);

/*
 * Run until the frontier is empty, a bound or violation stops it, or
 * eng_search_stop() is called.  Returns 0 when done without error, -1 on a
 * frontend error or out of memory (eng_search_error() says which).
 * Calling it again continues from where it stopped.
 */
CMC_API int eng_search_run(eng_search *s);
CMC_API void eng_search_stop(eng_search *s);   /* async-signal-safe */
CMC_API const char *eng_search_error(const eng_search *s);
CMC_API const eng_stats *eng_search_stats(eng_search *s);

/* Seed the search with the initial states (done by run() if not yet). */
CMC_API int eng_search_init(eng_search *s);
/* Step by hand: expand one state now (its successors join the graph and,
 * when new, the frontier).  Returns the number of successors or -1. */
CMC_API int eng_search_expand(eng_search *s, uint32_t id);
/* Apply one action to a state; *out gets the successor's id. */
CMC_API int eng_search_apply(eng_search *s, uint32_t id, const char *label, uint32_t *out);
/* Make the next run() start its frontier from this state alone. */
CMC_API int eng_search_focus(eng_search *s, uint32_t id);

/*
 * Restoring a search saved elsewhere (the store's --resume).  Call before
 * anything else on a new search: first every state in id order (ids are
 * given back in that order, starting at 0; the return value is the id, or
 * ENG_NO_STATE when out of memory), then the frontier states with their
 * bytes, then the counts reached.  raw/canon may be zero.  After this,
 * eng_search_run() continues where the saved search stopped.
 */
CMC_API uint32_t eng_search_restore_state(eng_search *s, eng_fp fp, uint32_t parent, uint32_t depth,
				  eng_fp raw, eng_fp canon);
CMC_API void eng_search_restore_frontier(eng_search *s, uint32_t id, uint32_t depth, const void *state,
				 size_t len);
CMC_API void eng_search_restore_stats(eng_search *s, uint64_t generated, uint64_t transitions,
			      uint64_t violations, double elapsed_s);

/* The frontend the search runs on. */
CMC_API eng_frontend *eng_search_frontend(eng_search *s);

/* Per-state read access. */
CMC_API uint64_t eng_search_count(const eng_search *s);
CMC_API eng_fp eng_search_fp(const eng_search *s, uint32_t id);
CMC_API uint32_t eng_search_parent(const eng_search *s, uint32_t id);
CMC_API uint32_t eng_search_lookup(const eng_search *s, eng_fp fp); /* ENG_NO_STATE */
/* Rebuild the shortest known trace to a state (caller frees). */
CMC_API eng_trace *eng_search_trace(eng_search *s, uint32_t id);
/* Rebuild the state bytes of a state by replaying its trace (caller frees). */
CMC_API void *eng_search_state(eng_search *s, uint32_t id, size_t *len);

/* ---- step-function models (cmc_model.h) ------------------------------ */

struct cmc_model;
/* A frontend over a model; the model must outlive it.  Destroy with
 * fe->ops->destroy(fe). */
CMC_API eng_frontend *eng_model_frontend(const struct cmc_model *m);
/* dlopen a shared object defining cmc_model_entry(); NULL with err filled
 * when it cannot be loaded or its metadata is not sane. */
CMC_API const struct cmc_model *eng_model_load(const char *path, char *err, size_t errlen);
/* Check a model's metadata (built-in or loaded); 0 or -1 with err. */
CMC_API int eng_model_validate(const struct cmc_model *m, char *err, size_t errlen);

/* ---- simulation and replay -------------------------------------------- */

typedef struct eng_sim_opts {
	uint64_t walks;
	uint32_t depth;            /* steps per walk */
	uint64_t seed;
	bool keep_going;
	/* Nonzero (set once the user's signal arrives, say): stop after the step in
	 * progress; the stats say stopped, not complete.  NULL: never. */
	const volatile sig_atomic_t *stop;
} eng_sim_opts;

/* Random walks: the same seed gives the same walks.  Violations go to the
 * listeners with their walk as trace; stats count steps as transitions.
 * Returns 0, or -1 on a frontend error. */
CMC_API int eng_simulate(eng_frontend *fe, const eng_sim_opts *o, const eng_listener *ls,
		 size_t nls, eng_stats *out);

/*
 * Replay: re-execute a trace of labels and judge it as the search would.
 *
 * From the initial state the options select (by index, else the one whose
 * fingerprint is trace->init_fp, else the first), each label is taken in
 * turn (through apply() when the frontend has it).  Every state reached,
 * the initial one included, is judged exactly as eng_search judges a new
 * state: the violation a successor carries (an assertion that failed in
 * the action, a process property or fault) and the frontend's check();
 * after the last step, a state with no successor is a deadlock unless
 * check_deadlock is off or the frontend allows it.  Replay stops at the
 * first step where a property fails (as a search without --keep-going
 * does) and at the first label that cannot be taken.
 */
typedef enum eng_step_outcome {
	ENG_STEP_MATCHED,    /* reached the recorded fingerprint */
	ENG_STEP_UNRECORDED, /* taken; no fingerprint was recorded to compare */
	ENG_STEP_DIVERGED,   /* taken, but reached another fingerprint */
	ENG_STEP_NOT_TAKEN,  /* no successor has this label here (or no
			      * initial state has the recorded fingerprint) */
	ENG_STEP_ERROR,      /* the frontend failed (last_error says why) */
} eng_step_outcome;

/* One step as replayed, handed to eng_replay_opts.fn after the frontend
 * returned; every pointer is valid only during the call. */
typedef struct eng_replay_step {
	size_t step;                /* 0: the initial state; i: after the i-th label */
	const char *label;          /* NULL for the initial state */
	eng_step_outcome outcome;
	eng_fp expected;            /* what the trace recorded (zero: nothing) */
	const eng_succ *succ;       /* what was reached (state NULL when the
				     * action failed); NULL when not taken */
	size_t nviolated;           /* properties that fail here */
	const char *const *property;
	const char *const *message;
	bool fault;                 /* the target ended abnormally here (a
				     * signal or an ENG_OBS_FAULT) */
} eng_replay_step;

typedef void (*eng_replay_fn)(void *ctx, const eng_replay_step *s);

typedef struct eng_replay_opts {
	long init_index;            /* >= 0: the Nth initial state (from 0, in
				     * the order initial() gives them) */
	bool check_deadlock;        /* as eng_opts.check_deadlock */
	const char *expect;         /* when several properties fail at one step,
				     * report this one if it is among them; NULL */
	eng_replay_fn fn;           /* per step; may be NULL */
	void *ctx;
} eng_replay_opts;

CMC_API void eng_replay_opts_default(eng_replay_opts *o);

/* What a replay came to.  Steps are numbered as in eng_replay_step. */
typedef struct eng_replay_result {
	size_t taken;               /* labels taken */
	size_t diverged;            /* first step whose fingerprint differs from
				     * the recorded one, or that could not be
				     * taken; SIZE_MAX: none */
	eng_step_outcome how;       /* at `diverged` */
	eng_fp expected, actual;    /* at `diverged` (actual zero: not taken) */
	size_t violated;            /* the step where a property failed;
				     * SIZE_MAX: none */
	char property[128];
	char message[512];
	bool fault;                 /* the violation is the target faulting */
	bool error;                 /* the frontend failed (at `diverged`) */
	char why[512];              /* the divergence or error, for humans */
} eng_replay_result;

/* Returns 0, or -1 when the frontend failed (r->error, r->why). */
CMC_API int eng_replay(eng_frontend *fe, const eng_trace *t, const eng_replay_opts *o,
	       eng_replay_result *r);

/* Probability that two of `distinct` states share a fingerprint (the
 * birthday bound, engine/fp.c): distinct * (distinct - 1) / 2 / 2^128;
 * 0 below two states. */
CMC_API double eng_collision_p(uint64_t distinct);

#endif
