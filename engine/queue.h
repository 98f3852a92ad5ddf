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
