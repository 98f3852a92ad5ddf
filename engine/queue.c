/*
 * queue.c — the frontier as a list of blocks holding variable-length entries
 * [id u32][depth u32][len u32][bytes, padded to 4][len u32].  The trailing
 * length lets depth-first search pop from the tail; breadth-first pops from
 * the head and frees each block as soon as it is consumed, so the memory
 * held is that of the waiting states, not of everything ever queued.
 *
 * Spilling.  A wide search's frontier can outweigh its visited set (a
 * breadth-first level of a million 88-byte states is 100 MB; the set holds
 * a state in about 23 bytes), so once more than SPILL_BLOCKS blocks are in
 * memory, a block the pushes have filled is written to an unlinked file in
 * $TMPDIR (TLC's disk queue, in the small) and its memory freed; it is read
 * back when the pops reach it, from either end.  Only the head and tail
 * blocks are ever read or written by push and pop, and a block in the middle
 * is touched by neither, so at most SPILL_BLOCKS + 2 blocks stay in memory
 * whatever the frontier's size.  Blocks go out in queue order and come back
 * in queue order (FIFO: the consumed ones' disk space is given back with a
 * hole) or in reverse (LIFO: the file is cut back to the block read), so
 * the file holds what is waiting and no more; when nothing is spilled it
 * is emptied.  No file can be made, or a write fails (a full disk): the
 * queue keeps its blocks in memory, as before spilling existed.  A block
 * that cannot be read back is fatal: its states would be lost silently.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "queue.h"
#include "util.h"

#define BLOCK_MIN (1u << 20)
#define SPILL_BLOCKS 4 /* blocks in memory before filled ones are spilled */

/*
 * Invariant (eng_queue_is_valid()): the blocks are a list from head to tail
 * linked both ways; in each rd <= wr <= cap, and rd is 0 but in the head
 * block (only breadth-first pops advance it); the head block's [rd, wr) and
 * every later block's [0, wr) hold whole entries, each with the same length
 * before and after its bytes, `ents` of them; count is the sum of `ents`.
 * A spilled block has no data (data NULL), its bytes [0, wr) at spill_off in
 * the spill file, and is neither the head nor the tail; mem_blocks counts
 * the blocks with data, spilled those without.
 */
struct block {
	struct block *next, *prev;
	size_t rd, wr, cap;
	uint64_t ents;          /* entries held */
	off_t spill_off;        /* where a spilled block's bytes are */
	unsigned char *data;    /* NULL while spilled */
};

struct eng_queue {
	struct block *head, *tail;
	bool lifo;
	uint64_t count;
	unsigned char *scratch; /* holds the popped entry's bytes */
	size_t scratch_cap;
	uint64_t ops;           /* pushes and pops: when to check it all */
	unsigned mem_blocks;    /* blocks with their data in memory */
	uint64_t spilled;       /* blocks in the spill file */
	int spill_fd;           /* -1: none yet; -2: spilling is off */
	off_t spill_end;        /* where the next spilled block goes */
	uint64_t spill_writes;  /* blocks ever spilled (the tests' count) */
	unsigned spill_at;      /* SPILL_BLOCKS; the unit tests lower it */
	/* a consumed block of BLOCK_MIN kept for the next push: fresh
	 * memory costs a page fault per page (outside the list and the
	 * counts, but within the blocks spilling leaves in memory) */
	struct block *spare;
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
	CMC_VALID(q->head->data && q->tail->data, "queue spill: the head or the tail block is spilled");
	uint64_t n = 0, mem = 0, out = 0;
	for (const struct block *b = q->head; b; b = b->next) {
		CMC_VALID(b->next ? b->next->prev == b : b == q->tail,
			  "queue links: block %p and its next do not point at each other", (void *)b);
		CMC_VALID(b->rd <= b->wr && b->wr <= b->cap, "queue bounds: rd %zu, wr %zu, cap %zu",
			  b->rd, b->wr, b->cap);
		CMC_VALID(b == q->head || b->rd == 0, "queue bounds: a block after the head was read from (rd %zu)",
			  b->rd);
		mem += b->data != NULL;
		out += b->data == NULL;
		n += b->ents;
		if (!entries || !b->data)
			continue;
		uint64_t here = 0;
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
			here++;
		}
		CMC_VALID(here == b->ents, "queue count: a block holds %llu entries and says %llu",
			  (unsigned long long)here, (unsigned long long)b->ents);
	}
	CMC_VALID(mem == q->mem_blocks && out == q->spilled,
		  "queue spill: %llu blocks in memory and %llu spilled, counted %u and %llu",
		  (unsigned long long)mem, (unsigned long long)out, q->mem_blocks,
		  (unsigned long long)q->spilled);
	CMC_VALID(n == q->count, "queue count: %llu counted, %llu entries held",
		  (unsigned long long)n, (unsigned long long)q->count);
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
	q->spill_fd = -1;
	q->spill_at = SPILL_BLOCKS;
	return q;
}

static void block_free(eng_queue *q, struct block *b)
{
	if (b->data)
		q->mem_blocks--;
	else
		q->spilled--;
	free(b->data);
	free(b);
}

/* A block the pops are done with: kept as the spare when none is. */
static void block_retire(eng_queue *q, struct block *b)
{
	if (!q->spare && b->data && b->cap == BLOCK_MIN) {
		q->mem_blocks--;
		q->spare = b;
		return;
	}
	block_free(q, b);
}

/* Nothing is spilled: the file can start again from its beginning. */
static void spill_rewind(eng_queue *q)
{
	if (q->spill_fd >= 0 && q->spilled == 0 && q->spill_end) {
		if (ftruncate(q->spill_fd, 0) != 0) {
			/* the space stays taken until the queue is freed; harmless */
		}
		q->spill_end = 0;
	}
}

void eng_queue_clear(eng_queue *q)
{
	struct block *b = q->head;
	while (b) {
		struct block *n = b->next;
		block_free(q, b);
		b = n;
	}
	q->head = q->tail = NULL;
	q->count = 0;
	spill_rewind(q);
}

void eng_queue_free(eng_queue *q)
{
	if (!q)
		return;
	eng_queue_clear(q);
	if (q->spare) {
		free(q->spare->data);
		free(q->spare);
	}
	if (q->spill_fd >= 0)
		close(q->spill_fd);
	free(q->scratch);
	free(q);
}

/* The spill file: unlinked from the start (O_TMPFILE, else a name removed
 * at once), so nothing is left behind however cmc ends. */
static int spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	if (snprintf(path, sizeof path, "%s/cmc-frontier.XXXXXX", dir) >= (int)sizeof path)
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Write b's bytes at the end of the spill file and free them; false (b
 * untouched) when there is no file or the write fails. */
static bool spill_block(eng_queue *q, struct block *b)
{
	if (q->spill_fd == -2)
		return false;
	if (q->spill_fd == -1 && (q->spill_fd = spill_open()) < 0) {
		q->spill_fd = -2;
		return false;
	}
	for (size_t done = 0; done < b->wr;) {
		ssize_t w = pwrite(q->spill_fd, b->data + done, b->wr - done, q->spill_end + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) { /* a full disk: keep every block in memory from now on */
			close(q->spill_fd);
			q->spill_fd = -2;
			return false;
		}
		done += (size_t)w;
	}
	b->spill_off = q->spill_end;
	q->spill_end += (off_t)b->wr;
	free(b->data);
	b->data = NULL;
	q->mem_blocks--;
	q->spilled++;
	q->spill_writes++;
	return true;
}

/* Read a spilled block back; it is about to become the head or the tail. */
static void unspill_block(eng_queue *q, struct block *b)
{
	if (b->data)
		return;
	b->data = eng_xmalloc(b->cap);
	for (size_t done = 0; done < b->wr;) {
		ssize_t r = pread(q->spill_fd, b->data + done, b->wr - done, b->spill_off + (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			eng_die("the frontier's spill file could not be read back (%s): its states would be lost",
				r < 0 ? strerror(errno) : "it is shorter than what was written");
		done += (size_t)r;
	}
	q->mem_blocks++;
	q->spilled--;
	if (q->lifo) { /* the last block out: the file ends where it began */
		if (ftruncate(q->spill_fd, b->spill_off) == 0)
			q->spill_end = b->spill_off;
	} else {
#ifdef FALLOC_FL_PUNCH_HOLE
		/* best effort: a file system without holes keeps the space until the rewind */
		(void)fallocate(q->spill_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, b->spill_off,
				(off_t)b->wr);
#endif
	}
	spill_rewind(q);
}

size_t eng_queue_entry_size(size_t len) { return 16 + pad4(len); }

/* Room for need more bytes at the tail: a new block when the tail's is
 * short. */
static struct block *room_for(eng_queue *q, size_t need)
{
	struct block *b = q->tail;
	if (!b || b->cap - b->wr < need) {
		size_t cap = need > BLOCK_MIN ? need : BLOCK_MIN;
		struct block *nb = q->spare;
		if (nb && cap == BLOCK_MIN) {
			unsigned char *data = nb->data;
			memset(nb, 0, sizeof *nb);
			nb->data = data;
			q->spare = NULL;
		} else {
			nb = eng_xcalloc(1, sizeof *nb);
			nb->data = eng_xmalloc(cap);
		}
		nb->prev = b;
		nb->cap = cap;
		q->mem_blocks++;
		if (b)
			b->next = nb;
		else
			q->head = nb;
		q->tail = nb;
		/* The block just filled is in the middle now, where neither
		 * end touches it until the pops come to it. */
		if (b && b != q->head && q->mem_blocks + (q->spare != NULL) > q->spill_at)
			spill_block(q, b);
		b = nb;
	}
	return b;
}

size_t eng_queue_put_at(unsigned char *p, uint32_t id, uint32_t depth, const void *state, size_t len)
{
	uint32_t l32 = (uint32_t)len;
	memcpy(p, &id, 4);
	memcpy(p + 4, &depth, 4);
	memcpy(p + 8, &l32, 4);
	if (len)
		memcpy(p + 12, state, len);
	memset(p + 12 + len, 0, pad4(len) - len);
	memcpy(p + 12 + pad4(len), &l32, 4);
	return 16 + pad4(len);
}

void eng_queue_push(eng_queue *q, uint32_t id, uint32_t depth, const void *state, size_t len)
{
	size_t need = 16 + pad4(len);
	struct block *b = room_for(q, need);
	eng_queue_put_at(b->data + b->wr, id, depth, state, len);
	b->wr += need;
	b->ents++;
	q->count++;
	CMC_ASSERT_INTERNAL(queue_check_op(q));
}

unsigned char *eng_queue_reserve(eng_queue *q, size_t bytes)
{
	struct block *b = room_for(q, bytes);
	return b->data + b->wr;
}

void eng_queue_commit(eng_queue *q, size_t bytes, uint64_t n)
{
	struct block *b = q->tail;
	CMC_ASSERT(n == 0 || (b && b->cap - b->wr >= bytes));
	if (!n)
		return;
	b->wr += bytes;
	b->ents += n;
	q->count += n;
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

/* Breadth-first: the head block, once the empty ones before it are gone. */
static struct block *head_block(eng_queue *q)
{
	struct block *b = q->head;
	while (b->rd == b->wr) {
		CMC_ASSERT(b->next); /* count > 0: a later block holds one */
		q->head = b->next;
		q->head->prev = NULL;
		block_retire(q, b);
		b = q->head;
		unspill_block(q, b);
	}
	return b;
}

size_t eng_queue_peek(eng_queue *q, size_t max, const unsigned char **ents)
{
	CMC_ASSERT(!q->lifo);
	if (!q->count)
		return 0;
	struct block *b = head_block(q);
	size_t n = 0;
	for (size_t off = b->rd; off < b->wr && n < max; n++) {
		uint32_t l32;
		ents[n] = b->data + off;
		memcpy(&l32, b->data + off + 8, 4);
		off += 16 + pad4(l32);
	}
	return n;
}

void eng_queue_drop(eng_queue *q, size_t n)
{
	struct block *b = q->head;
	for (size_t i = 0; i < n; i++) {
		uint32_t l32;
		memcpy(&l32, b->data + b->rd + 8, 4);
		b->rd += 16 + pad4(l32);
	}
	b->ents -= n;
	q->count -= n;
	CMC_ASSERT_INTERNAL(queue_check_op(q));
}

void eng_queue_entry(const unsigned char *p, eng_qentry *out)
{
	uint32_t l32;
	memcpy(&out->id, p, 4);
	memcpy(&out->depth, p + 4, 4);
	memcpy(&l32, p + 8, 4);
	out->len = l32;
	out->state = p + 12;
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
			block_retire(q, b);
			b = q->tail;
			unspill_block(q, b);
		}
		uint32_t l32;
		memcpy(&l32, b->data + b->wr - 4, 4);
		size_t sz = 16 + pad4(l32);
		b->wr -= sz;
		b->ents--;
		take(q, b->data + b->wr, out);
	} else {
		struct block *b = head_block(q);
		unsigned char *p = b->data + b->rd;
		uint32_t l32;
		memcpy(&l32, p + 8, 4);
		take(q, p, out);
		b->rd += 16 + pad4(l32);
		b->ents--;
	}
	q->count--;
	CMC_ASSERT_INTERNAL(queue_check_op(q));
	return true;
}

uint64_t eng_queue_len(const eng_queue *q) { return q->count; }

void eng_queue_spill_at(eng_queue *q, unsigned blocks) { q->spill_at = blocks; }

uint64_t eng_queue_spill_writes(const eng_queue *q) { return q->spill_writes; }

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
