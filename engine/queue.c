/*
 * queue.c — the frontier as a list of blocks holding variable-length entries
 * [id u32][depth u32][len u32][bytes, padded to 4][len u32].  The trailing
 * length lets depth-first search pop from the tail; breadth-first pops from
 * the head and frees each block as soon as it is consumed, so the memory
 * held is that of the waiting states, not of everything ever queued.
 *
 * Invariant: head block's [rd, wr) and every later block's [0, wr) hold whole
 * entries; count is the number of entries in all of them.
 */
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "util.h"

#define BLOCK_MIN (1u << 20)

struct block {
	struct block *next, *prev;
	size_t rd, wr, cap;
	unsigned char data[];
};

struct eng_queue {
	struct block *head, *tail;
	bool lifo;
	uint64_t count;
	unsigned char *scratch; /* holds the popped entry's bytes */
	size_t scratch_cap;
};

eng_queue *eng_queue_new(bool lifo)
{
	eng_queue *q = eng_xcalloc(1, sizeof *q);
	q->lifo = lifo;
	return q;
}

void eng_queue_clear(eng_queue *q)
{
	struct block *b = q->head;
	while (b) {
		struct block *n = b->next;
		free(b);
		b = n;
	}
	q->head = q->tail = NULL;
	q->count = 0;
}

void eng_queue_free(eng_queue *q)
{
	if (!q)
		return;
	eng_queue_clear(q);
	free(q->scratch);
	free(q);
}

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

void eng_queue_push(eng_queue *q, uint32_t id, uint32_t depth, const void *state, size_t len)
{
	size_t need = 16 + pad4(len);
	struct block *b = q->tail;
	if (!b || b->cap - b->wr < need) {
		size_t cap = need > BLOCK_MIN ? need : BLOCK_MIN;
		struct block *nb = eng_xmalloc(sizeof *nb + cap);
		nb->next = NULL;
		nb->prev = b;
		nb->rd = nb->wr = 0;
		nb->cap = cap;
		if (b)
			b->next = nb;
		else
			q->head = nb;
		q->tail = b = nb;
	}
	unsigned char *p = b->data + b->wr;
	uint32_t l32 = (uint32_t)len;
	memcpy(p, &id, 4);
	memcpy(p + 4, &depth, 4);
	memcpy(p + 8, &l32, 4);
	if (len)
		memcpy(p + 12, state, len);
	memcpy(p + 12 + pad4(len), &l32, 4);
	b->wr += need;
	q->count++;
}

static void take(eng_queue *q, const unsigned char *p, eng_qentry *out)
{
	uint32_t l32;
	memcpy(&out->id, p, 4);
	memcpy(&out->depth, p + 4, 4);
	memcpy(&l32, p + 8, 4);
	out->len = l32;
	if (l32 > q->scratch_cap) {
		q->scratch = eng_xrealloc(q->scratch, l32);
		q->scratch_cap = l32;
	}
	if (l32)
		memcpy(q->scratch, p + 12, l32);
	out->state = q->scratch;
}

bool eng_queue_pop(eng_queue *q, eng_qentry *out)
{
	if (!q->count)
		return false;
	if (q->lifo) {
		struct block *b = q->tail;
		while (b->wr == b->rd) { /* empty tail block: drop it */
			q->tail = b->prev;
			q->tail->next = NULL;
			free(b);
			b = q->tail;
		}
		uint32_t l32;
		memcpy(&l32, b->data + b->wr - 4, 4);
		size_t sz = 16 + pad4(l32);
		b->wr -= sz;
		take(q, b->data + b->wr, out);
	} else {
		struct block *b = q->head;
		while (b->rd == b->wr) {
			q->head = b->next;
			q->head->prev = NULL;
			free(b);
			b = q->head;
		}
		unsigned char *p = b->data + b->rd;
		uint32_t l32;
		memcpy(&l32, p + 8, 4);
		take(q, p, out);
		b->rd += 16 + pad4(l32);
	}
	q->count--;
	return true;
}

uint64_t eng_queue_len(const eng_queue *q) { return q->count; }
