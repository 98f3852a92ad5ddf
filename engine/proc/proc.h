/*
 * proc.h — process mode as an engine frontend: a scenario file names a target
 * program, its transport and operations; the executor runs it under the
 * preload and turns each operation into an observation.
 */
#ifndef CMC_PROC_H
#define CMC_PROC_H

#include <sys/types.h>

#include "engine/cmc.h"

/*
 * Parse the scenario at `path` and build its frontend.  The scenario's bounds
 * (depth, states) are written into *opts (which the caller has defaulted and
 * may override afterwards).  On a bad scenario returns NULL with
 * "file:line: what was expected" in err; the caller exits 2.
 */
eng_frontend *proc_open(const char *path, eng_opts *opts, char *err, size_t errlen);

/*
 * Override a scenario setting from the command line (key as in the scenario
 * file: "hash", "merge", "timeout", "depth", ...), before the search starts.
 * "depth" and "states" are written into the eng_opts given to proc_open(),
 * which must still be the caller's live options.  Returns 0, or -1 with err
 * filled.
 */
int proc_override(eng_frontend *fe, const char *key, const char *value, char *err,
		  size_t errlen);

/*
 * What a trace may do with the operation labelled `label`: PROC_OP_REPEAT
 * (any number of times), PROC_OP_ONCE (at most once along a trace),
 * PROC_OP_EOF (closes the input: at most once, and nothing follows it);
 * -1 when fe has no such operation.  For the workbench, which offers the
 * operations not taken yet from a state and must not offer one the trace
 * has used up.
 */
enum { PROC_OP_REPEAT, PROC_OP_ONCE, PROC_OP_EOF };
int proc_op_kind(eng_frontend *fe, const char *label);

/*
 * After the run has started: how states were merged, "merge canonical",
 * "merge raw" or "merge raw+canonical", for the summary and --json (a
 * fallback to raw was said once on stderr).  NULL before the target first
 * ran.
 */
const char *proc_info(eng_frontend *fe);

/* Does the scenario declare state files (`state-file`, `state-dir`), part
 * of every state's identity besides its heap? */
bool proc_state_files(eng_frontend *fe);

/*
 * How the run's targets are contained (share/scenario.md, "Containment"):
 * "pid namespace" (nothing a target starts outlives the run), or "process
 * group (why not a namespace)" when cmc could not make one (not root).
 * Meaningful once the first target has started.
 */
const char *proc_containment(eng_frontend *fe);

/*
 * Async-signal-safe: make every process-mode wait in progress or to come
 * return at once (the executor then fails with "interrupted"), so a
 * SIGINT/SIGTERM handler that also calls eng_search_stop() is not held up by
 * a target that hangs until its timeout.  Not undone: call it when cmc is
 * ending.
 */
void proc_interrupt(void);

/*
 * SIGINT, SIGTERM and SIGHUP (sigsrc.c).  proc_signals_open(), from the
 * main thread before any other thread exists: block them there (every
 * later thread inherits the mask), read them from a signalfd, and start a
 * thread that drains it as soon as one arrives.  One sent by one of cmc's
 * targets (a child of cmc, a descendant of one, or a process in one of its
 * jails) becomes a `signal` fault of the operation that sent it; for any
 * other (the user's, or one whose sender was gone before it could be
 * looked at) user(sig) is called, from whichever thread drained it, one
 * call at a time.  A second call replaces user.  Dies if it cannot.
 */
void proc_signals_open(void (*user)(int sig));
/* Read and dispatch every pending one now (proc_signal_take() does). */
void proc_signals_drain(void);

/*
 * The heap graph of one state as `hash heap-graph` walks it
 * (heapgraph.c; share/scenario.md "Heap-graph hashing"), for pictures and
 * tables: while proc_hg_record(t) is set, every walk overwrites *t, so
 * after replaying a trace t holds its last state's graph.  Set it only
 * while one thread drives the frontend (a replay), and NULL it after.
 * Blocks are numbered from 1 in walk order: blocks[k] is block k + 1.
 * Edges are the words taken as pointers, in walk order (roots first, then
 * blocks, words in address order).  have is false when the last walk made
 * no form (why says why) or none ran.
 */
typedef struct proc_hg_region {
	uint64_t addr;              /* in the target */
	uint64_t len;               /* bytes (a block's requested size) */
} proc_hg_region;
typedef struct proc_hg_edge {
	uint32_t from;              /* block number; 0: a root */
	uint32_t root;              /* from == 0: index into roots */
	uint64_t off;               /* the pointer word's offset in its block or root */
	uint32_t to;                /* the block pointed at */
	uint64_t to_off;            /* the offset into it pointed at */
} proc_hg_edge;
typedef struct proc_hg_table {
	bool have;
	char why[200];
	uint64_t live;              /* live blocks in the pool (reached or not) */
	proc_hg_region *roots;
	size_t n_roots;
	proc_hg_region *blocks;     /* the reached blocks */
	size_t n_blocks;
	proc_hg_edge *edges;
	size_t n_edges, edge_cap;
} proc_hg_table;
void proc_hg_record(proc_hg_table *t);
void proc_hg_table_clear(proc_hg_table *t);

#endif
