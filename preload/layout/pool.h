/*
 * pool.h — the layout of the deterministic pool allocator (CMC_ALLOC_POOL)
 * inside the heap region, and the interfaces of its two halves:
 *   pool.c        the allocator core (init, alloc, free, realloc), working on
 *                 a caller-supplied region: the preload's mapped region, or an
 *                 ordinary buffer in the self-check model and the unit tests;
 *   pool_check.c  one validator per runtime-checkable invariant, reading a
 *                 read-only COPY of the region (cmc reads the target's region
 *                 through /proc/PID/mem and runs them on every state).
 * preload/INVARIANTS.md is the catalogue; each INV-N below names its entry.
 *
 * Plain C over <stdint.h>/<stddef.h> and cmc_region.h: both .c files are
 * built into the preload (no malloc) and into libcmc (see preload/layout/
 * in the Makefile).  Everything is stored as offsets from the region base,
 * never as pointers, so a copy of the region at another address (a model
 * state, the checker's buffer) is still valid.
 *
 * Region layout (offsets from base):
 *   [0, hdr_size)          struct cmc_region_hdr (not part of the raw state)
 *   [POOL_META_OFF, ...)   struct pool_meta            == data_off
 *   [table_off, +n_units)  the unit table, one byte per unit
 *   [units_off, ...)       n_units units of 1 << unit_shift bytes; a chunk
 *                          starts at a unit boundary with struct pool_chunk
 *   used = units_off + units_hw * unit: the window ends after the highest
 *   unit in use, so releasing the top chunk shrinks the raw window again.
 */
#ifndef CMC_POOL_H
#define CMC_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "cmc_region.h"

#define POOL_META_MAGIC 0x4c4f4f50434d43ULL /* "CMCPOOL" */
#define POOL_CHUNK_MAGIC 0x4b4e4843u       /* "CHNK" */
#define POOL_META_OFF 256u                  /* == data_off; past the region header */
#define POOL_UNIT_SHIFT_DEFAULT 14u         /* 16 KiB units in the preload */
#define POOL_UNIT_SHIFT_MIN 8u
#define POOL_UNIT_SHIFT_MAX 24u
#define POOL_CLASSES_MAX 48u
#define POOL_HINT_NONE 0xffffffffu
/* Freed and never-used bytes read as this.  Zero on purpose: fresh pages
 * are zero, so a freed slot, a released unit and a never-touched unit are
 * byte-identical and raw states merge; calloc costs nothing.  The price: a
 * write of zeros to a freed slot is invisible (see INVARIANTS.md INV-12). */
#define POOL_POISON 0x00u
/* Every block keeps at least this many poison bytes after its requested
 * size, so an overflow by one byte or more is visible (INV-13). */
#define POOL_REDZONE 1u
/* Freed class slots wait in a FIFO of up to this many before they can be
 * handed out again (INV-24), so a write through a dangling pointer lands in
 * a slot that is still free, where INV-12 sees it, rather than in a new
 * block.  The preload uses all of it; pool_init() may be given less (the
 * self-check models, whose state spaces the FIFO's orders multiply). */
#define POOL_QUARANTINE 8u
#define POOL_OWNER_MAIN 1u          /* single-threaded: the one owner id */
#define POOL_CLAIM_OWNED 0x80000000u /* claim-state word: owned, not released */

/* Unit table entries (one byte per unit). */
#define POOL_U_FREE 0x00u      /* free unit: every byte is poison (INV-7) */
/* A class chunk's (single) unit names its class and whether it has a free
 * slot, so finding the next chunk with room is a byte search of the table:
 * 0x01 + c  class-c chunk with a free slot; 0x41 + c  class-c chunk, full. */
#define POOL_U_CLASS_SPACE(c) (0x01u + (c))
#define POOL_U_CLASS_FULL(c) (0x41u + (c))
#define POOL_U_IS_CLASS(e) (((e) >= 0x01u && (e) <= 0x30u) || ((e) >= 0x41u && (e) <= 0x70u))
#define POOL_U_CLASS_OF(e) (((e) & 0x3fu) - 1u)
#define POOL_U_HAS_SPACE(e) ((e) <= 0x30u)
#define POOL_U_DEDICATED 0x80u /* | (back offset + 1): unit of a dedicated chunk */
#define POOL_DEDICATED_MAX_UNITS 126u /* back offsets 0..125 fit 0x81..0xfe */
#define POOL_U_HUGE_TAIL 0xfeu /* a huge chunk's unit after its head */
#define POOL_U_HUGE_HEAD 0xffu /* a huge chunk's first unit */
/* 0x31..0x40, 0x71..0x80, and 0xfe outside a huge span are invalid
 * (INV-9, INV-10). */

/* Chunk kinds (struct pool_chunk.kind). */
enum { POOL_K_CLASS = 1, POOL_K_DEDICATED = 2, POOL_K_HUGE = 3 };

/*
 * The pool's own metadata at data_off.  Invariants:
 *   INV-1  magic == POOL_META_MAGIC; POOL_UNIT_SHIFT_MIN <= unit_shift <=
 *          POOL_UNIT_SHIFT_MAX; table_off == data_off + sizeof(pool_meta)
 *          rounded to 16; units_off == table end rounded up to a unit;
 *          units_off + n_units * unit <= region size; n_classes and
 *          max_class are those pool_class_size() gives for the unit;
 *          q_cap <= POOL_QUARANTINE.
 *          (pool_inv_meta)
 *   INV-2  units_hw <= n_units; table[u] == POOL_U_FREE for u >= units_hw;
 *          table[units_hw - 1] != POOL_U_FREE when units_hw > 0;
 *          hdr.used == units_off + units_hw * unit; free_lo is the
 *          lowest free unit, or units_hw. (pool_inv_window)
 *   INV-14 hint[c] is the lowest unit holding a class-c chunk with a free
 *          slot, or POOL_HINT_NONE. (pool_inv_hint)
 *   INV-15 n_double_free == 0; INV-16 n_bad_free == 0 (and the header's
 *          n_foreign == 0): every free named a live block.
 *   INV-12 (the part the allocator records) n_reuse_written == 0: every
 *          slot and reused unit was all poison when handed out again.
 *   INV-24 n_quarantine <= q_cap; quarantine[0 .. n_quarantine)
 *          are distinct region offsets of free slots (bitmap bit clear) of
 *          class chunks in use, oldest free first; the other entries are 0.
 *          A quarantined slot is free (not live, not counted in `live`)
 *          but not reusable; class_alloc() skips it.  (pool_inv_quarantine)
 */
struct pool_meta {
	uint64_t magic;
	uint32_t unit_shift;
	uint32_t n_units;
	uint64_t table_off;
	uint64_t units_off;
	uint32_t n_classes;
	uint32_t max_class;     /* largest class size in bytes */
	uint32_t units_hw;      /* one past the highest unit in use */
	uint32_t n_double_free; /* free of a slot whose bit was clear */
	uint32_t n_bad_free;    /* free/realloc of a region pointer that names no block */
	uint32_t free_lo;       /* lowest free unit (units_hw when none below it) */
	uint64_t first_misuse;  /* region offset of the first misused pointer */
	uint32_t hint[POOL_CLASSES_MAX];
	uint32_t q_cap;         /* quarantine bound, fixed at init (<= POOL_QUARANTINE) */
	uint32_t n_quarantine;  /* entries in use in quarantine[] */
	uint32_t n_reuse_written; /* slots/units found written when handed out again */
	uint32_t reserved_q;    /* zero: no padding, every byte of the meta is state */
	uint64_t first_reuse_written; /* region offset of the first such byte */
	/* Freed class slots not yet reusable, oldest first; shifted down when
	 * the oldest leaves, so one FIFO has one byte image (raw merging). */
	uint64_t quarantine[POOL_QUARANTINE];
};

/*
 * A chunk header, at offset 0 of the chunk's first unit (64 bytes).
 *   Class chunk (one unit): a uint64 slot bitmap at bitmap_off, then a
 *   uint16 sizes[n_slots] at sizes_off (requested size + 1 of a live slot,
 *   0 of a free one), then n_slots slots of slot_size bytes from payload_off.
 *   Dedicated (<= POOL_DEDICATED_MAX_UNITS units) and huge chunks: one block
 *   of req bytes at payload_off (aligned as asked); bitmap/sizes unused.
 * Invariants:
 *   INV-3  magic, kind matching the unit table, owner != 0, claim ==
 *          POOL_CLAIM_OWNED and sum == pool_chunk_sum() (pool_inv_header);
 *   INV-4  geometry: a class chunk has units == 1, slot_size ==
 *          pool_class_size(cls), n_slots == pool_class_slots(); a dedicated
 *          or huge one holds req + POOL_REDZONE bytes from payload_off inside
 *          its units (pool_inv_geometry);
 *   INV-5  header, bitmap and sizes end at or before payload_off, and the
 *          slots end inside the unit (pool_inv_meta_fit);
 *   INV-6  popcount(bitmap) == live, no bit >= n_slots (pool_inv_bitmap_live);
 *   INV-7  a class chunk in the table has live >= 1: an emptied chunk is
 *          released at once, and a released unit is all poison
 *          (pool_inv_released);
 *   INV-8  sizes[i] != 0 exactly when bit i is set (pool_inv_slot_once).
 * live is deliberately outside `sum` (it changes on every call); INV-6
 * guards it.
 */
struct pool_chunk {
	uint32_t magic;
	uint8_t kind;
	uint8_t reserved0;
	uint16_t cls;
	uint32_t slot_size;
	uint32_t n_slots;
	uint32_t live;
	uint32_t units;
	uint32_t owner;         /* owning thread id; POOL_OWNER_MAIN for now */
	uint32_t claim;         /* claim state: POOL_CLAIM_OWNED while in use */
	uint64_t req;           /* dedicated/huge: requested bytes */
	uint32_t payload_off;   /* from the chunk base */
	uint32_t bitmap_off;
	uint32_t sizes_off;
	uint32_t sum;           /* pool_chunk_sum() of the fields above but live */
	uint64_t reserved1;
};

_Static_assert(POOL_CLASSES_MAX <= 0x30, "class entries fit the table encoding");
_Static_assert(sizeof(struct pool_meta) == 344, "pool_meta has no padding (it is hashed raw)");
_Static_assert(sizeof(struct pool_chunk) == 64, "chunk header is 64 bytes");
_Static_assert(POOL_META_OFF >= sizeof(struct cmc_region_hdr), "meta after the region header");

/* ---- the layout in a writable region (pool.c, and tests that corrupt it) --
 * Trusting: they follow the meta's offsets unchecked.  A reader of
 * untrusted bytes goes through struct pool_view below instead. */

static inline struct pool_meta *pool_meta_of(struct cmc_region_hdr *h)
{
	return (struct pool_meta *)((uint8_t *)h + h->data_off);
}

static inline uint8_t *pool_table_of(struct cmc_region_hdr *h, const struct pool_meta *m)
{
	return (uint8_t *)h + m->table_off;
}

/* Region offset of unit u. */
static inline uint64_t pool_unit_off(const struct pool_meta *m, uint32_t u)
{
	return m->units_off + ((uint64_t)u << m->unit_shift);
}

static inline struct pool_chunk *pool_chunk_at(struct cmc_region_hdr *h, const struct pool_meta *m,
						uint32_t u)
{
	return (struct pool_chunk *)((uint8_t *)h + pool_unit_off(m, u));
}

static inline uint64_t *pool_bitmap_of(struct pool_chunk *c)
{
	return (uint64_t *)((uint8_t *)c + c->bitmap_off);
}

static inline uint16_t *pool_sizes_of(struct pool_chunk *c)
{
	return (uint16_t *)((uint8_t *)c + c->sizes_off);
}

/* ---- shared pure functions (pool_check.c) ------------------------------ */

/* Size of class c for a unit of 1 << shift bytes, or 0 past the last class:
 * 16-byte steps to 128, then four classes per doubling, up to unit / 8. */
uint32_t pool_class_size(uint32_t shift, uint32_t c);
/* Slots a class-c chunk holds, and where its sizes array and payload start. */
uint32_t pool_class_slots(uint32_t shift, uint32_t slot_size, uint32_t *sizes_off,
			  uint32_t *payload_off);
uint32_t pool_chunk_sum(const struct pool_chunk *c);
/* The index of the first of the n bytes at p that is not POOL_POISON; n
 * when they all are. */
uint64_t pool_unpoisoned(const uint8_t *p, uint64_t n);

/* ---- the allocator core (pool.c) -------------------------------------- */

/* Lay the pool out in region h (magic, base, size already written), with a
 * quarantine of `quarantine` (<= POOL_QUARANTINE) freed slots; 0 reuses a
 * freed slot at once (lowest free slot first). */
void pool_init(struct cmc_region_hdr *h, uint32_t unit_shift, uint32_t quarantine);
/* A block of `size` bytes aligned to `align` (a power of two >= 16). */
void *pool_alloc(struct cmc_region_hdr *h, size_t size, size_t align);
/* p lies in the units (pool_owns); a p naming no live block is recorded
 * (INV-15/16) and ignored. */
void pool_free(struct cmc_region_hdr *h, void *p);
void *pool_realloc(struct cmc_region_hdr *h, void *p, size_t size);
/* Requested size of the live block at p, 0 when p names none. */
size_t pool_usable(const struct cmc_region_hdr *h, const void *p);
int pool_owns(const struct cmc_region_hdr *h, const void *p);

/* Supplied by whoever links pool.c in: the preload reports a fault to cmc
 * (preload/pool_pl.c: pl_fault), the self-check model (share/models/alloc.c)
 * and the unit test unwind.  libcmc.a holds pool.o, but only a program that
 * calls the allocator links it, and that program defines this.  Never
 * returns. */
_Noreturn void pool_fail(struct cmc_region_hdr *h, uint32_t code, const char *what,
			 uint64_t size, uint64_t align);

/* ---- validators (pool_check.c) ----------------------------------------- */

/*
 * What a validator reads: a copy of the region header and of the window
 * [data_off, data_off + len) (len == used - data_off when complete).  The
 * bytes are untrusted: every offset is bounds-checked against the window.
 */
struct pool_view {
	struct cmc_region_hdr hdr;
	const uint8_t *win;
	uint64_t len;
};

/* A validator's message; built without libc formatting. */
struct pool_msg {
	char text[160];
	size_t len;
};

/* One runtime-checkable invariant: returns 1 when it holds, 0 with a
 * message naming the unit/slot and what is wrong, -1 when it cannot be
 * evaluated because the pool's own metadata is unreadable (INV-1 fails). */
struct pool_inv {
	const char *id;          /* "INV-6", as in INVARIANTS.md */
	const char *name;        /* short title */
	int (*holds)(const struct pool_view *v, struct pool_msg *m);
};

extern const struct pool_inv pool_invariants[];
extern const unsigned pool_n_invariants;

/* Run every validator; bit i of the result set when pool_invariants[i]
 * fails, bit i of *checked when it could be evaluated; the first failure's
 * "INV-N: message" goes to first.  checked and first may be NULL. */
uint32_t pool_check_all(const struct pool_view *v, uint32_t *checked, struct pool_msg *first);

/* ---- read-only walk of the chunks, for pictures (pool_check.c) ---------- */

/*
 * One chunk as pool_chunks() finds it: every unit whose table entry is a
 * chunk head, in address order, whether or not its header is intact (a
 * picture must show the broken chunk too).  Slot geometry comes from the
 * header when the header is intact and exactly as pool.c builds it, else,
 * for a class chunk, from the class its unit table entry names
 * (geometry_from_table); a dedicated or huge chunk with an unusable header
 * has n_slots == 0.  `bytes` is the chunk's first `span` bytes inside the
 * view's window (NULL when the window does not hold them all).
 */
struct pool_chunk_info {
	uint32_t unit;           /* head unit */
	uint8_t entry;           /* its unit table entry */
	uint8_t kind;            /* POOL_K_* the table says */
	int header_ok;           /* readable, magic and kind match the table */
	int sum_ok;              /* the header checksum (INV-3) holds */
	int geometry_from_table;
	uint64_t off;            /* region offset of the chunk (its header) */
	struct pool_chunk c;     /* header copy (zero when unreadable) */
	uint32_t slot_size, n_slots, bitmap_off, sizes_off, payload_off;
	const uint8_t *bytes;
	uint64_t span;
};

/* Slot states (pool_slot). */
enum {
	POOL_SLOT_FREE,          /* bit clear, every byte poison */
	POOL_SLOT_LIVE,          /* bit set, redzone intact */
	POOL_SLOT_WRITTEN,       /* bit clear, a byte is not poison (INV-12) */
	POOL_SLOT_OVERRUN,       /* bit set, its redzone written (INV-13) */
	POOL_SLOT_UNKNOWN        /* bytes outside the window */
};

/* Call fn for each chunk head below units_hw; the number of chunks, or -1
 * when the pool's metadata is unreadable (INV-1). */
int64_t pool_chunks(const struct pool_view *v,
		    void (*fn)(void *ctx, const struct pool_chunk_info *ci), void *ctx);
/* State of slot i (< ci->n_slots) and, for WRITTEN/OVERRUN, the region
 * offset of the first offending byte in *bad (else the slot's start). */
int pool_slot(const struct pool_chunk_info *ci, uint32_t i, uint64_t *bad);

#endif
