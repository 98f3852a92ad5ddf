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
