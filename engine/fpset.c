/*
 * fpset.c — the visited set.
 *
 * Three parts.  Records hold, per id, the full 128-bit fingerprint (16
 * bytes), in fixed-size chunks so growth never copies them.  Parent ids go,
 * as TLC's do, to an unlinked temporary file: appended in id order through a
 * small buffer and read back (pread) only to rebuild a trace, so they cost
 * no memory; where no file can be made they stay in memory instead.
 * The index is FPSET_SUBS open-addressing tables (subtables) of 32-bit
 * slots over those ids, a fingerprint's subtable chosen by its low bits
 * (sub_of(), bits neither the position nor the tag uses), linear probing,
 * sized by "fast range" (h * cap >> 32) so their capacity need not be a
 * power of two and can grow by 1.5x: each one's load stays in [0.5, 0.75],
 * costing 5.3-8 bytes per state on top of the records.  (At 0.9 the probes
 * of lookups that miss grow long enough to dominate the search; measured.)
 * The subtables share one capacity and grow together, when one of them
 * would pass its load: one pass over the records rebuilds them all, as it
 * rebuilt the one table (rebuilding one alone would read every record).
 * They exist so that several threads can insert at once without atomic
 * read-modify-writes (parallel.c's bulk admission: one thread per
 * subtable, fpset_index()).
 *
 * A slot packs a 5-bit tag (fingerprint bits not used for the position) with
 * id + 1; 0 is empty.  The tag lets a probe skip most non-matching slots
 * without touching the records, whose every access is a cache miss.  The
 * price is the id space: 27 bits, about 134 million states, reported as the
 * set being full when exceeded.
 *

 * The rules fpset_is_valid() checks are written above struct fpset.
 *
 * Pending states (level.c): while a segment of the frontier is searched,
 * each thread adds the states of its own subtables with a compare-and-swap
 * on the slot, under ids from count on that point into the caller's
 * entries (pend_fp()); once they are numbered, each slot is set to
 * the final id and each record written; an abort rebuilds the index from
 * the records, which drops them all.  A subtable may pass MAX_LOAD while
 * states are pending (up to PEND_LOAD); the commit grows it back.
 *
 * One writer, readers alongside (fpset_get(), the prefetches: parallel.c's
 * workers look successors up while one thread admits): a slot is stored
 * (release) only after its record, and loaded (acquire) before it, and the
 * chunk table is allocated whole at the start, so it never moves.  The one
 * thing a reader cannot survive is grow_index(), which replaces the index:
 * fpset_will_grow() says when the next put may, so that the writer first
 * waits for its readers.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fpset.h"

#define CHUNK_BITS 16
#define CHUNK (1u << CHUNK_BITS)
#define ID_BITS 27
#define ID_MASK ((1u << ID_BITS) - 1)
#define MAX_LOAD 0.75
/* While states are pending (level.c), a subtable may pass MAX_LOAD up to
 * this; the commit grows it back under MAX_LOAD. */
#define PEND_LOAD 0.9

#define PBUF 16384

struct chunk {
	eng_fp fp[CHUNK];
	uint32_t *parent; /* only when parents live in memory */
};

/*
 * Invariant (fpset_is_valid()):
 *   slots:   every id < count has exactly one slot whose id part is id + 1,
 *            in subtable sub_of(the id's record), and its tag part is
 *            tag_of(that record); no other slot is full; each full slot is
 *            reached from pos_of(its record) by a probe within its subtable
 *            that crosses no empty slot
 *   load:    each subtable's count is its full slots, they sum to count,
 *            and each is <= grow_at == floor(cap * MAX_LOAD) (cap: each
 *            subtable's slots); count <= the id space
 *   records: nchunks chunks hold ids [0, count): nchunks * CHUNK >= count,
 *            at most one chunk beyond the last id's; records never move
 *   parents: with a file (pfd >= 0) ids below pbuf_start are in the file,
 *            [pbuf_start, count) in pbuf, pbuf_start a multiple of PBUF;
 *            else every chunk has its parent array, unless parents_lost
 *   bytes:   the index's, the chunks' and the table's sizes, summed
 *   pending: none (pend_fps NULL) but between fpset_pend_begin() and
 *            its commit or abort, when the rules above may not hold
 * Checked by the one writer, or while no writer runs: readers may run
 * alongside (they never store), the validator only loads.
 */
struct sub {
	uint32_t *slot;
	uint64_t count;    /* ids whose slot is here */
};

struct fpset {
	struct chunk **chunks;
	size_t nchunks, chunks_cap;
	struct sub sub[FPSET_SUBS];
	uint64_t cap;      /* slots in each subtable */
	uint64_t count;    /* ids handed out */
	uint64_t grow_at;  /* a subtable's count at which the index grows */
	uint64_t resv[FPSET_SUBS]; /* fpset_reserve()'s, per subtable, until
				    * fpset_commit() counts them */
	size_t mem_limit;  /* 0: none */
	size_t bytes;
	int pfd;           /* parent file, or -1: parents in the chunks */
	bool parents_lost; /* the file failed: no parent can be read back */
	uint64_t pbuf_start;
	/* pending states (fpset_pend_begin()): ids from pend_base on are
	 * pending, their fingerprints at pend_fps + (id - pend_base) *
	 * pend_stride; no subtable passes pend_max meanwhile */
	const unsigned char *pend_fps;
	size_t pend_stride;
	uint64_t pend_base, pend_max;
	uint32_t pbuf[PBUF];
};

static int open_parent_file(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	snprintf(path, sizeof path, "%s/cmc-parents.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static bool flush_parents(fpset *s)
{
	size_t n = (size_t)(s->count - s->pbuf_start) * sizeof(uint32_t);
	off_t off = (off_t)(s->pbuf_start * sizeof(uint32_t));
	const char *p = (const char *)s->pbuf;
	while (n) {
		ssize_t k = pwrite(s->pfd, p, n, off);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
		off += k;
	}
	s->pbuf_start = s->count;
	return true;
}

static uint64_t pos_of(eng_fp fp, uint64_t cap)
{
	return (uint64_t)(((unsigned __int128)fp.lo * cap) >> 64);
}

static uint32_t tag_of(eng_fp fp)
{
	return (uint32_t)(fp.hi >> (64 - (32 - ID_BITS))) << ID_BITS;
}

static unsigned sub_of(eng_fp fp) { return (unsigned)(fp.hi & (FPSET_SUBS - 1)); }

unsigned fpset_sub(eng_fp fp) { return sub_of(fp); }

/* The whole index: every subtable. */
static size_t index_bytes(uint64_t cap) { return (size_t)cap * FPSET_SUBS * sizeof(uint32_t); }

/*
 * A zeroed index written at once.  calloc's fresh pages are the shared zero
 * page until written, and the rebuild reads each slot before it writes it:
 * two faults per page, the second of which replaces a mapping and so, once
 * the process has a second thread (the store's writer), interrupts that
 * thread's core to flush its TLB.  Writing first maps each page once.
 */
#define HUGE_PAGE ((size_t)2 << 20)

/* Subtables from this size on are mapped, not malloc'd: a rebuild frees
 * them all for larger ones, and freed malloc memory of a size no later
 * request fits stays in the process (glibc's heap, whose mmap threshold
 * rises to 1 MiB once a queue block is freed): bench-wide's peak RSS held
 * every earlier index, 33.0 bytes a state against the 32 of issue 21's
 * goal.  Mapped ones go back to the kernel when freed. */
#define INDEX_MAP (64u << 10)

static size_t index_map_bytes(size_t bytes)
{
	size_t unit = bytes >= HUGE_PAGE ? HUGE_PAGE : 4096;
	return (bytes + unit - 1) & ~(unit - 1);
}

static uint32_t *index_new(uint64_t cap)
{
	uint32_t *p;
	size_t bytes = (size_t)cap * sizeof *p;
	if (bytes >= INDEX_MAP) {
		p = mmap(NULL, index_map_bytes(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (p == MAP_FAILED)
			return NULL;
		/* Big subtables on 2 MiB pages where the kernel gives them
		 * (a hint; failure changes nothing): their lookups land
		 * anywhere, and a 4 KiB page's TLB miss costs each of them a
		 * walk; a fresh one also faults 512 times less. */
		if (bytes >= HUGE_PAGE)
			madvise(p, index_map_bytes(bytes), MADV_HUGEPAGE);
	} else {
		p = calloc(cap, sizeof *p);
	}
	/* one write per page; volatile, or the compiler folds a memset
	 * after malloc back into calloc */
	for (size_t i = 0; p && i < cap; i += 4096 / sizeof *p)
		((volatile uint32_t *)p)[i] = 0;
	return p;
}

static void index_free(uint32_t *p, uint64_t cap)
{
	size_t bytes = (size_t)cap * sizeof *p;
	if (!p)
		return;
	if (bytes >= INDEX_MAP)
		munmap(p, index_map_bytes(bytes));
	else
		free(p);
}

fpset *fpset_new(size_t mem_limit)
{
	fpset *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->mem_limit = mem_limit;
	s->cap = 1024 / FPSET_SUBS;
	bool ok = true;
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		ok &= (s->sub[i].slot = index_new(s->cap)) != NULL;
	/* every chunk the id space can need: 16 KiB, and it never moves */
	s->chunks_cap = (FPSET_MAX_STATES >> CHUNK_BITS) + 1;
	s->chunks = calloc(s->chunks_cap, sizeof *s->chunks);
	if (!ok || !s->chunks) {
		for (unsigned i = 0; i < FPSET_SUBS; i++)
			index_free(s->sub[i].slot, s->cap);
		free(s->chunks);
		free(s);
		return NULL;
	}
	s->grow_at = (uint64_t)(s->cap * MAX_LOAD);
	s->bytes = index_bytes(s->cap) + sizeof *s + s->chunks_cap * sizeof *s->chunks;
	s->pfd = getenv("CMC_PARENTS_IN_MEMORY") ? -1 : open_parent_file();
	return s;
}

void fpset_free(fpset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nchunks; i++) {
		free(s->chunks[i]->parent);
		free(s->chunks[i]);
	}
	free(s->chunks);
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		index_free(s->sub[i].slot, s->cap);
	if (s->pfd >= 0)
		close(s->pfd);
	free(s);
}

static bool over_limit(const fpset *s, size_t more)
{
	return s->mem_limit && s->bytes + more > s->mem_limit;
}

/* Out of memory with no index left: nothing can be kept consistent. */
static _Noreturn void eng_die_oom(uint64_t count)
{
	fprintf(stderr, "cmc: out of memory rebuilding the visited set's index at %llu states\n",
		(unsigned long long)count);
	exit(2);
}

/* Every subtable of ncap slots, or none (all freed). */
static bool subs_new(fpset *s, uint64_t ncap)
{
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		if (!(s->sub[i].slot = index_new(ncap))) {
			while (i--) {
				index_free(s->sub[i].slot, ncap);
				s->sub[i].slot = NULL;
			}
			return false;
		}
	return true;
}

/*
 * Put every record into the new index of ncap slots a subtable, counting
 * them.  The records are read in order; the slots are scattered, each a
 * likely cache miss, so the slot of the record AHEAD places on is fetched
 * ahead.  (Without it a rebuild cost a tenth of a --jobs 2 search: perf,
 * bench-counters-small.)
 */
#define AHEAD 16
static void fetch_slot_ahead(const fpset *s, uint64_t id, uint64_t end, uint64_t ncap)
{
	if (id + AHEAD < end) {
		uint64_t a = id + AHEAD;
		eng_fp nx = s->chunks[a >> CHUNK_BITS]->fp[a & (CHUNK - 1)];
		__builtin_prefetch(&s->sub[sub_of(nx)].slot[pos_of(nx, ncap)], 1);
	}
}

static void reinsert(fpset *s, uint64_t ncap)
{
	for (uint64_t id = 0; id < s->count; id++) {
		fetch_slot_ahead(s, id, s->count, ncap);
		eng_fp fp = s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)];
		struct sub *t = &s->sub[sub_of(fp)];
		uint64_t p = pos_of(fp, ncap);
		while (t->slot[p])
			if (++p == ncap)
				p = 0;
		t->slot[p] = tag_of(fp) | (uint32_t)(id + 1);
		t->count++;
	}
}

/* Replace the index by subtables of ncap slots over ids [0, count).
 * False, and the set kept at its old size, when the memory limit or the
 * allocator refuses the new one. */
static bool rebuild_index(fpset *s, uint64_t ncap)
{
	/* The index is rebuilt from the records, so the old one can go first:
	 * the two never coexist and the peak stays at the new one's size. */
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		index_free(s->sub[i].slot, s->cap);
	bool ok = subs_new(s, ncap);
	if (!ok) { /* keep the set usable at its old size, and say it is full */
		ncap = s->cap;
		if (!subs_new(s, ncap))
			eng_die_oom(s->count);
	}
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		s->sub[i].count = 0;
	reinsert(s, ncap);
	s->bytes += index_bytes(ncap) - index_bytes(s->cap);
	s->cap = ncap;
	s->grow_at = (uint64_t)(ncap * MAX_LOAD);
	CMC_ASSERT_EXPENSIVE(fpset_is_valid(s)); /* a quiet point: no reader runs */
	return ok;
}

static bool grow_index(fpset *s)
{
	if (over_limit(s, index_bytes(s->cap + s->cap / 2)))
		return false;
	return rebuild_index(s, s->cap + s->cap / 2);
}

static bool add_chunk(fpset *s)
{
	size_t need = sizeof(struct chunk) + (s->pfd < 0 ? CHUNK * sizeof(uint32_t) : 0);
	if (over_limit(s, need))
		return false;
	if (s->nchunks == s->chunks_cap)
		return false; /* (the id space ends first) */
	struct chunk *c = malloc(sizeof *c);
	if (!c)
		return false;
	c->parent = NULL;
	if (s->pfd < 0 && !(c->parent = malloc(CHUNK * sizeof(uint32_t)))) {
		free(c);
		return false;
	}
	s->chunks[s->nchunks++] = c;
	s->bytes += need;
	return true;
}

/* ---- validators (check.h) -------------------------------------------- */

static eng_fp record_of(const fpset *s, uint32_t id)
{
	return s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)];
}

/* One full slot p of subtable i: its id is handed out, its record belongs
 * here, its tag is its record's, and a probe from its record's position
 * reaches it without an empty slot. */
static bool slot_is_valid(const fpset *s, unsigned i, uint64_t p)
{
	const uint32_t *slot = s->sub[i].slot;
	CMC_VALID(p < s->cap, "fpset: slot %llu outside a subtable of %llu", (unsigned long long)p,
		  (unsigned long long)s->cap);
	uint32_t v = __atomic_load_n(&slot[p], __ATOMIC_ACQUIRE);
	if (!v)
		return true;
	uint32_t id = (v & ID_MASK) - 1;
	CMC_VALID((v & ID_MASK) != 0 && id < s->count,
		  "fpset slots: slot %llu holds id %u, but only %llu ids were handed out",
		  (unsigned long long)p, (v & ID_MASK) - 1, (unsigned long long)s->count);
	eng_fp fp = record_of(s, id);
	CMC_VALID(sub_of(fp) == i, "fpset slots: id %u is in subtable %u, its record's is %u", id, i,
		  sub_of(fp));
	CMC_VALID((v & ~ID_MASK) == tag_of(fp), "fpset slots: slot %llu (id %u) has tag %#x, its record's is %#x",
		  (unsigned long long)p, id, v & ~ID_MASK, tag_of(fp));
	for (uint64_t q = pos_of(fp, s->cap); q != p; q = q + 1 == s->cap ? 0 : q + 1)
		CMC_VALID(__atomic_load_n(&slot[q], __ATOMIC_ACQUIRE) != 0,
			  "fpset slots: id %u at slot %llu is past the empty slot %llu: lookups miss it",
			  id, (unsigned long long)p, (unsigned long long)q);
	return true;
}

bool fpset_is_valid(const fpset *s)
{
	CMC_VALID(s && s->chunks, "fpset: no chunk table");
	CMC_VALID(!s->pend_fps, "fpset: pending states outside a segment (base %llu)",
		  (unsigned long long)s->pend_base);
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		CMC_VALID(s->sub[i].slot, "fpset: no subtable %u", i);
	CMC_VALID(s->count <= FPSET_MAX_STATES, "fpset load: %llu ids, more than the id space",
		  (unsigned long long)s->count);
	CMC_VALID(s->grow_at == (uint64_t)(s->cap * MAX_LOAD),
		  "fpset load: grows at %llu, not at %.2f of %llu slots", (unsigned long long)s->grow_at,
		  MAX_LOAD, (unsigned long long)s->cap);
	uint64_t sum = 0;
	for (unsigned i = 0; i < FPSET_SUBS; i++) {
		CMC_VALID(s->sub[i].count <= s->grow_at, "fpset load: %llu ids in subtable %u of %llu slots, above %.2f",
			  (unsigned long long)s->sub[i].count, i, (unsigned long long)s->cap, MAX_LOAD);
		sum += s->sub[i].count;
	}
	CMC_VALID(sum == s->count, "fpset load: the subtables count %llu ids, the set %llu",
		  (unsigned long long)sum, (unsigned long long)s->count);
	uint64_t need = (s->count + CHUNK - 1) >> CHUNK_BITS;
	CMC_VALID(s->nchunks >= need && s->nchunks <= need + 1 && s->nchunks <= s->chunks_cap,
		  "fpset records: %zu chunks for %llu ids", s->nchunks, (unsigned long long)s->count);
	size_t bytes = index_bytes(s->cap) + sizeof *s + s->chunks_cap * sizeof *s->chunks;
	for (size_t i = 0; i < s->nchunks; i++) {
		CMC_VALID(s->chunks[i] != NULL, "fpset records: chunk %zu is missing", i);
		CMC_VALID(s->pfd >= 0 || s->parents_lost || s->chunks[i]->parent,
			  "fpset parents: none in the file and chunk %zu has no parent array", i);
		bytes += sizeof(struct chunk) + (s->chunks[i]->parent ? CHUNK * sizeof(uint32_t) : 0);
	}
	CMC_VALID(s->bytes == bytes, "fpset bytes: %zu counted, the parts hold %zu", s->bytes, bytes);
	if (s->pfd >= 0)
		CMC_VALID(s->pbuf_start <= s->count && s->count - s->pbuf_start <= PBUF &&
				  s->pbuf_start % PBUF == 0,
			  "fpset parents: the buffer starts at %llu with %llu ids handed out",
			  (unsigned long long)s->pbuf_start, (unsigned long long)s->count);
	/* every id exactly once, and nothing else in the index */
	uint8_t *seen = calloc((size_t)(s->count + 7) / 8 + 1, 1);
	CMC_VALID(seen != NULL, "fpset: no memory to check the set");
	uint64_t full = 0;
	for (unsigned i = 0; i < FPSET_SUBS; i++) {
		uint64_t here = 0;
		for (uint64_t p = 0; p < s->cap; p++) {
			uint32_t v = __atomic_load_n(&s->sub[i].slot[p], __ATOMIC_ACQUIRE);
			if (!v)
				continue;
			slot_is_valid(s, i, p);
			uint32_t id = (v & ID_MASK) - 1;
			CMC_VALID(!(seen[id / 8] & (1u << (id % 8))),
				  "fpset slots: id %u is in two slots (second: %llu of subtable %u)", id,
				  (unsigned long long)p, i);
			seen[id / 8] |= (uint8_t)(1u << (id % 8));
			here++;
		}
		CMC_VALID(here == s->sub[i].count, "fpset slots: subtable %u counts %llu ids and holds %llu", i,
			  (unsigned long long)s->sub[i].count, (unsigned long long)here);
		full += here;
	}
	free(seen);
	CMC_VALID(full == s->count, "fpset slots: %llu full slots for %llu ids", (unsigned long long)full,
		  (unsigned long long)s->count);
	return true;
}

void fpset_break_for_test(fpset *s, int how)
{
	/* the first full slot */
	unsigned i = 0;
	uint64_t p = 0;
	while (!s->sub[i].slot[p])
		if (++p == s->cap) {
			p = 0;
			i++;
		}
	uint32_t *slot = s->sub[i].slot;
	switch (how) {
	case 0: /* lose a slot */
		slot[p] = 0;
		break;
	case 1: /* a wrong tag */
		slot[p] ^= 1u << ID_BITS;
		break;
	case 2: /* over the load limit */
		s->grow_at = s->cap;
		break;
	case 4: { /* a slot in the wrong subtable (moved to where it would be
		   * found first there, so only the subtable rule breaks) */
		uint32_t *to = s->sub[(i + 1) % FPSET_SUBS].slot;
		uint64_t q = pos_of(record_of(s, (slot[p] & ID_MASK) - 1), s->cap);
		while (to[q])
			q = q + 1 == s->cap ? 0 : q + 1;
		to[q] = slot[p];
		slot[p] = 0;
		s->sub[i].count--;
		s->sub[(i + 1) % FPSET_SUBS].count++;
		break;
	}
	default: /* an id never handed out */
		slot[p] = (slot[p] & ~ID_MASK) | (uint32_t)(s->count + 1);
		break;
	}
}

/* Position of fp's slot in its subtable t if present (*found) or of the
 * empty slot to fill. */
static uint64_t probe(const fpset *s, const struct sub *t, eng_fp fp, bool *found)
{
	uint32_t tag = tag_of(fp);
	uint64_t p = pos_of(fp, s->cap);
	for (;;) {
		uint32_t v = __atomic_load_n(&t->slot[p], __ATOMIC_ACQUIRE);
		if (!v) {
			*found = false;
			return p;
		}
		if ((v & ~ID_MASK) == tag) {
			uint32_t id = (v & ID_MASK) - 1;
			if (eng_fp_eq(s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)], fp)) {
				*found = true;
				return p;
			}
		}
		if (++p == s->cap)
			p = 0;
	}
}

uint32_t fpset_put(fpset *s, eng_fp fp, uint32_t parent, bool *fresh)
{
	bool found;
	CMC_ASSERT(!eng_fp_zero(fp));
	if (s->parents_lost) { /* a trace could not be rebuilt: stop */
		*fresh = true;
		return ENG_NO_STATE;
	}
	struct sub *t = &s->sub[sub_of(fp)];
	uint64_t p = probe(s, t, fp, &found);
	if (found) {
		*fresh = false;
		return (__atomic_load_n(&t->slot[p], __ATOMIC_RELAXED) & ID_MASK) - 1;
	}
	*fresh = true;
	if (s->count >= FPSET_MAX_STATES)
		return ENG_NO_STATE;
	if ((s->count & (CHUNK - 1)) == 0 && (s->count >> CHUNK_BITS) >= s->nchunks && !add_chunk(s))
		return ENG_NO_STATE;
	if (t->count + 1 > s->grow_at) {
		if (!grow_index(s))
			return ENG_NO_STATE;
		p = probe(s, t, fp, &found);
	}
	if (s->pfd >= 0 && s->count - s->pbuf_start == PBUF && !flush_parents(s)) {
		/* disk full or gone: the parents written so far may be lost,
		 * and the chunks have no arrays to hold them: stop, and say
		 * so to whoever asks for a parent */
		close(s->pfd);
		s->pfd = -1;
		s->parents_lost = true;
		return ENG_NO_STATE;
	}
	uint32_t id = (uint32_t)s->count++;
	struct chunk *c = s->chunks[id >> CHUNK_BITS];
	c->fp[id & (CHUNK - 1)] = fp;
	if (s->pfd >= 0)
		s->pbuf[id - s->pbuf_start] = parent;
	else
		c->parent[id & (CHUNK - 1)] = parent;
	t->count++;
	__atomic_store_n(&t->slot[p], tag_of(fp) | (id + 1), __ATOMIC_RELEASE);
	CMC_ASSERT_INTERNAL(slot_is_valid(s, sub_of(fp), p));
	/* the whole set at every power of two: O(1) amortised per put */
	CMC_ASSERT_INTERNAL((s->count & (s->count - 1)) || fpset_is_valid(s));
	return id;
}

/* ---- many at once (fpset.h) ------------------------------------------ */

bool fpset_reserve(fpset *s, uint64_t n, const uint64_t add[FPSET_SUBS])
{
	if (s->parents_lost || s->count + n > FPSET_MAX_STATES)
		return false;
	size_t want = (size_t)((s->count + n + CHUNK - 1) >> CHUNK_BITS), had = s->nchunks;
	size_t one = sizeof(struct chunk) + (s->pfd < 0 ? CHUNK * sizeof(uint32_t) : 0);
	if (want > had && (want > s->chunks_cap || over_limit(s, (want - had) * one)))
		return false;
	while (s->nchunks < want)
		if (!add_chunk(s)) { /* the allocator refused: give back this call's */
			while (s->nchunks > had) {
				struct chunk *c = s->chunks[--s->nchunks];
				free(c->parent);
				free(c);
				s->bytes -= one;
			}
			return false;
		}
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		while (s->sub[i].count + add[i] > s->grow_at)
			if (!grow_index(s))
				return false;
	memcpy(s->resv, add, sizeof s->resv);
	return true;
}

/* Concurrent, by id: the record is its own id's. */
void fpset_place(fpset *s, uint32_t id, eng_fp fp)
{
	s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)] = fp;
}

/* Concurrent, one thread per subtable: the fingerprints are distinct and
 * absent, so this only looks for an empty slot and takes it, with plain
 * stores (released: a reader that loads the slot finds the record,
 * placed before the barrier that precedes this). */
void fpset_index(fpset *s, uint32_t id, eng_fp fp)
{
	uint32_t *slot = s->sub[sub_of(fp)].slot;
	uint64_t p = pos_of(fp, s->cap);
	while (__atomic_load_n(&slot[p], __ATOMIC_RELAXED))
		p = p + 1 == s->cap ? 0 : p + 1;
	__atomic_store_n(&slot[p], tag_of(fp) | (id + 1), __ATOMIC_RELEASE);
}

/* Hand out ids count .. count + n - 1 with their parents, and count the
 * reserved slots in their subtables. */
static void commit_ids(fpset *s, uint64_t n, const uint32_t *parents)
{
	for (uint64_t i = 0; i < n; i++) {
		if (s->pfd >= 0 && s->count - s->pbuf_start == PBUF && !flush_parents(s)) {
			close(s->pfd); /* as in fpset_put(): no trace can be rebuilt */
			s->pfd = -1;
			s->parents_lost = true;
		}
		uint64_t id = s->count++;
		if (s->parents_lost)
			continue;
		if (s->pfd >= 0)
			s->pbuf[id - s->pbuf_start] = parents[i];
		else
			s->chunks[id >> CHUNK_BITS]->parent[id & (CHUNK - 1)] = parents[i];
	}
	for (unsigned i = 0; i < FPSET_SUBS; i++) {
		s->sub[i].count += s->resv[i];
		s->resv[i] = 0;
	}
}

bool fpset_commit(fpset *s, uint64_t n, const uint32_t *parents)
{
	commit_ids(s, n, parents);
	CMC_ASSERT_EXPENSIVE(fpset_is_valid(s)); /* one thread again */
	return !s->parents_lost;
}

void fpset_truncate(fpset *s, uint64_t count)
{
	if (count >= s->count)
		return;
	if (s->pfd >= 0 && s->pbuf_start > count) { /* read the buffer back */
		uint64_t start = count - count % PBUF;
		size_t len = (size_t)(count - start) * sizeof(uint32_t);
		if (pread(s->pfd, s->pbuf, len, (off_t)(start * sizeof(uint32_t))) != (ssize_t)len) {
			close(s->pfd);
			s->pfd = -1;
			s->parents_lost = true;
		}
		s->pbuf_start = start;
	}
	s->count = count;
	memset(s->resv, 0, sizeof s->resv);
	size_t need = (size_t)((count + CHUNK - 1) >> CHUNK_BITS);
	while (s->nchunks > need) {
		struct chunk *c = s->chunks[--s->nchunks];
		s->bytes -= sizeof(struct chunk) + (c->parent ? CHUNK * sizeof(uint32_t) : 0);
		free(c->parent);
		free(c);
	}
	rebuild_index(s, s->cap);
}

/* ---- pending states (fpset.h) ------------------------------------- */

uint64_t fpset_pend_cap(const fpset *s, uint64_t room)
{
	uint64_t cap = s->cap;
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		while (s->sub[i].count + room > (uint64_t)(cap * MAX_LOAD))
			cap += cap / 2;
	if (cap != s->cap && over_limit(s, index_bytes(cap)))
		return 0;
	return cap;
}

void fpset_regrow(fpset *s, uint64_t ncap, unsigned k, unsigned n)
{
	for (unsigned i = k; i < FPSET_SUBS; i += n) {
		index_free(s->sub[i].slot, s->cap);
		if (!(s->sub[i].slot = index_new(ncap)))
			eng_die_oom(s->count);
	}
}

/*
 * The records' k-th share of n, each read by one thread only: the threads
 * fill every subtable together, a slot taken by compare-and-swap.  (Each
 * thread once read all the records to put its own subtables' in: twice
 * the reading on two threads, and a --jobs 2 search spent 17% of its
 * cycles rebuilding, against 9% on one thread.)
 */
void fpset_regrow_fill(fpset *s, uint64_t ncap, unsigned k, unsigned n)
{
	uint64_t a = s->count * k / n, b = s->count * (k + 1) / n;
	for (uint64_t id = a; id < b; id++) {
		fetch_slot_ahead(s, id, b, ncap);
		eng_fp fp = s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)];
		uint32_t *slot = s->sub[sub_of(fp)].slot, mine = tag_of(fp) | (uint32_t)(id + 1);
		for (uint64_t p = pos_of(fp, ncap);;) {
			uint32_t v = __atomic_load_n(&slot[p], __ATOMIC_RELAXED);
			if (!v && __atomic_compare_exchange_n(&slot[p], &v, mine, false, __ATOMIC_RELAXED,
							      __ATOMIC_RELAXED))
				break;
			if (++p == ncap)
				p = 0;
		}
	}
}

void fpset_regrow_done(fpset *s, uint64_t ncap)
{
	s->bytes += index_bytes(ncap) - index_bytes(s->cap);
	s->cap = ncap;
	s->grow_at = (uint64_t)(ncap * MAX_LOAD);
	CMC_ASSERT_EXPENSIVE(fpset_is_valid(s));
}

bool fpset_pend_begin(fpset *s, uint64_t room, const void *pend_fps, size_t pend_stride)
{
	if (s->parents_lost)
		return false;
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		while (s->sub[i].count + room > s->grow_at)
			if (!grow_index(s))
				return false;
	s->pend_fps = pend_fps;
	s->pend_stride = pend_stride;
	s->pend_base = s->count;
	s->pend_max = (uint64_t)(s->cap * PEND_LOAD);
	return true;
}

uint64_t fpset_pend_room(const fpset *s, unsigned threads)
{
	uint64_t most = 0;
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		if (s->sub[i].count > most)
			most = s->sub[i].count;
	return most < s->pend_max ? (s->pend_max - most) / (threads ? threads : 1) : 0;
}

static eng_fp pend_fp(const fpset *s, uint32_t id)
{
	if (id < s->pend_base)
		return s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)];
	eng_fp fp;
	memcpy(&fp, s->pend_fps + (size_t)(id - s->pend_base) * s->pend_stride, sizeof fp);
	return fp;
}

uint32_t fpset_pend_put(fpset *s, eng_fp fp, uint32_t pid, uint64_t *where)
{
	unsigned i = sub_of(fp);
	uint32_t *slot = s->sub[i].slot, tag = tag_of(fp);
	uint64_t p = pos_of(fp, s->cap);
	for (;;) {
		uint32_t v = __atomic_load_n(&slot[p], __ATOMIC_ACQUIRE);
		if (!v) {
			uint32_t mine = tag | (pid + 1);
			if (__atomic_compare_exchange_n(&slot[p], &v, mine, false, __ATOMIC_RELEASE,
							__ATOMIC_ACQUIRE)) {
				*where = (uint64_t)i << 40 | p;
				return pid;
			}
			/* another thread took it first: look at what it put */
		}
		if ((v & ~ID_MASK) == tag) {
			uint32_t id = (v & ID_MASK) - 1;
			if (eng_fp_eq(pend_fp(s, id), fp))
				return id;
		}
		if (++p == s->cap)
			p = 0;
	}
}

void fpset_pend_prefetch(const fpset *s, eng_fp fp)
{
	uint32_t v = __atomic_load_n(&s->sub[sub_of(fp)].slot[pos_of(fp, s->cap)], __ATOMIC_ACQUIRE);
	if (!v || (v & ~ID_MASK) != tag_of(fp))
		return;
	uint32_t id = (v & ID_MASK) - 1;
	if (id < s->pend_base)
		__builtin_prefetch(&s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)]);
	else
		__builtin_prefetch(s->pend_fps + (size_t)(id - s->pend_base) * s->pend_stride);
}

bool fpset_pend_chunks(fpset *s, uint64_t n, const uint64_t add[FPSET_SUBS])
{
	if (s->count + n > FPSET_MAX_STATES)
		return false;
	size_t want = (size_t)((s->count + n + CHUNK - 1) >> CHUNK_BITS);
	size_t one = sizeof(struct chunk) + (s->pfd < 0 ? CHUNK * sizeof(uint32_t) : 0);
	/* the index the commit will grow to must fit as well */
	uint64_t cap = s->cap;
	for (unsigned i = 0; i < FPSET_SUBS; i++)
		while (s->sub[i].count + add[i] > (uint64_t)(cap * MAX_LOAD))
			cap += cap / 2;
	size_t more = want > s->nchunks ? (want - s->nchunks) * one : 0;
	if (want > s->chunks_cap || over_limit(s, more + (cap != s->cap ? 2 * index_bytes(cap) : 0)))
		return false;
	while (s->nchunks < want)
		if (!add_chunk(s))
			return false; /* fpset_pend_abort() gives back what was added */
	return true;
}

void fpset_pend_settle(fpset *s, uint64_t where, uint32_t id, eng_fp fp)
{
	uint32_t *slot = &s->sub[where >> 40].slot[where & ((1ull << 40) - 1)];
	__atomic_store_n(slot, tag_of(fp) | (id + 1), __ATOMIC_RELEASE);
}

bool fpset_pend_commit(fpset *s, uint64_t n, const uint32_t *parents, const uint64_t add[FPSET_SUBS])
{
	s->pend_base = 0;
	s->pend_fps = NULL;
	memcpy(s->resv, add, sizeof s->resv);
	commit_ids(s, n, parents);
	/* the pending states may have taken a subtable past its load */
	bool ok = true;
	for (unsigned i = 0; i < FPSET_SUBS && ok; i++)
		while (ok && s->sub[i].count > s->grow_at)
			ok = grow_index(s);
	CMC_ASSERT_EXPENSIVE(!ok || fpset_is_valid(s));
	return ok && !s->parents_lost;
}

void fpset_pend_abort(fpset *s)
{
	s->pend_base = 0;
	s->pend_fps = NULL;
	memset(s->resv, 0, sizeof s->resv);
	size_t need = (size_t)((s->count + CHUNK - 1) >> CHUNK_BITS);
	size_t one = sizeof(struct chunk) + (s->pfd < 0 ? CHUNK * sizeof(uint32_t) : 0);
	while (s->nchunks > need + 1) { /* one spare, as fpset_put() leaves */
		struct chunk *c = s->chunks[--s->nchunks];
		free(c->parent);
		free(c);
		s->bytes -= one;
	}
	rebuild_index(s, s->cap);
}

uint32_t fpset_get(const fpset *s, eng_fp fp)
{
	bool found;
	const struct sub *t = &s->sub[sub_of(fp)];
	uint64_t p = probe(s, t, fp, &found);
	return found ? (__atomic_load_n(&t->slot[p], __ATOMIC_RELAXED) & ID_MASK) - 1 : ENG_NO_STATE;
}

eng_fp fpset_fp(const fpset *s, uint32_t id)
{
	if (id >= s->count)
		return (eng_fp){0, 0};
	return s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)];
}

uint32_t fpset_parent(const fpset *s, uint32_t id)
{
	if (id >= s->count || s->parents_lost)
		return ENG_NO_STATE;
	if (s->pfd < 0)
		return s->chunks[id >> CHUNK_BITS]->parent[id & (CHUNK - 1)];
	if (id >= s->pbuf_start)
		return s->pbuf[id - s->pbuf_start];
	uint32_t p;
	if (pread(s->pfd, &p, sizeof p, (off_t)id * (off_t)sizeof p) != (ssize_t)sizeof p)
		return ENG_NO_STATE;
	return p;
}

uint64_t fpset_count(const fpset *s) { return s->count; }
size_t fpset_bytes(const fpset *s) { return s->bytes; }

void fpset_prefetch_slot(const fpset *s, eng_fp fp)
{
	__builtin_prefetch(&s->sub[sub_of(fp)].slot[pos_of(fp, s->cap)]);
}

bool fpset_will_grow(const fpset *s, eng_fp fp)
{
	return s->sub[sub_of(fp)].count + 1 > s->grow_at;
}

void fpset_prefetch_record(const fpset *s, eng_fp fp)
{
	uint32_t v = __atomic_load_n(&s->sub[sub_of(fp)].slot[pos_of(fp, s->cap)], __ATOMIC_ACQUIRE);
	if (v && (v & ~ID_MASK) == tag_of(fp)) {
		uint32_t id = (v & ID_MASK) - 1;
		__builtin_prefetch(&s->chunks[id >> CHUNK_BITS]->fp[id & (CHUNK - 1)]);
	}
}
