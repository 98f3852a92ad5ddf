/*
 * queue.h — the frontier: states waiting to be expanded, with their bytes.
 * FIFO for breadth-first search, LIFO for depth-first.  Private to engine.
 */
#ifndef CMC_QUEUE_H
#define CMC_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eng_queue eng_queue;

typedef struct eng_qentry {
	uint32_t id;
	uint32_t depth;
	size_t len;
	const void *state; /* valid until the next queue operation */
} eng_qentry;

eng_queue *eng_queue_new(bool lifo);
void eng_queue_free(eng_queue *q);
void eng_queue_push(eng_queue *q, uint32_t id, uint32_t depth, const void *state, size_t len);
/*
 * Many entries at once, written by other threads (level.c): reserve room
 * for entries of `bytes` bytes in all (eng_queue_entry_size() each), write
 * them at the address returned, in queue order, with eng_queue_put_at()
 * (any thread), then count them in: eng_queue_commit() (bytes exactly as
 * reserved, n entries).  Nothing else may use the queue in between.
 */
size_t eng_queue_entry_size(size_t len);
unsigned char *eng_queue_reserve(eng_queue *q, size_t bytes);
size_t eng_queue_put_at(unsigned char *p, uint32_t id, uint32_t depth, const void *state, size_t len);
void eng_queue_commit(eng_queue *q, size_t bytes, uint64_t n);
/*
 * Breadth-first, without copying: the addresses of up to max entries at
 * the head (only the head block's: fewer may come back than wait), left
 * in the queue and valid until they are dropped or the queue is popped or
 * cleared (pushes leave them be); eng_queue_entry() reads one (its state
 * is 4-byte aligned only); eng_queue_drop() takes the first n of them.
 */
size_t eng_queue_peek(eng_queue *q, size_t max, const unsigned char **ents);
void eng_queue_entry(const unsigned char *p, eng_qentry *out);
void eng_queue_drop(eng_queue *q, size_t n);
bool eng_queue_pop(eng_queue *q, eng_qentry *out);
uint64_t eng_queue_len(const eng_queue *q);
void eng_queue_clear(eng_queue *q);
/* check.h: true, or abort naming the rule broken (queue.c's invariant). */
bool eng_queue_is_valid(const eng_queue *q);
/* Spill filled blocks to a file once more than BLOCKS are in memory
 * (queue.c says how; default 4 blocks of 1 MiB), and how many blocks were
 * ever spilled: for the unit tests and the memory benchmark. */
void eng_queue_spill_at(eng_queue *q, unsigned blocks);
uint64_t eng_queue_spill_writes(const eng_queue *q);
/* For the unit tests only: break the count (how 0) or an entry's trailing
 * length (1) of a queue holding an entry. */
void eng_queue_break_for_test(eng_queue *q, int how);

#endif
