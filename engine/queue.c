/*
 * queue.c — the frontier as a list of blocks holding variable-length entries
 * [id u32][depth u32][len u32][bytes, padded to 4][len u32].  The trailing
 * length lets depth-first search pop from the tail; breadth-first pops from
 * the head and frees each block as soon as it is consumed, so the memory
 * held is that of the waiting states, not of everything ever queued.

 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "queue.h"
#include "util.h"

#define BLOCK_MIN (1u << 20)

/*
 * Invariant (eng_queue_is_valid()): the blocks are a list from head to tail
 * linked both ways; in each rd <= wr <= cap, and rd is 0 but in the head
 * block (only breadth-first pops advance it); the head block's [rd, wr) and
 * every later block's [0, wr) hold whole entries, each with the same length
 * before and after its bytes; count is the number of entries in all of them.
 */
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
	uint64_t ops;           /* pushes and pops: when to check it all */
};

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* The blocks' links and bounds; with entries, every entry and the count. */
static bool queue_check(const eng_queue *q, bool entries)
{
	CMC_VALID(!q->head == !q->tail, "queue links: head %p but tail %p", (void *)q->head,
		  (void *)q->tail);
	CMC_VALID(q->head || q->count == 0, "queue count: %llu entries and no block",
		  (unsigned long long)q->count);
	if (!q->head)
		return true;
	CMC_VALID(!q->head->prev && !q->tail->next, "queue links: the list has loose ends");
	uint64_t n = 0;
	for (const struct block *b = q->head; b; b = b->next) {
		CMC_VALID(b->next ? b->next->prev == b : b == q->tail,
			  "queue links: block %p and its next do not point at each other", (void *)b);
		CMC_VALID(b->rd <= b->wr && b->wr <= b->cap, "queue bounds: rd %zu, wr %zu, cap %zu",
			  b->rd, b->wr, b->cap);
		CMC_VALID(b == q->head || b->rd == 0, "queue bounds: a block after the head was read from (rd %zu)",
			  b->rd);
		if (!entries)
			continue;
		for (size_t off = b->rd; off < b->wr;) {
			uint32_t l32, t32;
			CMC_VALID(b->wr - off >= 16, "queue entries: %zu bytes left at %zu, less than a header",
				  b->wr - off, off);
			memcpy(&l32, b->data + off + 8, 4);
			size_t sz = 16 + pad4(l32);
			CMC_VALID(sz <= b->wr - off, "queue entries: an entry of %u bytes at %zu runs past wr %zu",
				  l32, off, b->wr);
			memcpy(&t32, b->data + off + sz - 4, 4);
			CMC_VALID(t32 == l32, "queue entries: entry at %zu says %u bytes before, %u after", off,
				  l32, t32);
			off += sz;
			n++;
		}
	}
	CMC_VALID(!entries || n == q->count, "queue count: %llu counted, %llu entries held",
		  (unsigned long long)q->count, (unsigned long long)n);
	return true;
}

bool eng_queue_is_valid(const eng_queue *q)
{
	return queue_check(q, true);
}

/* Around every change (CHECK=3): the links and bounds each time, the
 * entries at every power of two operations, O(1) amortised. */
static __attribute__((unused)) bool queue_check_op(eng_queue *q)
{
	q->ops++;
	return queue_check(q, (q->ops & (q->ops - 1)) == 0);
}

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
	CMC_ASSERT_INTERNAL(queue_check_op(q));
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
			CMC_ASSERT(b->prev); /* count > 0: an earlier block holds one */
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
			CMC_ASSERT(b->next);
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
	CMC_ASSERT_INTERNAL(queue_check_op(q));
	return true;
}

uint64_t eng_queue_len(const eng_queue *q) { return q->count; }

void eng_queue_break_for_test(eng_queue *q, int how)
{
	if (how == 0) {
		q->count++;
	} else { /* the trailing length of the head block's first entry */
		struct block *b = q->head;
		uint32_t l32;
		memcpy(&l32, b->data + b->rd + 8, 4);
		b->data[b->rd + 12 + pad4(l32)] ^= 1;
	}
}
