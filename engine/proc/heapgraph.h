/*
 * heapgraph.h — `hash heap-graph`: a canonical form of the target's state
 * that cmc computes itself, without the target's emit hook (heapgraph.c).
 * Private to engine/proc/.
 *
 * The heap is walked as a graph from the executable's writable segments
 * (the roots, in address order).  An 8-byte-aligned word is a pointer when
 * its value lies in a live block of the preload's pool (from its start to
 * one past its requested size).  Blocks are numbered in the order a
 * breadth-first walk first reaches them, words in address order, and the
 * form is the roots' bytes, then each reached block's requested bytes, with
 * every pointer word replaced by its target's number (the offsets into the
 * target and which words were pointers hashed beside), so two heaps that
 * differ only in where the allocator put the blocks have one form.
 * Unreached blocks, freed slots, size classes and the allocator's own
 * metadata are left out.
 */
#ifndef CMC_PROC_HEAPGRAPH_H
#define CMC_PROC_HEAPGRAPH_H

#include <stdint.h>

#include "layout/cmc_region.h"
#include "exec.h"
#include "target.h"

/* The walk's bounds: a heap past one is identified by its raw fingerprint
 * instead (never merged: sound, just no coarser), and the observation says
 * why.  The target's bytes are untrusted; these keep cmc's work and memory
 * bounded whatever they say. */
#define PROC_HG_MAX_BLOCKS (1u << 20)        /* live blocks indexed */
#define PROC_HG_MAX_BYTES (256ULL << 20)     /* heap window read, and roots + blocks hashed */

/* What one walk found (and, summed, a run: proc_hg_totals). */
struct proc_hg_stats {
	uint64_t walks;         /* states walked */
	uint64_t over;          /* ... of which past a bound (raw identity) */
	uint64_t live;          /* live blocks in the pool */
	uint64_t reached;       /* blocks the walk reached (the rest is garbage) */
	uint64_t pointers;      /* words taken as pointers */
	uint64_t words;         /* aligned words looked at */
	uint64_t bytes;         /* bytes in the form (roots + reached blocks) */
	uint64_t ns;            /* time spent walking (monotonic clock) */
};

/*
 * The heap-graph fingerprint of quiescent target t into obs->e.canon.
 * h is the validated region header just read; win its heap window
 * [data_off, used) when the caller has all of it (NULL: read here, into
 * obs->win, within PROC_HG_MAX_BYTES).  img->roots are the roots (PIE:
 * at t->load_base, which the caller has found).  Returns 0; -1 when no
 * form can be made (no pool, a bound passed, unreadable memory), with
 * obs->hg_msg saying why: the caller then identifies the state by its
 * raw fingerprint.  Adds what it found to the run's totals.
 */
int proc_hg_observe(struct proc_target *t, const struct proc_image *img,
		    const struct cmc_region_hdr *h, const uint8_t *win, struct proc_obs *obs);

/* The walk's scratch, kept in an observation buffer (proc_obs.hg) and
 * freed with it. */
struct proc_hg;
void proc_hg_free(struct proc_hg *g);

/* The totals of every walk since the process started. */
void proc_hg_totals(struct proc_hg_stats *out);

#endif
