/*
 * viz.h — the public contract of the Graphviz renderer: pictures of what a
 * stored run explored.  Everything is read through the store's read API
 * (store.h); graphs are built with cgraph and laid out and rendered with gvc
 * (no DOT text by hand, no `dot` process).  The output format follows the
 * file name: .svg, .png, .pdf, or .dot (the graph itself, written by cgraph,
 * with the chosen layout engine recorded in its `layout` attribute).
 *
 * Pictures never take unbounded time: past a node budget the renderer
 * switches to sfdp or reduces the graph (depth cut, collapse by canonical
 * state, summary by BFS level) and says what it did in the picture's caption
 * and in viz_result.reduction (the caller prints it on stderr).
 *
 * Node names in the output are stable so tools can read pictures back:
 * "sID" for a state, "cK" for a collapsed canonical state, "LD" for a BFS
 * level of a summary, "legend" for the legend.  Edges between "s" nodes are
 * stored transitions, one per transition (parallel edges kept).
 *
 * Errors: functions return 0, or -1 with a message naming the input and what
 * was expected in err (the caller exits 2).
 */
#ifndef CMC_VIZ_H
#define CMC_VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Nodes dot lays out before the renderer switches to sfdp (dot takes ~3 s at
 * 1,000 state-graph nodes here). */
#define VIZ_DEFAULT_BUDGET 600
/* sfdp takes over up to this many times the budget; past it the graph is
 * reduced to fit the budget. */
#define VIZ_SFDP_FACTOR 8

/* A renderer: owns the process's one gvContext.  Create once, reuse. */
typedef struct viz viz;
viz *viz_new(void);
void viz_free(viz *v);

typedef struct viz_graph_opts {
	int64_t run;               /* 0: the latest run */
	uint32_t budget;           /* 0: VIZ_DEFAULT_BUDGET */
	int64_t violation;         /* highlight its trace (violation id); 0: none */
	bool around_set;           /* draw the neighbourhood of `around` ... */
	uint32_t around;
	uint32_t radius;           /* ... up to `radius` steps either way */
	uint32_t depth;            /* only the first `depth` BFS levels; 0: all */
	bool raw_vs_canonical;     /* one cluster per canonical state */
	const char *layout;        /* force "dot" or "sfdp"; NULL: by budget */
	bool summary;              /* force the summary by BFS level */
} viz_graph_opts;

typedef struct viz_result {
	uint64_t nodes;            /* state nodes drawn ("sID") */
	uint64_t edges;            /* transition edges drawn between them */
	uint64_t clusters;         /* canonical clusters (raw vs canonical) */
	uint64_t trace_edges;      /* edges highlighted as the counterexample */
	char layout[8];            /* "dot" or "sfdp" */
	char reduction[256];       /* what was left out and why; "" for nothing */
} viz_result;

/* Draw the state graph of a run into `path`. */
int viz_graph(viz *v, store *st, const viz_graph_opts *o, const char *path, viz_result *res,
	      char *err, size_t errlen);

/* ---- the allocator at one state ------------------------------------------ */

/*
 * What is known about the allocator at a state.  The store is the source:
 * the per-state invariant bits (ENG_OBS_ALLOC) and the raw snapshot.  The
 * chunk layout is decoded from the raw snapshot by the decoder that matches
 * the allocator (viz/heap_source.c); while none is known, n_chunks is 0 and
 * `why_no_chunks` says so.
 */
/* POISONED: freed and poisoned (an allocator that can tell it from never
 * used); BROKEN: a free slot whose poison was written (write after free);
 * OVERRUN: a live block whose redzone was written (overflow).  The pool
 * poisons with the fresh-page byte, so its free slots are all FREE. */
enum { VIZ_SLOT_FREE, VIZ_SLOT_LIVE, VIZ_SLOT_POISONED, VIZ_SLOT_BROKEN, VIZ_SLOT_OVERRUN,
       VIZ_SLOT_UNKNOWN };
enum { VIZ_CHUNK_CLASS = 1, VIZ_CHUNK_LARGE, VIZ_CHUNK_HUGE };
/* One character per slot state, as the text chunk maps draw them:
 * '#' live, '.' free, 'p' poisoned, 'x' broken, '!' overrun, '?' unknown. */
char viz_slot_char(uint8_t state);

typedef struct viz_chunk {
	uint64_t offset;           /* of the chunk in the raw window */
	uint32_t size_class;       /* bytes per slot */
	uint32_t n_slots, n_live;  /* header fields as stored in the chunk */
	uint64_t magic;
	uint8_t *slot;             /* n_slots entries VIZ_SLOT_* */
	bool header_bad;           /* a failing invariant points at the header */
	uint32_t bad_slot;         /* slot a failing invariant points at, or UINT32_MAX */
	/* The pool decoder's: where the chunk sits in its unit table. */
	uint32_t unit;             /* head unit index */
	int kind;                  /* VIZ_CHUNK_*, as the unit table says */
	uint32_t units;            /* units it spans (header field) */
	uint32_t owner, claim;     /* header fields */
	uint64_t req;              /* large/huge: requested bytes */
	bool sum_ok;               /* header checksum holds */
	bool geometry_guessed;     /* slots laid out by the table's class: header unusable */
	/* Bytes the program asked for, summed over the live slots (the pool
	 * keeps each block's requested size); req_known false when the sizes
	 * are outside the stored window. */
	uint64_t req_live;
	bool req_known;
} viz_chunk;

typedef struct viz_invariant {
	unsigned bit;              /* bit in alloc_checked / alloc_failed */
	const char *name;          /* "INV-3" or its catalogue name */
	bool checked, failed;
	int64_t chunk;             /* index of the chunk involved, or -1 */
	uint64_t byte_off;         /* offset of the bytes involved (with chunk) */
	/* Added with the pool decoder: the validator's message for a failing
	 * invariant, re-derived from the stored raw window ("" when unknown),
	 * and the slot involved (UINT32_MAX: the chunk as a whole). */
	char detail[160];
	uint32_t slot;
} viz_invariant;

typedef struct viz_heap {
	int64_t run;
	uint32_t state;
	bool has_alloc;            /* the run recorded allocator status here */
	size_t raw_len, raw_full;  /* raw snapshot kept / before the cap */
	viz_invariant inv[32];
	unsigned n_inv;            /* entries of inv[] that were checked */
	viz_chunk *chunks;
	size_t n_chunks;
	char why_no_chunks[160];
} viz_heap;

/* Fill `h` from the store (1: no such state, with err). */
int viz_heap_load(store *st, int64_t run, uint32_t state, viz_heap *h, char *err, size_t errlen);
void viz_heap_clear(viz_heap *h);
/* Draw it into `path`. */
int viz_heap_render(viz *v, const viz_heap *h, const char *path, char *err, size_t errlen);

/* ---- the heap graph of one state (hgraph.c) ----------------------------- */

/*
 * The object graph `hash heap-graph` walks (share/scenario.md "Heap-graph
 * hashing"), as the caller found it (tui/cli/hgtable.c replays the state):
 * block k + 1 is blocks[k], in walk order; an edge is one word taken as a
 * pointer, from a root (from 0, root its index) or a block, to an offset
 * in a block.  Drawn as nodes "bN" (number and size), the roots that point
 * at something as nodes "rN" in the cluster "cluster_roots", and one edge
 * per pointer labelled with the word's offset and the offset it points
 * at.  At most `cap` blocks are drawn (0: VIZ_DEFAULT_BUDGET), the first
 * in walk order; pointers to the rest are left out and the caption says
 * how many.  caption is plain text (a trace of target labels: escaped).
 */
typedef struct viz_hg_region {
	uint64_t addr, len;
} viz_hg_region;
typedef struct viz_hg_edge {
	uint32_t from, root;
	uint64_t off;
	uint32_t to;
	uint64_t to_off;
} viz_hg_edge;
typedef struct viz_hgraph {
	const viz_hg_region *roots, *blocks;
	size_t n_roots, n_blocks;
	const viz_hg_edge *edges;
	size_t n_edges;
	size_t cap;
	const char *caption;
} viz_hgraph;
typedef struct viz_hg_result {
	size_t blocks, roots, edges;  /* drawn */
	size_t cut_blocks, cut_edges; /* left out past the cap */
} viz_hg_result;
int viz_heap_graph(viz *v, const viz_hgraph *h, const char *path, viz_hg_result *res, char *err,
		   size_t errlen);

#endif
