/*
 * pages.h — the heap window hashed page by page (pages.c), so that a
 * fork snapshot's child re-reads and re-hashes only the pages its
 * operation changed, not the whole heap.  Private to engine/proc/.
 *
 * The raw fingerprint covers the heap window through its page hashes:
 * page i of the window [lo, hi) is the 4 KiB-aligned page at
 * PAGE_DOWN(lo) + i * 4096, clipped to the window, and its hash is XXH3-64
 * of those bytes.  Both executors compute the same hashes (replay reads
 * every page, the fork executor takes the clean ones from the snapshot it
 * forked), so both give the same fingerprint.
 *
 * Which pages are clean: /proc/PID/pagemap.  After fork, a child shares
 * every page with its origin until one of them writes it; a written
 * private anonymous page is the writer's own copy, mapped once
 * (PM_MMAP_EXCLUSIVE, bit 56).  So a page present, not exclusive, not
 * swapped and not file-backed holds what it held when the origin was
 * observed, and where the kernel shows page frame numbers (CAP_SYS_ADMIN)
 * it must also be the same frame as then.  Everything else is dirty and
 * read again.  (Soft-dirty bits, the kernel's own tracking, need
 * CONFIG_MEM_SOFT_DIRTY, which the kernels cmc is tested on lack.)
 * What this relies on, and what breaks it:
 *   - the origin does not write its heap between its observation and the
 *     fork (true: it is quiescent; the fork request runs on the preload's
 *     own stack, outside the window);
 *   - the target itself forks no process that still shares its pages when
 *     it is observed: a page it wrote and then shared that way would look
 *     clean.  Without frame numbers, a page it dropped (madvise) and read
 *     back as the zero page would too.  A live child of the target sends
 *     the whole window through a full read (proc_pages_hash checks
 *     /proc/PID/task/PID/children);
 *   - cmc built with CHECK >= 2, or CMC_CHECK_PAGES=1 in the environment,
 *     re-reads every page taken from a cache and fails loudly on a
 *     difference.
 * A kernel without pagemap (or a cmc that may not read it) makes every
 * page dirty: full reads, said once on stderr.
 */
#ifndef CMC_PROC_PAGES_H
#define CMC_PROC_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "exec.h"

#define PROC_PAGE 4096u

/*
 * One process's heap window hashed at one observation, immutable once
 * made, shared by reference between a snapshot and the children forked
 * from it.  Invariants: refs >= 1 while reachable; n is the number of
 * pages [lo, hi) touches; hash[i] is the hash of page i; ent[i] is page
 * i's pagemap entry when it was hashed, 0 when not read (such a page is
 * never clean against this one); nkept <= n, and for i < nkept, kept[i]
 * holds page i's bytes in the window (hash[i] is theirs), shared by
 * reference with the caches of the snapshots that did not change it.
 */
struct proc_pages {
	unsigned refs;          /* atomic: snapshots live on several threads */
	uint64_t lo, hi;
	size_t n;
	uint64_t *hash;
	uint64_t *ent;
	size_t nkept;
	struct proc_bytes **kept;
};

struct proc_pages *proc_pages_ref(struct proc_pages *p);
void proc_pages_unref(struct proc_pages *p);

struct proc_target;

/*
 * Hash the window [lo, hi) of t into a new proc_pages, its first `pre`
 * bytes (pre <= hi - lo) also appended to pre_buf (the kept raw copy, or
 * the allocator check's window), reading from the target only the pages
 * not clean against ref (NULL: all of them): the bytes of a clean page of
 * the prefix are copied from ref's kept pages.  Without `cache` (a
 * process no snapshot is forked from: the replay executor's), the window
 * is read whole and the result keeps no bytes.  Returns NULL when the
 * window is unreadable.
 */
struct proc_pages *proc_pages_hash(struct proc_target *t, uint64_t lo, uint64_t hi,
				   const struct proc_pages *ref, struct proc_buf *pre_buf,
				   uint64_t pre, struct proc_buf *bounce, bool cache);

/*
 * t is a snapshot that ran operations since it was forked, unobserved
 * (fork_request.c: a state made again by replaying from an ancestor), and
 * is about to be forked from: make its cache its own (pages_own) now,
 * while the pages it wrote are still its alone, reading only those; or
 * drop it (observe.c).  A child forked from it then shares those pages
 * and needs the cache to say what they hold.
 */
void proc_pages_settle(struct proc_target *t);

/* Counters for CMC_PROC_STATS, over every thread: observations that used
 * a cache (incremental) or read the window whole (full), pages hashed
 * from fresh bytes and pages whose hash came from a cache. */
struct proc_pages_stats {
	uint64_t incremental, full, hashed, reused;
};
void proc_pages_stats(struct proc_pages_stats *out);

#endif
