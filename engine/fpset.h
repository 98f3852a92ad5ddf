/*
 * fpset.h — the visited set: every distinct state's fingerprint and the
 * parent it was first reached from, by dense id.  Private to the engine.
 */
#ifndef CMC_FPSET_H
#define CMC_FPSET_H

#include "cmc.h"

typedef struct fpset fpset;

/* Largest number of states the set can hold (ids are 27 bits; see fpset.c). */
#define FPSET_MAX_STATES ((1u << 27) - 2)
/* The index's subtables (fpset.c); fpset_sub() says which holds fp. */
#define FPSET_SUBS 8
unsigned fpset_sub(eng_fp fp);

fpset *fpset_new(size_t mem_limit);
void fpset_free(fpset *s);
/*
 * Find fp, or add it with the given parent.  Returns its id and sets *fresh;
 * returns ENG_NO_STATE when the set is full or may not grow (memory limit,
 * id space, allocation failure): the caller reports out-of-memory.
 */
uint32_t fpset_put(fpset *s, eng_fp fp, uint32_t parent, bool *fresh);
uint32_t fpset_get(const fpset *s, eng_fp fp);
/* The next fpset_put() of fp, when new, may rebuild the index: no reader
 * may run alongside it (fpset.c: one writer, readers alongside). */
bool fpset_will_grow(const fpset *s, eng_fp fp);
/* Hints for a batch of lookups: start loading fp's index slot (stage 1),
 * then the record its slot points at (stage 2, after stage 1 has landed). */
void fpset_prefetch_slot(const fpset *s, eng_fp fp);
void fpset_prefetch_record(const fpset *s, eng_fp fp);
/*
 * Many states at once, from several threads (parallel.c's bulk admission):
 * fpset_reserve() (one thread) makes room for n more ids, add[i] of them
 * in subtable i, and says whether the set may take them (false: the memory
 * limit, the id space or the parent file would refuse one; add them one at
 * a time instead, which finds where).  Then each of n distinct
 * fingerprints, none in the set, gets its id in [count, count + n):
 * fpset_place() writes its record, from any thread; after a barrier,
 * fpset_index() enters it in its subtable, from the one thread that
 * handles that subtable (no atomic read-modify-write: each thread its own
 * subtables).  No lookup runs meanwhile.  fpset_commit() (one thread)
 * hands the ids out with their parents, in id order.  fpset_truncate()
 * takes back every id from `count` on (an admission that stopped part-way).
 */
bool fpset_reserve(fpset *s, uint64_t n, const uint64_t add[FPSET_SUBS]);
void fpset_place(fpset *s, uint32_t id, eng_fp fp);
void fpset_index(fpset *s, uint32_t id, eng_fp fp);
bool fpset_commit(fpset *s, uint64_t n, const uint32_t *parents);
void fpset_truncate(fpset *s, uint64_t count);
/*
 * Pending states (level.c's parallel search): between fpset_pend_begin()
 * and fpset_pend_commit() or fpset_pend_abort(), several threads insert
 * at once with fpset_pend_put(), each state they add entering the index
 * under a pending id (count and up) whose fingerprint lives at the
 * caller's pend_fps + (id - count) * pend_stride until it is numbered.
 * fpset_pend_begin() (one thread) makes room for `room` more ids in every
 * subtable and says how many each inserting thread may add per subtable
 * (fpset_pend_room()).  Then, after a barrier, fpset_pend_chunks() (one
 * thread) makes records for n final ids, fpset_pend_settle() (any
 * thread, each pending state once) gives a pending state's slot its final
 * id (count + rank), fpset_place() writes its record, and
 * fpset_pend_commit() (one thread) hands them out
 * with their parents and grows the index if it must.  fpset_pend_abort()
 * (one thread) takes every pending state out again, settled or not.
 */
/* The index's capacity pend_begin(room) needs (the present one: no growth;
 * 0: the memory limit refuses it).  Growing to it on n threads:
 * fpset_regrow() on each (k = 0 .. n - 1: it makes subtables k, k + n,
 * ... anew, empty), then after a barrier fpset_regrow_fill() on each (the
 * k-th n-th of the records into whichever subtable holds them), then
 * fpset_regrow_done() on one.  No lookup runs meanwhile. */
uint64_t fpset_pend_cap(const fpset *s, uint64_t room);
void fpset_regrow(fpset *s, uint64_t ncap, unsigned k, unsigned n);
void fpset_regrow_fill(fpset *s, uint64_t ncap, unsigned k, unsigned n);
void fpset_regrow_done(fpset *s, uint64_t ncap);
bool fpset_pend_begin(fpset *s, uint64_t room, const void *pend_fps, size_t pend_stride);
uint64_t fpset_pend_room(const fpset *s, unsigned threads);
/* Find fp, or add it as pending id pid (its fingerprint already written
 * where pend_begin said, before this call).  Returns the id found (below
 * fpset_count(): settled; from it on: pending) or pid when this call
 * added it, and then *where says which slot, for fpset_pend_settle(). */
uint32_t fpset_pend_put(fpset *s, eng_fp fp, uint32_t pid, uint64_t *where);
/* fpset_prefetch_record() for a set with pending states. */
void fpset_pend_prefetch(const fpset *s, eng_fp fp);
/* Records for n more ids, add[i] of them in subtable i; false when the
 * limits refuse them or the index the commit would grow to. */
bool fpset_pend_chunks(fpset *s, uint64_t n, const uint64_t add[FPSET_SUBS]);
void fpset_pend_settle(fpset *s, uint64_t where, uint32_t id, eng_fp fp);
bool fpset_pend_commit(fpset *s, uint64_t n, const uint32_t *parents, const uint64_t add[FPSET_SUBS]);
void fpset_pend_abort(fpset *s);
eng_fp fpset_fp(const fpset *s, uint32_t id);
uint32_t fpset_parent(const fpset *s, uint32_t id);
uint64_t fpset_count(const fpset *s);
size_t fpset_bytes(const fpset *s);

/* check.h: true, or abort naming the rule broken (the invariant above
 * struct fpset).  Call from the writer, or while no writer runs. */
bool fpset_is_valid(const fpset *s);
/* For the unit tests only: break rule `how` (0 a slot lost, 1 a tag,
 * 2 the load, 3 an id never handed out, 4 a slot in the wrong subtable)
 * in a set with at least one id. */
void fpset_break_for_test(fpset *s, int how);

#endif
