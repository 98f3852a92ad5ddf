/*
 * hgtable.h — the heap graph of one stored state (hgtable.c), for
 * `cmc compare --heap-graph STATE` and `cmc graph --heap STATE`.
 *
 * The store cannot give it: the walk starts at the executable's writable
 * segments (.data, .bss), which no state keeps, and numbers blocks in the
 * order it reaches them from there; the raw window alone holds the blocks
 * but not who points at the first one.  So the state's trace is replayed
 * on the run's scenario (with the run's --hash/--merge/--set overrides,
 * and hash heap-graph when the run had another identity) and the live
 * target's heap is walked by the same code that hashes it
 * (engine/proc/heapgraph.c, proc_hg_record()).  A run whose identity was
 * heap-graph is replayed against its stored fingerprints, so a target
 * that does not reach the same heap graph again is reported, not drawn.
 */
#ifndef CMC_TUI_HGTABLE_H
#define CMC_TUI_HGTABLE_H

#include "storeargs.h"
#include "proc/proc.h"

/* Replay state `state` of run `run` and walk its heap into *t (cleared
 * first; the caller clears it) and its trace into *tr (the caller clears
 * it).  0, or -1 with err filled (not a process run, no such state, the
 * scenario no longer opens, the replay diverged, no form). */
int tui_hg_replay(store *st, int64_t run, uint32_t state, proc_hg_table *t, store_trace *tr,
		  char *err, size_t errlen);

/* The pointers out of block `num` (0: of root `root`): edges[*first ..
 * *first + return).  Edges are grouped by source in walk order. */
size_t tui_hg_out(const proc_hg_table *t, uint32_t num, uint32_t root, size_t *first);

#endif
