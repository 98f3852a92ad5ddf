/*
 * store.h — the public contract of the SQLite store: persistence of runs,
 * states, transitions, observations, violations and allocator status, and
 * the read API through which tui/ and viz/ see them (they issue no SQL).
 *
 * Writing: open a store, begin a run, attach store_listener() to the search,
 * end the run with its status and final statistics.  The writer batches rows
 * in transactions and commits only between two states' expansions, so a
 * killed writer leaves a database whose every committed state has its parent
 * and every committed transition its two ends.
 *
 * Reading: every function takes a run id (store_latest_run() gives the
 * newest).  Strings and arrays handed out are owned by the caller and freed
 * with the matching *_free/_clear function.  Bytes that came from the target
 * (blobs, labels of process operations, fault texts) are untrusted: escape
 * them before they reach a terminal (tui_escape(), tui_json_bytes()).
 *
 * Errors: functions return 0 on success, 1 for "not found" where that can
 * happen, -1 on a database error; store_error() holds the message.  A store
 * that could not be opened returns NULL with the reason in err, and the
 * caller exits 2.  The schema is in store/SCHEMA.md.
 */
#ifndef CMC_STORE_H
#define CMC_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/cmc.h"

#define STORE_SCHEMA_VERSION 9
#define STORE_DEFAULT_PATH "cmc.db"

typedef struct store store;

#define STORE_RAW_NONE ((size_t)-1)

typedef struct store_opts {
	bool readonly;             /* open for reading only (never creates) */
	size_t raw_cap;            /* bytes of a raw snapshot kept; 0: 1 MiB;
	                            * STORE_RAW_NONE: none (the length is kept) */
	size_t state_cap;          /* frontend state bytes kept for --resume; 0: 4096 */
	uint32_t batch_rows;       /* rows per transaction; 0: 50000 */
	double batch_seconds;      /* or this long; 0: 0.5 */
	bool same_thread;          /* write from the search thread, no writer
	                            * thread (see flush.c: for process targets) */
	bool no_rows;              /* a run begun writes no state_rows and
	                            * transition_rows (runs.sql_rows 0); a run
	                            * continued keeps what it began with */
} store_opts;

/* NULL on failure with "DB: what went wrong" in err (exit 2). */
store *store_open(const char *path, const store_opts *o, char *err, size_t errlen);
/* Closes; an unfinished run is left 'running' and later read as interrupted. */
void store_close(store *st);
const char *store_error(const store *st);
const char *store_path(const store *st);

/* ---- writing a run ------------------------------------------------------ */

typedef struct store_run_info {
	const char *kind;          /* "model" or "process" */
	const char *name;          /* model or scenario name */
	const char *source_path;   /* may be NULL */
	const char *source_text;   /* the scenario or model text; may be NULL */
	const char *options;       /* command-line options as text; may be NULL */
	const char *order;         /* "bfs" or "dfs" (resume needs bfs); NULL: bfs */
	const char *const *actions; /* operation names (for "never taken"); may be NULL */
	unsigned n_actions;
	int64_t resumed_from;      /* run this one continues, or 0 */
	const char *space;         /* what decides its state space (runs.space,
	                            * opaque here); may be NULL */
} store_run_info;

/* Begins a run marked 'running'; returns its id, or -1. */
int64_t store_run_begin(store *st, const store_run_info *info);
/* The listener that writes into the run begun last.  Write errors (disk
 * full) are kept: the listener stops writing, calls eng_search_stop() on
 * `stop` when non-NULL, and store_failed() becomes true. */
void store_listener(store *st, eng_search *stop, eng_listener *out);
bool store_failed(const store *st);
/* runs.space of a run (space.c): malloc'd text, or NULL when the run has
 * none (written before it was kept, or by another command). */
char *store_run_space(store *st, int64_t run);
/* Replace it; not while a run is being written.  0, or -1. */
int store_run_set_space(store *st, int64_t run, const char *space);
/* status: "complete", "interrupted", "violation" or "error".  Commits. */
int store_run_end(store *st, const char *status, const eng_stats *final);
/* Make everything the listener was handed so far readable (other handles
 * included): ends the current expansion's record, commits, waits for the
 * writer.  Only between expansions, on the thread driving the search (the
 * workbench calls it after every job).  0, or -1 when the store has failed
 * (store_error() says why); without a run begun it does nothing. */
int store_sync(store *st);

/*
 * What --resume trusts.  runs.expanded_below = E promises that every state
 * with id < E had all its successors admitted by a search, which holds
 * when a breadth-first search hands the listener its expansions in id
 * order.  Two things a driver such as the workbench does break that order
 * and must be announced, on the thread driving the search:
 *  - store_hand_steps(st, true) .. (st, false) around steps by hand
 *    (eng_search_apply, eng_search_expand): their transitions are stored
 *    like any other (a state stepped twice has two edge records, and
 *    store_successors() merges them) but they never move E;
 *  - store_frontier_replaced(st) after eng_search_focus(): states left in
 *    the old frontier may never be expanded, so E stays where it is for
 *    the rest of the run.
 * A resumed run then re-expands from E, which may repeat some stored
 * expansions (their edges are merged on reading) but never skips one.
 */
void store_hand_steps(store *st, bool on);
void store_frontier_replaced(store *st);

/* ---- resume ------------------------------------------------------------- */

/*
 * What a resumed BFS needs: the states stored so far (ids 0..n-1, dense) and
 * the first id not yet expanded; states from there on are the frontier.
 * The writer commits only between expansions, so no stored state at or
 * past the frontier has transitions stored.  A resumed run writes into the
 * same run id.
 */
typedef struct store_resume {
	int64_t run;
	uint32_t n;                /* stored states */
	uint32_t expanded_below;   /* states with id < this are fully expanded */
	eng_fp *fp;                /* n entries */
	eng_fp *raw, *canon;       /* n entries (zero when none) */
	unsigned *obs_flags;       /* n entries: ENG_OBS_EXITED/SIGNALED mark a
	                            * state that has no successors by design */
	uint32_t *parent;          /* n entries (ENG_NO_STATE for initial) */
	uint32_t *depth;           /* n entries */
	void **state;              /* n entries of state bytes (NULL when not kept) */
	size_t *state_len;
	uint64_t transitions;      /* transitions kept */
	uint64_t violations;
	uint32_t n_initial;
	double elapsed_s;          /* time the run had spent so far */
} store_resume;

int store_resume_prepare(store *st, int64_t run, store_resume *out);
void store_resume_clear(store_resume *r);
/* Seed a new search (nothing run on it yet) with the prepared states and
 * frontier, under the run's depth bound.  -1 with err filled on failure. */
int store_resume_search(const store_resume *r, eng_search *s, uint32_t max_depth, char *err,
			size_t errlen);
/* Reopen the run for writing after store_resume_prepare(). */
int store_run_continue(store *st, int64_t run);

/* ---- reading ------------------------------------------------------------ */

typedef struct store_run {
	int64_t id;
	char *kind, *name, *source_path, *options, *version, *order;
	char status[16];           /* as stored; 'running' whose writer is gone
	                            * reads 'interrupted', a 'complete' one a
	                            * bound cut short 'bounded' */
	bool writer_alive;         /* status running and its writer still runs */
	double started, ended;     /* unix seconds; ended 0 while running */
	uint64_t distinct, generated, transitions, violations;
	uint64_t raw_distinct, canon_distinct;
	uint32_t depth;
	double elapsed_s;
	bool complete, bounded;
	int64_t resumed_from;
	uint64_t stored_states, stored_transitions; /* rows in the database */
	uint32_t expanded_below;   /* states with id < this were expanded (all
	                            * of a complete run); one at or past it
	                            * without stored successors never was */
} store_run;

/* Every run, oldest first (stored_states/_transitions as of the last
 * commit; store_run_get() counts them exactly). */
int store_runs(store *st, store_run **out, size_t *n);
void store_runs_free(store_run *r, size_t n);
/* 0 when the store holds no run. */
int64_t store_latest_run(store *st);
int store_run_get(store *st, int64_t run, store_run *out); /* 1: no such run */
void store_run_clear(store_run *r);
/* The stored scenario or model text (caller frees), NULL when absent. */
char *store_run_source(store *st, int64_t run);

enum { STORE_OK = 0, STORE_VIOLATION = 1, STORE_FAULT = 2 };

typedef struct store_state {
	uint32_t id;
	uint32_t parent;           /* ENG_NO_STATE for initial states */
	char *label;               /* operation from parent; NULL for initial */
	uint32_t depth;            /* 1 for initial states */
	eng_fp fp;                 /* the fingerprint that deduplicated it */
	eng_fp raw_fp, canon_fp;   /* zero when the frontend gave none */
	int status;                /* STORE_OK / STORE_VIOLATION / STORE_FAULT */
	unsigned obs_flags;        /* ENG_OBS_* */
	int exit_status, term_signal;
	char *fault;               /* NULL unless a fault */
	uint32_t alloc_checked, alloc_failed; /* allocator invariants (bits) */
	/* Content addresses of the observations (zero: none); read the bytes
	 * with store_blob(). */
	eng_fp raw_blob, canon_blob, reply_blob;
	eng_fp files_blob;         /* the declared state files' summary, one
				      "KIND SIZE HASH PATH" line each (process
				      mode, engine/proc/files.c) */
} store_state;

int store_state_get(store *st, int64_t run, uint32_t id, store_state *out); /* 1: none */
void store_state_clear(store_state *s);
/* The frontend's bytes of a state (a model's state struct), when they were
 * kept (store_opts.state_cap); caller frees.  1: not kept. */
int store_state_bytes(store *st, int64_t run, uint32_t id, uint8_t **data, size_t *len);
void store_states_free(store_state *s, size_t n);

/* The states whose deduplicating, raw or canonical fingerprint starts with
 * `hex` (1 to 32 hex digits, either case; as cmc prints fingerprints), in
 * id order: at most `max` ids into ids, their number in *n.  One pass over
 * the run (well under a second on a million states).  -1 on a bad prefix
 * or a database error (store_error() says which). */
int store_find_fp_prefix(store *st, int64_t run, const char *hex, uint32_t *ids, size_t max,
			 size_t *n);

typedef enum { STORE_BY_DISCOVERY, STORE_BY_DEPTH } store_order;
/*
 * A page of states, ids ascending, at most `limit` rows, starting after id
 * `after` (ENG_NO_STATE: from the first).  STORE_BY_DISCOVERY: all states;
 * STORE_BY_DEPTH: only those at `depth` (read as one run of ids when the
 * run's levels are, else found by a pass over the run: depth-first runs,
 * and runs with states reached by hand or searched from one state).
 */
int store_states_page(store *st, int64_t run, store_order order, uint32_t depth,
		      uint32_t after, size_t limit, store_state **out, size_t *n);
/* Number of states at each depth: counts[d] for d in 1..*maxdepth (caller frees). */
int store_depth_counts(store *st, int64_t run, uint64_t **counts, uint32_t *maxdepth);

typedef struct store_edge {
	uint32_t from, to;
	char *label;
	bool new_state;            /* the edge that discovered `to` (tree edge) */
	eng_fp reply_blob;         /* reply bytes of this step (zero: none) */
} store_edge;

int store_successors(store *st, int64_t run, uint32_t id, store_edge **out, size_t *n);
int store_predecessors(store *st, int64_t run, uint32_t id, store_edge **out, size_t *n);
/* The transitions out of states src_lo <= id < src_hi, in (from, order of
 * generation) order: page through a graph for drawing. */
int store_edges_range(store *st, int64_t run, uint32_t src_lo, uint32_t src_hi,
		      store_edge **out, size_t *n);
void store_edges_free(store_edge *e, size_t n);

/* A path from an initial state: states[0] is initial, labels[i] / fps[i]
 * describe the step into states[i + 1] (len steps, len + 1 states). */
typedef struct store_trace {
	size_t len;
	uint32_t *states;
	char **labels;
	eng_fp *fps;               /* fingerprint after each step */
	eng_fp init_fp;
} store_trace;

/* The shortest (BFS tree) trace to a state. */
int store_trace_to(store *st, int64_t run, uint32_t id, store_trace *out);
void store_trace_clear(store_trace *t);

typedef struct store_violation {
	int64_t id;                /* unique in the database */
	int64_t run;
	char *property, *message;
	uint32_t state;            /* ENG_NO_STATE when the trace reaches no stored state */
	/* The violating transition source --label--> target (schema 4; a
	 * violation of a state, a random walk's, or one written before:
	 * source ENG_NO_STATE, label NULL).  target is ENG_NO_STATE when the
	 * step produced no stored state (an action that failed). */
	uint32_t source, target;
	char *label;
	store_trace trace;         /* as the engine reported it (states unknown:
	                            * ENG_NO_STATE entries) */
} store_violation;

int store_violations(store *st, int64_t run, store_violation **out, size_t *n);
int store_violation_get(store *st, int64_t id, store_violation *out); /* 1: none */
void store_violation_clear(store_violation *v);
void store_violations_free(store_violation *v, size_t n);

/* Observation bytes by content address (caller frees *data).  *full_len is
 * the length before the raw cap cut it.  1: no such blob. */
int store_blob(store *st, eng_fp hash, uint8_t **data, size_t *len, size_t *full_len);

/* Operations (actions) of a run that no stored transition takes. */
int store_never_taken(store *st, int64_t run, char ***names, size_t *n);
void store_strings_free(char **s, size_t n);

/* ---- raw against canonical ---------------------------------------------- */

/*
 * A canonical state and its raw variants.  The canonical identity of a
 * state is its canonical fingerprint, or its deduplicating fingerprint when
 * it has none (models); the raw identity likewise with the raw fingerprint.
 */
typedef struct store_canon_group {
	eng_fp canon;
	size_t n_states;           /* stored states with this canonical identity */
	size_t n_raw;              /* distinct raw identities among them */
	uint32_t *states;          /* one representative state per raw variant */
	eng_fp *raw;               /* n_raw entries */
} store_canon_group;

typedef struct store_compare {
	uint64_t states, raw_distinct, canon_distinct;
	double merge_factor;       /* raw_distinct / canon_distinct */
	store_canon_group *groups; /* canonical states, by first discovery */
	size_t n_groups;
} store_compare;

int store_compare_run(store *st, int64_t run, store_compare *out);
void store_compare_clear(store_compare *c);

/* ---- comparing two runs ------------------------------------------------- */

typedef struct store_diff_side {
	uint32_t *states;          /* a representative state of each canonical
	                            * state this run reached and the other did not */
	eng_fp *canon;
	size_t n;
} store_diff_side;

typedef struct store_diff {
	store_diff_side only_a, only_b;
	/* The first transition (in A's BFS order) where the graphs part: from
	 * the state pair (from_a, from_b), which share a canonical identity,
	 * `label` leads to different canonical states (to_a / to_b; ENG_NO_STATE
	 * when that run has no such step; from_a = ENG_NO_STATE: an initial
	 * state of one run is not one of the other's).  parted false: the
	 * graphs do not part. */
	bool parted;
	uint32_t from_a, from_b, to_a, to_b;
	char *label;
} store_diff;

int store_diff_runs(store *st, int64_t a, int64_t b, store_diff *out);
void store_diff_clear(store_diff *d);

#endif
