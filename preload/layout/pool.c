/*
 * pool.c — the deterministic pool allocator's core (CMC_ALLOC_POOL): size
 * classes in one-unit chunks with a slot bitmap, lowest free slot first;
 * dedicated chunks for large requests and huge chunks beyond them; a real
 * free that poisons what it frees and releases emptied chunks at once.
 * A freed class slot waits in a small FIFO quarantine (pool_meta, INV-24)
 * before it is reusable, and every slot or reused unit is verified to be
 * all poison as it is handed out again (INV-12): a write through a
 * dangling pointer is seen, not handed to the next owner as its data.
 *
 * It owns no global state: everything lives in the region it is handed (see
 * pool.h for the layout), addressed as offsets from the header, so the same
 * code runs on the preload's mapped region and on an ordinary buffer (the
 * self-check model, the unit tests).  Deterministic by construction: every
 * choice (which unit, which slot) is "the lowest that fits", a function of
 * the region's bytes alone.
 *
 * Callers hand clean arguments (malloc.c checks them; align is a power of
 * two >= 16) and one call at a time.  A request that cannot be met ends in
 * pool_fail(), supplied by the embedder; nothing here returns NULL.
 * Single-threaded (INVARIANTS.md INV-20): the owner/claim fields are written
 * for the threaded version to come, not consulted.
 */
#include <stdint.h>
#include <string.h>

#include "pool.h"

#define REG(h) ((uint8_t *)(h))

static void set_used(struct cmc_region_hdr *h, struct pool_meta *m)
{
	h->used = pool_unit_off(m, m->units_hw);
}

void pool_init(struct cmc_region_hdr *h, uint32_t shift, uint32_t quarantine)
{
	h->alloc_kind = CMC_ALLOC_POOL;
	h->data_off = POOL_META_OFF;
	struct pool_meta *m = pool_meta_of(h);
	memset(m, 0, sizeof *m);
	m->magic = POOL_META_MAGIC;
	m->unit_shift = shift;
	m->q_cap = quarantine < POOL_QUARANTINE ? quarantine : POOL_QUARANTINE;
	m->table_off = (POOL_META_OFF + sizeof *m + 15) & ~(uint64_t)15;
	uint64_t unit = 1ULL << shift;
	uint64_t n = h->size > m->table_off ? (h->size - m->table_off) / (unit + 1) : 0;
	if (n > 0x7fffffffULL)
		n = 0x7fffffffULL;
	for (;;) {
		m->units_off = (m->table_off + n + unit - 1) & ~(unit - 1);
		if (!n || m->units_off + n * unit <= h->size)
			break;
		n--;
	}
	if (!n)
		pool_fail(h, CMC_FAULT_HEAP_EXHAUSTED, "region too small for one pool unit", h->size, unit);
	m->n_units = (uint32_t)n;
	while (pool_class_size(shift, m->n_classes))
		m->n_classes++;
	m->max_class = pool_class_size(shift, m->n_classes - 1);
	for (unsigned c = 0; c < POOL_CLASSES_MAX; c++)
		m->hint[c] = POOL_HINT_NONE;
	set_used(h, m);
}

/* ---- the quarantine (INV-24) and the reuse check (INV-12) ---------------
 *
 * One global FIFO of up to q_cap slots (POOL_QUARANTINE, 8, in the
 * preload), not one per class: the meta block is hashed in every raw
 * state, so the bound is what it costs, and a slot is normally written
 * through a dangling pointer soon after its free.
 * A slot flushed out early (the FIFO is full) is still free: the checker
 * still sees writes to it in every state, and it is verified again when it
 * is handed out.  Entries are region offsets (the same in every run, any
 * copy of the region), kept oldest first and shifted, never a ring, so a
 * FIFO has one byte image.
 */

static int quarantined(const struct pool_meta *m, uint64_t off)
{
	for (uint32_t k = 0; k < m->n_quarantine; k++)
		if (m->quarantine[k] == off)
			return 1;
	return 0;
}

/* Append a freed slot; when full, the oldest becomes reusable. */
static void quarantine_push(struct pool_meta *m, uint64_t off)
{
	if (!m->q_cap)
		return;
	if (m->n_quarantine >= m->q_cap) {
		memmove(m->quarantine, m->quarantine + 1, (m->q_cap - 1) * sizeof m->quarantine[0]);
		m->quarantine[--m->n_quarantine] = 0;
	}
	m->quarantine[m->n_quarantine++] = off;
}

/* Drop the entries in [lo, hi): their chunk is being released, and a
 * released unit is checked whole (INV-7, and again as it is reused). */
static void quarantine_drop(struct pool_meta *m, uint64_t lo, uint64_t hi)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < m->n_quarantine; k++)
		if (m->quarantine[k] < lo || m->quarantine[k] >= hi)
			m->quarantine[n++] = m->quarantine[k];
	for (uint32_t k = n; k < m->n_quarantine; k++)
		m->quarantine[k] = 0;
	m->n_quarantine = n;
}

/* Memory about to be handed out again must still be all poison; when it
 * is not, something wrote to it after its free: record it (INV-12 fails in
 * this state) and re-poison, so the new owner's block and redzone start
 * clean and only the write after free is reported. */
static void verify_reuse(struct cmc_region_hdr *h, struct pool_meta *m, uint8_t *p, uint64_t n)
{
	uint64_t bad = pool_unpoisoned(p, n);
	if (bad == n)
		return;
	m->n_reuse_written++;
	if (!m->first_reuse_written)
		m->first_reuse_written = (uint64_t)(p - REG(h)) + bad;
	memset(p, POOL_POISON, n);
}

/* Units [free_lo, last] are being taken: free_lo moves to the next free
 * unit above them (or units_hw). */
static void take_lo(struct pool_meta *m, const uint8_t *t, uint32_t last)
{
	uint32_t u = last + 1;
	while (u < m->units_hw && t[u] != POOL_U_FREE)
		u++;
	m->free_lo = u;
}

/* The lowest run of k free units; grows units_hw (and used) to cover it. */
static uint32_t units_take(struct cmc_region_hdr *h, struct pool_meta *m, uint64_t k,
			   uint64_t size, uint64_t align)
{
	if (k > m->n_units)
		pool_fail(h, CMC_FAULT_TOO_LARGE, "request larger than the pool", size, align);
	const uint8_t *t = pool_table_of(h, m);
	uint64_t run = 0, start = 0;
	uint32_t u = m->free_lo;
	if (k == 1 && u < m->units_hw) { /* the common case: no scan */
		take_lo(m, t, u);
		return u;
	}
	for (; u < m->units_hw; u++) {
		if (t[u] != POOL_U_FREE) {
			run = 0;
			continue;
		}
		if (!run++)
			start = u;
		if (run == k) {
			if (start == m->free_lo)
				take_lo(m, t, (uint32_t)(start + k - 1));
			return (uint32_t)start;
		}
	}
	/* Everything at and above units_hw is free (INV-2). */
	start = m->units_hw - run;
	if (start + k > m->n_units)
		pool_fail(h, CMC_FAULT_HEAP_EXHAUSTED, "heap exhausted", size, align);
	if (start == m->free_lo)
		m->free_lo = (uint32_t)(start + k);
	m->units_hw = (uint32_t)(start + k);
	set_used(h, m);
	return (uint32_t)start;
}

/* units_take() verifying that the units are all poison, as every free
 * unit must be (INV-7): a released unit written through a dangling pointer
 * is caught here even when it lies above the window (trimmed), where no
 * state shows it.  Proportional to the block: as much as the checker reads
 * of free units in every state anyway, and a unit never touched reads the
 * kernel's zero page. */
static uint32_t units_reuse(struct cmc_region_hdr *h, struct pool_meta *m, uint64_t k,
			    uint64_t size, uint64_t align)
{
	uint32_t u = units_take(h, m, k, size, align);
	verify_reuse(h, m, REG(h) + pool_unit_off(m, u), k << m->unit_shift);
	return u;
}

/* Lower units_hw past released top units, so the raw window shrinks back. */
static void units_trim(struct cmc_region_hdr *h, struct pool_meta *m)
{
	const uint8_t *t = pool_table_of(h, m);
	while (m->units_hw && t[m->units_hw - 1] == POOL_U_FREE)
		m->units_hw--;
	if (m->free_lo > m->units_hw)
		m->free_lo = m->units_hw;
	set_used(h, m);
}

static void seal(struct pool_chunk *c)
{
	c->sum = pool_chunk_sum(c);
}

/* The lowest class-c chunk at or above unit `from` with a free slot. */
static uint32_t next_with_space(struct cmc_region_hdr *h, struct pool_meta *m, uint32_t c,
				uint32_t from)
{
	const uint8_t *t = pool_table_of(h, m);
	if (from >= m->units_hw)
		return POOL_HINT_NONE;
	const uint8_t *f = memchr(t + from, (int)POOL_U_CLASS_SPACE(c), m->units_hw - from);
	return f ? (uint32_t)(f - t) : POOL_HINT_NONE;
}

static uint32_t class_for(const struct pool_meta *m, uint64_t need)
{
	if (need <= 128)
		return need ? (uint32_t)((need + 15) / 16 - 1) : 0;
	uint32_t c = 8;
	while (pool_class_size(m->unit_shift, c) < need)
		c++;
	return c;
}

/* The lowest free slot of ch that is not in the quarantine, or n_slots. */
static uint32_t free_slot(struct cmc_region_hdr *h, const struct pool_meta *m,
			  struct pool_chunk *ch)
{
	const uint64_t *bm = pool_bitmap_of(ch);
	uint64_t base = (uint64_t)((uint8_t *)ch - REG(h)) + ch->payload_off;
	for (uint32_t w = 0; w < (ch->n_slots + 63) / 64; w++) {
		for (uint64_t x = ~bm[w]; x; x &= x - 1) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(x);
			if (i >= ch->n_slots)
				return ch->n_slots;
			if (!quarantined(m, base + (uint64_t)i * ch->slot_size))
				return i;
		}
	}
	return ch->n_slots;
}

static void *class_alloc(struct cmc_region_hdr *h, struct pool_meta *m, size_t size)
{
	uint32_t c = class_for(m, (uint64_t)size + POOL_REDZONE);
	struct pool_chunk *ch = NULL;
	uint32_t i = 0;
	/* The lowest chunk with a free slot that is not quarantined: the hint
	 * (INV-14) is the lowest with any free slot; the quarantine holds few
	 * slots, so the walk past it is short. */
	uint32_t u = m->hint[c];
	for (; u != POOL_HINT_NONE; u = next_with_space(h, m, c, u + 1)) {
		ch = pool_chunk_at(h, m, u);
		if ((i = free_slot(h, m, ch)) < ch->n_slots)
			break;
	}
	if (u == POOL_HINT_NONE) {
		u = units_reuse(h, m, 1, size, 16);
		ch = pool_chunk_at(h, m, u);
		/* A free unit is all poison (INV-7; units_reuse() verified
		 * it), i.e. zero: only the header needs writing; the bitmap
		 * and sizes start empty. */
		ch->magic = POOL_CHUNK_MAGIC;
		ch->kind = POOL_K_CLASS;
		ch->cls = (uint16_t)c;
		ch->slot_size = pool_class_size(m->unit_shift, c);
		ch->n_slots = pool_class_slots(m->unit_shift, ch->slot_size, &ch->sizes_off,
					       &ch->payload_off);
		ch->bitmap_off = sizeof *ch;
		ch->units = 1;
		ch->owner = POOL_OWNER_MAIN;
		ch->claim = POOL_CLAIM_OWNED;
		ch->live = 0;
		seal(ch);
		pool_table_of(h, m)[u] = (uint8_t)POOL_U_CLASS_SPACE(c);
		if (m->hint[c] == POOL_HINT_NONE || u < m->hint[c])
			m->hint[c] = u;
		i = 0;
	}
	uint8_t *slot = (uint8_t *)ch + ch->payload_off + (uint64_t)i * ch->slot_size;
	verify_reuse(h, m, slot, ch->slot_size);
	pool_bitmap_of(ch)[i / 64] |= 1ULL << (i % 64);
	pool_sizes_of(ch)[i] = (uint16_t)(size + 1);
	if (++ch->live == ch->n_slots) {
		pool_table_of(h, m)[u] = (uint8_t)POOL_U_CLASS_FULL(c);
		if (m->hint[c] == u)
			m->hint[c] = next_with_space(h, m, c, u + 1);
	}
	return slot;
}

static void *dedicated_alloc(struct cmc_region_hdr *h, struct pool_meta *m, size_t size,
			     size_t align)
{
	uint64_t unit = 1ULL << m->unit_shift;
	if (size > h->size || align > (1ULL << 30))
		pool_fail(h, CMC_FAULT_TOO_LARGE, "request larger than the region", size, align);
	/* Room for the header, the worst-case alignment padding, the block and
	 * its redzone. */
	uint64_t worst = sizeof(struct pool_chunk) + align + size + POOL_REDZONE;
	uint64_t k = (worst + unit - 1) >> m->unit_shift;
	uint32_t u = units_reuse(h, m, k, size, align);
	struct pool_chunk *ch = pool_chunk_at(h, m, u);
	uintptr_t a = (uintptr_t)ch;
	uintptr_t p = (a + sizeof *ch + align - 1) & ~(uintptr_t)(align - 1);
	ch->magic = POOL_CHUNK_MAGIC;
	ch->kind = k <= POOL_DEDICATED_MAX_UNITS ? POOL_K_DEDICATED : POOL_K_HUGE;
	ch->cls = 0;
	ch->slot_size = 0;
	ch->n_slots = 1;
	ch->live = 1;
	ch->units = (uint32_t)k;
	ch->owner = POOL_OWNER_MAIN;
	ch->claim = POOL_CLAIM_OWNED;
	ch->req = size;
	ch->payload_off = (uint32_t)(p - a);
	ch->bitmap_off = ch->sizes_off = 0;
	seal(ch);
	uint8_t *t = pool_table_of(h, m);
	for (uint64_t j = 0; j < k; j++) {
		if (ch->kind == POOL_K_DEDICATED)
			t[u + j] = (uint8_t)(POOL_U_DEDICATED | (j + 1));
		else
			t[u + j] = j ? POOL_U_HUGE_TAIL : POOL_U_HUGE_HEAD;
	}
	return (void *)p;
}

void *pool_alloc(struct cmc_region_hdr *h, size_t size, size_t align)
{
	struct pool_meta *m = pool_meta_of(h);
	void *p;
	if (align <= 16 && size < m->max_class) /* size + redzone <= max_class */
		p = class_alloc(h, m, size);
	else
		p = dedicated_alloc(h, m, size, align);
	h->n_malloc++;
	h->live_bytes += size;
	return p;
}

/* Where a pointer lands: the chunk's head unit and, for a class chunk, the
 * slot. */
struct where {
	uint32_t head;
	struct pool_chunk *ch;
	uint32_t slot;
};

enum { W_LIVE, W_BAD, W_DOUBLE };

/* Defensive throughout: p comes from the target and the region may already
 * be corrupted by it; a bad answer is recorded, never a crash. */
static int locate(struct cmc_region_hdr *h, struct pool_meta *m, const void *p, struct where *w)
{
	uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)h);
	if ((uintptr_t)p < (uintptr_t)h || off < m->units_off || off >= h->used)
		return W_BAD;
	const uint8_t *t = pool_table_of(h, m);
	uint32_t u = (uint32_t)((off - m->units_off) >> m->unit_shift), head;
	uint8_t e = t[u];
	if (POOL_U_IS_CLASS(e) || e == POOL_U_HUGE_HEAD) {
		head = u;
	} else if (e > POOL_U_DEDICATED && e < POOL_U_HUGE_TAIL) {
		if ((uint32_t)(e & 0x7f) - 1 > u)
			return W_BAD;
		head = u - ((e & 0x7f) - 1u);
	} else if (e == POOL_U_HUGE_TAIL) {
		head = u;
		while (head && t[head] == POOL_U_HUGE_TAIL)
			head--;
		if (t[head] != POOL_U_HUGE_HEAD)
			return W_BAD;
	} else {
		return W_BAD;
	}
	struct pool_chunk *ch = pool_chunk_at(h, m, head);
	if (ch->magic != POOL_CHUNK_MAGIC)
		return W_BAD;
	uint64_t start = pool_unit_off(m, head) + ch->payload_off;
	w->head = head;
	w->ch = ch;
	w->slot = 0;
	if (ch->kind != POOL_K_CLASS)
		return off == start && ch->live == 1 ? W_LIVE : W_BAD;
	if (ch->cls >= m->n_classes || ch->slot_size != pool_class_size(m->unit_shift, ch->cls) ||
	    off < start || (off - start) % ch->slot_size)
		return W_BAD;
	uint64_t i = (off - start) / ch->slot_size;
	if (i >= ch->n_slots || ch->bitmap_off < sizeof *ch ||
	    ch->bitmap_off + (ch->n_slots + 63ULL) / 64 * 8 > (1ULL << m->unit_shift) ||
	    ch->sizes_off + 2ULL * ch->n_slots > (1ULL << m->unit_shift))
		return W_BAD;
	w->slot = (uint32_t)i;
	return (pool_bitmap_of(ch)[i / 64] >> (i % 64)) & 1 ? W_LIVE : W_DOUBLE;
}

static void misuse(struct pool_meta *m, int kind, const struct cmc_region_hdr *h, const void *p)
{
	if (kind == W_DOUBLE)
		m->n_double_free++;
	else
		m->n_bad_free++;
	if (!m->first_misuse)
		m->first_misuse = (uint64_t)((uintptr_t)p - (uintptr_t)h);
}

static void release(struct cmc_region_hdr *h, struct pool_meta *m, uint32_t head)
{
	struct pool_chunk *ch = pool_chunk_at(h, m, head);
	uint32_t k = ch->units;
	if (!k || k > m->n_units - head) /* a header the target overwrote */
		k = 1;
	uint64_t meta_len = ch->payload_off < ((uint64_t)k << m->unit_shift) ? ch->payload_off
									      : sizeof *ch;
	uint8_t *t = pool_table_of(h, m);
	/* Slots and payload were poisoned as they were freed; what is left is
	 * the metadata before the first slot.  A released unit then reads
	 * exactly like a never-used one. */
	memset(ch, POOL_POISON, meta_len);
	memset(t + head, POOL_U_FREE, k);
	quarantine_drop(m, pool_unit_off(m, head), pool_unit_off(m, head + k));
	if (head < m->free_lo)
		m->free_lo = head;
	units_trim(h, m);
}

static void free_located(struct cmc_region_hdr *h, struct pool_meta *m, struct where *w)
{
	struct pool_chunk *ch = w->ch;
	uint8_t *payload = (uint8_t *)ch + ch->payload_off;
	if (ch->kind != POOL_K_CLASS) {
		/* Bounded by the window even if the target overwrote req or
		 * units: locate() put the payload inside it. */
		uint64_t room = h->used - (uint64_t)(payload - REG(h));
		uint64_t n = ch->req < room ? ch->req : room;
		h->live_bytes -= ch->req;
		memset(payload, POOL_POISON, n);
		release(h, m, w->head);
		return;
	}
	uint32_t i = w->slot, c = ch->cls;
	uint16_t *sz = pool_sizes_of(ch);
	uint32_t n = sz[i] && sz[i] <= ch->slot_size ? sz[i] - 1u : ch->slot_size;
	h->live_bytes -= n;
	memset(payload + (uint64_t)i * ch->slot_size, POOL_POISON, n);
	sz[i] = 0;
	pool_bitmap_of(ch)[i / 64] &= ~(1ULL << (i % 64));
	pool_table_of(h, m)[w->head] = (uint8_t)POOL_U_CLASS_SPACE(c);
	if (--ch->live == 0) {
		/* Emptied: released at once, quarantine or not (INV-7); a
		 * write to it now is a write to a free unit (INV-7, and INV-12
		 * when the unit is handed out again). */
		release(h, m, w->head);
		if (m->hint[c] == w->head)
			m->hint[c] = next_with_space(h, m, c, w->head + 1);
		return;
	}
	quarantine_push(m, (uint64_t)(payload - REG(h)) + (uint64_t)i * ch->slot_size);
	if (m->hint[c] == POOL_HINT_NONE || w->head < m->hint[c])
		m->hint[c] = w->head;
}

void pool_free(struct cmc_region_hdr *h, void *p)
{
	struct pool_meta *m = pool_meta_of(h);
	struct where w;
	int r = locate(h, m, p, &w);
	h->n_free++;
	if (r != W_LIVE) {
		misuse(m, r, h, p);
		return;
	}
	free_located(h, m, &w);
}

void *pool_realloc(struct cmc_region_hdr *h, void *p, size_t size)
{
	struct pool_meta *m = pool_meta_of(h);
	struct where w;
	if (locate(h, m, p, &w) != W_LIVE) {
		misuse(m, W_BAD, h, p);
		pool_fail(h, CMC_FAULT_FOREIGN_PTR, "realloc of a pointer that names no live block",
			  (uint64_t)(uintptr_t)p, 0);
	}
	struct pool_chunk *ch = w.ch;
	uint64_t old, room;
	if (ch->kind == POOL_K_CLASS) {
		old = pool_sizes_of(ch)[w.slot] - 1u;
		room = ch->slot_size;
	} else {
		old = ch->req;
		room = ((uint64_t)ch->units << m->unit_shift) - ch->payload_off;
	}
	/* Bounded by the window whatever the target wrote over the metadata. */
	uint64_t lim = h->used - (uint64_t)((uint8_t *)p - REG(h));
	if (room > lim)
		room = lim;
	if (old > room)
		old = room;
	if (size < room) {
		/* Fits with its redzone: stay in place; a shrink poisons the
		 * bytes it gives up so the redzone check (INV-13) sees them. */
		if (size < old)
			memset((uint8_t *)p + size, POOL_POISON, old - size);
		if (ch->kind == POOL_K_CLASS) {
			pool_sizes_of(ch)[w.slot] = (uint16_t)(size + 1);
		} else {
			ch->req = size;
			seal(ch);
		}
		h->live_bytes += size;
		h->live_bytes -= old;
		return p;
	}
	void *q = pool_alloc(h, size, 16);
	memcpy(q, p, old < size ? old : size);
	/* pool_alloc may have moved nothing that w points at: chunks never
	 * move, and p's chunk still holds p. */
	pool_free(h, p);
	return q;
}

size_t pool_usable(const struct cmc_region_hdr *h, const void *p)
{
	struct cmc_region_hdr *hh = (struct cmc_region_hdr *)h;
	struct pool_meta *m = pool_meta_of(hh);
	struct where w;
	if (locate(hh, m, p, &w) != W_LIVE)
		return 0;
	return w.ch->kind == POOL_K_CLASS ? pool_sizes_of(w.ch)[w.slot] - 1u : (size_t)w.ch->req;
}

int pool_owns(const struct cmc_region_hdr *h, const void *p)
{
	const struct pool_meta *m = (const struct pool_meta *)((const uint8_t *)h + h->data_off);
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)h;
	return a >= b + m->units_off && a < b + h->used;
}
