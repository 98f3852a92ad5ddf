/*
 * pool_check.c — the pool allocator's runtime-checkable invariants, one
 * validator each (INVARIANTS.md has the catalogue; pool.h states each one
 * above the struct it governs), plus the pure functions the allocator and
 * its checker must agree on (class sizes, chunk geometry, header sums).
 *
 * The validators read a COPY of the region (struct pool_view): cmc runs
 * them on the bytes it read from the target on every explored state, the
 * preload's tests and the self-check model on their own regions.  The bytes
 * are untrusted (a buggy target writes over them): every read goes through
 * get(), which bounds it by the window and copies (no alignment or aliasing
 * assumptions), and loops are bounded by the region's own limits.
 *
 * Built twice from this one file: PIC into the preload (no malloc, no
 * stdio: only memcpy-level libc) and into libcmc for the checker, the
 * self-check model and the unit test (Makefile: LAYOUT_SRC).
 */
#include <stdint.h>
#include <string.h>

#include "pool.h"

/* ---- pure functions shared with pool.c -------------------------------- */

uint32_t pool_class_size(uint32_t shift, uint32_t c)
{
	if (c >= POOL_CLASSES_MAX || shift > 31)
		return 0;
	uint64_t s;
	if (c < 8) {
		s = 16ULL * (c + 1);
	} else {
		uint32_t g = (c - 8) / 4, i = (c - 8) % 4;
		if (g > 24)
			return 0;
		uint64_t b = 128ULL << g;
		s = b + (i + 1) * (b / 4);
	}
	return s <= (1ULL << shift) / 8 ? (uint32_t)s : 0;
}

uint32_t pool_class_slots(uint32_t shift, uint32_t slot_size, uint32_t *sizes_off,
			  uint32_t *payload_off)
{
	uint64_t unit = 1ULL << shift;
	uint64_t n = slot_size ? (unit - sizeof(struct pool_chunk)) / (slot_size + 2u) : 0;
	for (; n; n--) {
		uint64_t so = sizeof(struct pool_chunk) + (n + 63) / 64 * 8;
		uint64_t po = (so + 2 * n + 15) & ~15ULL;
		if (po + n * slot_size <= unit) {
			*sizes_off = (uint32_t)so;
			*payload_off = (uint32_t)po;
			return (uint32_t)n;
		}
	}
	*sizes_off = *payload_off = 0;
	return 0;
}

/* FNV-1a over the header's fields, live and sum excluded. */
uint32_t pool_chunk_sum(const struct pool_chunk *c)
{
	struct pool_chunk k;
	memcpy(&k, c, sizeof k);
	k.live = 0;
	k.sum = 0;
	const uint8_t *p = (const uint8_t *)&k;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof k; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- reading the copy -------------------------------------------------- */

static int get(const struct pool_view *v, uint64_t off, uint64_t n, void *out)
{
	uint64_t lo = v->hdr.data_off;
	if (off < lo || off - lo > v->len || n > v->len - (off - lo))
		return 0;
	memcpy(out, v->win + (off - lo), (size_t)n);
	return 1;
}

static const uint8_t *at(const struct pool_view *v, uint64_t off, uint64_t n)
{
	uint64_t lo = v->hdr.data_off;
	if (off < lo || off - lo > v->len || n > v->len - (off - lo))
		return 0;
	return v->win + (off - lo);
}

static void msg_str(struct pool_msg *m, const char *s)
{
	while (*s && m->len < sizeof m->text - 1)
		m->text[m->len++] = *s++;
	m->text[m->len] = 0;
}

static void msg_u64(struct pool_msg *m, uint64_t x)
{
	char d[24];
	int n = 0;
	do
		d[n++] = (char)('0' + x % 10);
	while (x /= 10);
	while (n && m->len < sizeof m->text - 1)
		m->text[m->len++] = d[--n];
	m->text[m->len] = 0;
}

/* "unit U: what" / "unit U slot S: what", and the validator fails. */
static int fail_at(struct pool_msg *m, uint64_t u, int64_t slot, const char *what)
{
	msg_str(m, "unit ");
	msg_u64(m, u);
	if (slot >= 0) {
		msg_str(m, " slot ");
		msg_u64(m, (uint64_t)slot);
	}
	msg_str(m, ": ");
	msg_str(m, what);
	return 0;
}

static int fail(struct pool_msg *m, const char *what)
{
	msg_str(m, what);
	return 0;
}

/*
 * The pool's layout as far as it can be trusted for walking: the meta is
 * readable with a sane unit shift and the table lies inside the window.
 * When not, validators other than INV-1 cannot be evaluated (-1).
 */
struct layout {
	struct pool_meta m;
	const uint8_t *table;
	uint64_t unit;
	uint32_t hw;            /* min(units_hw, n_units) */
};

static int layout(const struct pool_view *v, struct layout *L)
{
	if (!get(v, v->hdr.data_off, sizeof L->m, &L->m) || L->m.magic != POOL_META_MAGIC ||
	    L->m.unit_shift < POOL_UNIT_SHIFT_MIN || L->m.unit_shift > POOL_UNIT_SHIFT_MAX ||
	    L->m.n_classes > POOL_CLASSES_MAX)
		return 0;
	L->table = at(v, L->m.table_off, L->m.n_units);
	L->unit = 1ULL << L->m.unit_shift;
	L->hw = L->m.units_hw < L->m.n_units ? L->m.units_hw : L->m.n_units;
	return L->table != 0;
}

static uint64_t uoff(const struct layout *L, uint64_t u)
{
	return L->m.units_off + (u << L->m.unit_shift);
}

static int is_head(uint8_t e)
{
	return POOL_U_IS_CLASS(e) || e == (POOL_U_DEDICATED | 1) || e == POOL_U_HUGE_HEAD;
}

static int want_kind(uint8_t e)
{
	return POOL_U_IS_CLASS(e) ? POOL_K_CLASS : e == POOL_U_HUGE_HEAD ? POOL_K_HUGE : POOL_K_DEDICATED;
}

/* The header of the chunk whose head is unit u, if readable with the right
 * magic and a kind matching its table entry (INV-3 says why not). */
static int chunk(const struct pool_view *v, const struct layout *L, uint32_t u,
		 struct pool_chunk *c)
{
	return get(v, uoff(L, u), sizeof *c, c) && c->magic == POOL_CHUNK_MAGIC &&
	       c->kind == want_kind(L->table[u]);
}

/* A class chunk whose geometry is exactly as pool.c builds it (INV-4), so
 * its bitmap, sizes and slots can be walked. */
static int class_ok(const struct layout *L, const struct pool_chunk *c)
{
	uint32_t so, po;
	return c->kind == POOL_K_CLASS && c->units == 1 && c->cls < L->m.n_classes &&
	       c->slot_size == pool_class_size(L->m.unit_shift, c->cls) &&
	       c->n_slots == pool_class_slots(L->m.unit_shift, c->slot_size, &so, &po) &&
	       c->bitmap_off == sizeof *c && c->sizes_off == so && c->payload_off == po;
}

/* A class chunk whose slots can be walked, and its arrays in the window:
 * bitmap, sizes and slots, each NULL when the window does not hold it
 * (each validator names what it needs, in its own words). */
struct class_chunk {
	struct pool_chunk c;
	const uint8_t *bm, *sz, *sl;
};

/* Unit u heads a class chunk with an intact header (INV-3) shaped as its
 * class says (INV-4); else it is left to those validators. */
static int class_chunk(const struct pool_view *v, const struct layout *L, uint32_t u,
		       struct class_chunk *k)
{
	if (!POOL_U_IS_CLASS(L->table[u]) || !chunk(v, L, u, &k->c) || !class_ok(L, &k->c))
		return 0;
	uint64_t base = uoff(L, u);
	k->bm = at(v, base + k->c.bitmap_off, (k->c.n_slots + 63) / 64 * 8ULL);
	k->sz = at(v, base + k->c.sizes_off, 2ULL * k->c.n_slots);
	k->sl = at(v, base + k->c.payload_off, (uint64_t)k->c.n_slots * k->c.slot_size);
	return 1;
}

static int bit(const uint8_t *bm, uint32_t i)
{
	return (bm[i / 8] >> (i % 8)) & 1; /* little-endian uint64 words */
}

static uint16_t size_at(const uint8_t *sz, uint32_t i)
{
	return (uint16_t)(sz[2 * i] | sz[2 * i + 1] << 8);
}

/* What a released byte holds, a page of it to compare against. */
static const uint8_t poison_block[4096] = {[0 ... 4095] = POOL_POISON};

uint64_t pool_unpoisoned(const uint8_t *p, uint64_t n)
{
	/* memcmp a page at a time (the checker reads every free byte of the
	 * heap on every state: a byte loop was most of cmc's time on sqlite3,
	 * 32 bytes a step still 8%), then bytes, to name the first that
	 * differs.  pool.c calls it too, on every slot it hands out. */
	for (uint64_t i = 0; i < n;) {
		size_t k = n - i < sizeof poison_block ? (size_t)(n - i) : sizeof poison_block;
		if (memcmp(p + i, poison_block, k) != 0) {
			for (size_t j = 0; j < k; j++)
				if (p[i + j] != POOL_POISON)
					return i + j;
		}
		i += k;
	}
	return n;
}

static int all_poison(const uint8_t *p, uint64_t n, uint64_t *bad)
{
	*bad = pool_unpoisoned(p, n);
	return *bad == n;
}

/* ---- struct pool_meta ---------------------------------------------------- */

/* INV-1: the pool's geometry as pool_init() lays it out. */
static int inv_meta(const struct pool_view *v, struct pool_msg *msg)
{
	struct pool_meta m;
	if (v->hdr.alloc_kind != CMC_ALLOC_POOL)
		return fail(msg, "region alloc_kind is not the pool");
	if (v->hdr.data_off != POOL_META_OFF)
		return fail(msg, "data_off is not POOL_META_OFF");
	if (!get(v, v->hdr.data_off, sizeof m, &m))
		return fail(msg, "pool meta outside the window");
	if (m.magic != POOL_META_MAGIC)
		return fail(msg, "pool meta magic overwritten");
	if (m.unit_shift < POOL_UNIT_SHIFT_MIN || m.unit_shift > POOL_UNIT_SHIFT_MAX)
		return fail(msg, "unit_shift out of range");
	uint64_t unit = 1ULL << m.unit_shift;
	if (m.table_off != ((POOL_META_OFF + sizeof m + 15) & ~15ULL))
		return fail(msg, "table_off is not right after the meta");
	if (m.units_off != ((m.table_off + m.n_units + unit - 1) & ~(unit - 1)))
		return fail(msg, "units_off is not the table end rounded to a unit");
	if (!m.n_units || m.units_off + (uint64_t)m.n_units * unit > v->hdr.size)
		return fail(msg, "n_units does not fit the region");
	uint32_t n = 0;
	while (pool_class_size(m.unit_shift, n))
		n++;
	if (m.n_classes != n || m.max_class != pool_class_size(m.unit_shift, n - 1))
		return fail(msg, "n_classes/max_class differ from the class function");
	if (m.q_cap > POOL_QUARANTINE)
		return fail(msg, "quarantine bound beyond POOL_QUARANTINE");
	return 1;
}

/* INV-2: the window ends right after the highest unit in use. */
static int inv_window(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	if (L.m.units_hw > L.m.n_units)
		return fail(msg, "units_hw beyond n_units");
	for (uint64_t u = L.hw; u < L.m.n_units; u++)
		if (L.table[u] != POOL_U_FREE)
			return fail_at(msg, u, -1, "unit above units_hw is in use");
	if (L.hw && L.table[L.hw - 1] == POOL_U_FREE)
		return fail_at(msg, L.hw - 1, -1, "top unit below units_hw is free (not trimmed)");
	if (v->hdr.used != uoff(&L, L.hw))
		return fail(msg, "used is not units_off + units_hw * unit");
	uint32_t lo = 0;
	while (lo < L.hw && L.table[lo] != POOL_U_FREE)
		lo++;
	if (L.m.free_lo != lo)
		return fail(msg, "free_lo is not the lowest free unit");
	return 1;
}

/* INV-14: each class's hint is its lowest chunk with a free slot. */
static int inv_hint(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	uint32_t want[POOL_CLASSES_MAX];
	for (unsigned c = 0; c < POOL_CLASSES_MAX; c++)
		want[c] = POOL_HINT_NONE;
	for (uint32_t u = L.hw; u-- > 0;) {
		struct class_chunk k;
		if (class_chunk(v, &L, u, &k) && k.c.live < k.c.n_slots)
			want[k.c.cls] = u;
	}
	for (unsigned c = 0; c < POOL_CLASSES_MAX; c++)
		if (L.m.hint[c] != want[c]) {
			msg_str(msg, "class ");
			msg_u64(msg, c);
			msg_str(msg, ": hint is not the lowest chunk with a free slot");
			return 0;
		}
	return 1;
}

/* INV-15: no free() ever named a slot that was already free. */
static int inv_double_free(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	if (!L.m.n_double_free)
		return 1;
	msg_u64(msg, L.m.n_double_free);
	msg_str(msg, L.m.n_double_free == 1 ? " double free, at region offset "
					      : " double frees, the first at region offset ");
	msg_u64(msg, L.m.first_misuse);
	return 0;
}

/* INV-16: no free()/realloc() named memory the allocator never returned. */
static int inv_foreign_free(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	if (!L.m.n_bad_free && !v->hdr.n_foreign)
		return 1;
	if (L.m.n_bad_free) {
		msg_u64(msg, L.m.n_bad_free);
		msg_str(msg, L.m.n_bad_free == 1 ? " free of a region pointer naming no block, at offset "
						 : " frees of region pointers naming no block, the first at offset ");
		msg_u64(msg, L.m.first_misuse);
	} else {
		msg_u64(msg, v->hdr.n_foreign);
		msg_str(msg, v->hdr.n_foreign == 1 ? " free/realloc/usable_size of a pointer outside the heap"
						   : " free/realloc/usable_size calls on pointers outside the heap");
	}
	return 0;
}

/* ---- struct pool_chunk ----------------------------------------------------- */

/* INV-3: every chunk head holds an intact header. */
static int inv_header(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		if (!is_head(L.table[u]))
			continue;
		struct pool_chunk c;
		if (!get(v, uoff(&L, u), sizeof c, &c))
			return fail_at(msg, u, -1, "chunk header outside the window");
		if (c.magic != POOL_CHUNK_MAGIC)
			return fail_at(msg, u, -1, "chunk magic overwritten");
		if (c.kind != want_kind(L.table[u]))
			return fail_at(msg, u, -1, "chunk kind differs from its unit table entry");
		if (c.owner == 0 || c.claim != POOL_CLAIM_OWNED)
			return fail_at(msg, u, -1, "owner/claim of a chunk in use overwritten");
		if (c.sum != pool_chunk_sum(&c))
			return fail_at(msg, u, -1, "chunk header checksum mismatch (header overwritten)");
	}
	return 1;
}

/* INV-4: chunk geometry. */
static int inv_geometry(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct pool_chunk c;
		if (!is_head(L.table[u]) || !chunk(v, &L, u, &c))
			continue;
		if (c.kind == POOL_K_CLASS) {
			if (!class_ok(&L, &c))
				return fail_at(msg, u, -1, "class chunk geometry differs from its class");
			continue;
		}
		if (!c.units || c.units > L.hw - u)
			return fail_at(msg, u, -1, "chunk spans units beyond units_hw");
		if ((c.kind == POOL_K_DEDICATED) != (c.units <= POOL_DEDICATED_MAX_UNITS))
			return fail_at(msg, u, -1, "dedicated/huge kind does not match the unit count");
		if (c.live != 1 || c.n_slots != 1)
			return fail_at(msg, u, -1, "dedicated chunk does not hold exactly one block");
		if ((v->hdr.base + uoff(&L, u) + c.payload_off) % 16)
			return fail_at(msg, u, -1, "block not 16-byte aligned");
		if (c.req + POOL_REDZONE > ((uint64_t)c.units << L.m.unit_shift) - c.payload_off ||
		    c.payload_off > ((uint64_t)c.units << L.m.unit_shift))
			return fail_at(msg, u, -1, "block and redzone do not fit the chunk");
	}
	return 1;
}

/* INV-5: a chunk's metadata ends before its first slot. */
static int inv_meta_fit(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct pool_chunk c;
		if (!is_head(L.table[u]) || !chunk(v, &L, u, &c))
			continue;
		if (c.payload_off < sizeof c)
			return fail_at(msg, u, -1, "payload starts inside the header");
		if (c.kind != POOL_K_CLASS)
			continue;
		uint64_t bm_end = (uint64_t)c.bitmap_off + ((uint64_t)c.n_slots + 63) / 64 * 8;
		if (c.bitmap_off < sizeof c || c.sizes_off < bm_end ||
		    (uint64_t)c.sizes_off + 2ULL * c.n_slots > c.payload_off ||
		    (uint64_t)c.payload_off + (uint64_t)c.n_slots * c.slot_size > L.unit)
			return fail_at(msg, u, -1, "bitmap/sizes overlap the slots or slots leave the unit");
	}
	return 1;
}

/* INV-6: the bitmap and the live count agree. */
static int inv_bitmap_live(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct class_chunk k;
		if (!class_chunk(v, &L, u, &k))
			continue;
		if (!k.bm)
			return fail_at(msg, u, -1, "bitmap outside the window");
		uint32_t n = 0;
		for (uint32_t i = 0; i < (k.c.n_slots + 63) / 64 * 64; i++) {
			if (!bit(k.bm, i))
				continue;
			if (i >= k.c.n_slots)
				return fail_at(msg, u, i, "bitmap bit set past the last slot");
			n++;
		}
		if (n != k.c.live)
			return fail_at(msg, u, -1, "popcount(bitmap) differs from the live count");
	}
	return 1;
}

/* INV-7: no chunk in use is empty; released units hold nothing. */
static int inv_released(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct pool_chunk c;
		uint64_t bad;
		if (L.table[u] == POOL_U_FREE) {
			const uint8_t *p = at(v, uoff(&L, u), L.unit);
			if (!p)
				return fail_at(msg, u, -1, "free unit outside the window");
			if (!all_poison(p, L.unit, &bad))
				return fail_at(msg, u, -1, "released unit is not all poison (stale or written)");
		} else if (POOL_U_IS_CLASS(L.table[u]) && chunk(v, &L, u, &c) && c.live == 0) {
			return fail_at(msg, u, -1, "class chunk with no live slot was not released");
		}
	}
	return 1;
}

/* INV-8: a slot is handed out exactly when its bit is set, with a size
 * that fits it. */
static int inv_slot_once(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct class_chunk k;
		if (!class_chunk(v, &L, u, &k))
			continue;
		if (!k.bm || !k.sz)
			return fail_at(msg, u, -1, "bitmap/sizes outside the window");
		for (uint32_t i = 0; i < k.c.n_slots; i++) {
			uint16_t s = size_at(k.sz, i);
			if ((s != 0) != bit(k.bm, i))
				return fail_at(msg, u, i, s ? "slot has a size but its bit is clear"
							     : "slot bit set but no size recorded");
			if (s && s - 1u + POOL_REDZONE > k.c.slot_size)
				return fail_at(msg, u, i, "recorded size does not fit the slot");
		}
	}
	return 1;
}

/* INV-12: freed (and never-used) slots are all poison, and were when the
 * allocator handed them (or released units) out again. */
static int inv_poison(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	if (L.m.n_reuse_written) {
		msg_u64(msg, L.m.n_reuse_written);
		msg_str(msg, L.m.n_reuse_written == 1
				     ? " freed slot or unit written after free, found as it was handed out "
				       "again; at region offset "
				     : " freed slots or units written after free, found as they were handed "
				       "out again; the first at region offset ");
		msg_u64(msg, L.m.first_reuse_written);
		return 0;
	}
	for (uint32_t u = 0; u < L.hw; u++) {
		struct class_chunk k;
		if (!class_chunk(v, &L, u, &k))
			continue;
		if (!k.bm || !k.sl)
			return fail_at(msg, u, -1, "slots outside the window");
		for (uint32_t i = 0; i < k.c.n_slots; i++) {
			uint64_t bad;
			if (!bit(k.bm, i) &&
			    !all_poison(k.sl + (uint64_t)i * k.c.slot_size, k.c.slot_size, &bad))
				return fail_at(msg, u, i, "free slot written (write after free, or overflow into it)");
		}
	}
	return 1;
}

/* INV-13: the bytes between a block's requested end and its slot's (or
 * chunk's) end are poison: nothing wrote past the block. */
static int inv_redzone(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		struct pool_chunk c;
		uint64_t bad;
		if (!is_head(L.table[u]) || !chunk(v, &L, u, &c))
			continue;
		if (c.kind != POOL_K_CLASS) {
			uint64_t end = (uint64_t)c.units << L.m.unit_shift;
			if (c.units > L.hw - u || c.payload_off > end || c.req > end - c.payload_off)
				continue; /* INV-4 */
			const uint8_t *pad = at(v, uoff(&L, u) + sizeof c, c.payload_off - sizeof c);
			const uint8_t *tail = at(v, uoff(&L, u) + c.payload_off + c.req,
						 end - c.payload_off - c.req);
			if (!pad || !tail)
				return fail_at(msg, u, -1, "chunk outside the window");
			if (!all_poison(pad, c.payload_off - sizeof c, &bad))
				return fail_at(msg, u, -1, "alignment padding before the block written");
			if (!all_poison(tail, end - c.payload_off - c.req, &bad))
				return fail_at(msg, u, -1, "bytes past the block's end written (overflow)");
			continue;
		}
		struct class_chunk k;
		if (!class_chunk(v, &L, u, &k))
			continue;
		if (!k.bm || !k.sz || !k.sl)
			return fail_at(msg, u, -1, "slots outside the window");
		for (uint32_t i = 0; i < k.c.n_slots; i++) {
			uint16_t s = size_at(k.sz, i);
			if (!bit(k.bm, i) || !s || s > k.c.slot_size)
				continue;
			const uint8_t *p = k.sl + (uint64_t)i * k.c.slot_size;
			if (!all_poison(p + (s - 1u), k.c.slot_size - (s - 1u), &bad))
				return fail_at(msg, u, i, "bytes past the block's end written (overflow)");
		}
	}
	return 1;
}

/* INV-24: the quarantine lists distinct free slots of class chunks in use. */
static int inv_quarantine(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	if (L.m.n_quarantine > L.m.q_cap || L.m.q_cap > POOL_QUARANTINE)
		return fail(msg, "quarantine count beyond its bound");
	for (uint32_t k = 0; k < POOL_QUARANTINE; k++) {
		uint64_t off = L.m.quarantine[k];
		if (k >= L.m.n_quarantine) {
			if (off)
				return fail(msg, "quarantine entry past the count is not zero");
			continue;
		}
		for (uint32_t j = 0; j < k; j++)
			if (L.m.quarantine[j] == off)
				return fail(msg, "a slot is in the quarantine twice");
		struct class_chunk k;
		uint64_t u = off >= L.m.units_off ? (off - L.m.units_off) >> L.m.unit_shift : UINT64_MAX;
		if (u >= L.hw || !POOL_U_IS_CLASS(L.table[u]))
			return fail(msg, "quarantine entry outside every class chunk");
		if (!class_chunk(v, &L, (uint32_t)u, &k))
			continue; /* INV-3/INV-4 */
		uint64_t rel = off - uoff(&L, u);
		if (rel < k.c.payload_off || (rel - k.c.payload_off) % k.c.slot_size ||
		    (rel - k.c.payload_off) / k.c.slot_size >= k.c.n_slots)
			return fail_at(msg, u, -1, "quarantine entry is not the start of a slot");
		uint32_t i = (uint32_t)((rel - k.c.payload_off) / k.c.slot_size);
		if (!k.bm)
			return fail_at(msg, u, -1, "bitmap outside the window");
		if (bit(k.bm, i))
			return fail_at(msg, u, i, "quarantined slot is live (its bit is set)");
	}
	return 1;
}

/* ---- the unit table -------------------------------------------------------- */

/* The head unit a table entry points back to, or -1 for an invalid entry. */
static int64_t head_of(const struct layout *L, uint32_t u)
{
	uint8_t e = L->table[u];
	if (POOL_U_IS_CLASS(e) || e == POOL_U_HUGE_HEAD)
		return u;
	if (e > POOL_U_DEDICATED && e < POOL_U_HUGE_TAIL)
		return (uint32_t)(e & 0x7f) - 1 <= u ? (int64_t)u - ((e & 0x7f) - 1) : -1;
	if (e == POOL_U_HUGE_TAIL) {
		uint32_t h = u;
		while (h && L->table[h] == POOL_U_HUGE_TAIL)
			h--;
		return L->table[h] == POOL_U_HUGE_HEAD ? (int64_t)h : -1;
	}
	return -1;
}

/* INV-9: every unit in use leads back to the base of a chunk covering it. */
static int inv_table(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		if (L.table[u] == POOL_U_FREE)
			continue;
		int64_t h = head_of(&L, u);
		struct pool_chunk c;
		if (h < 0)
			return fail_at(msg, u, -1, "unit table entry is not a valid back offset");
		if (!chunk(v, &L, (uint32_t)h, &c))
			return fail_at(msg, u, -1, "unit table leads to no chunk header");
		if (u - (uint64_t)h >= c.units)
			return fail_at(msg, u, -1, "unit table leads to a chunk that does not cover it");
	}
	return 1;
}

/* INV-10: dedicated (and huge) chunks are told apart by the table alone. */
static int inv_dedicated(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw; u++) {
		uint8_t e = L.table[u];
		if (e == POOL_U_FREE)
			continue;
		if (!POOL_U_IS_CLASS(e) && e <= POOL_U_DEDICATED)
			return fail_at(msg, u, -1, "unit table entry of no kind");
		if (e == POOL_U_HUGE_TAIL && (!u || (L.table[u - 1] != POOL_U_HUGE_HEAD &&
						    L.table[u - 1] != POOL_U_HUGE_TAIL)))
			return fail_at(msg, u, -1, "huge tail not preceded by its chunk");
		int64_t h = head_of(&L, u);
		struct pool_chunk c;
		if (h < 0 || !get(v, uoff(&L, (uint64_t)h), sizeof c, &c) || c.magic != POOL_CHUNK_MAGIC)
			continue; /* INV-9 */
		int want = POOL_U_IS_CLASS(e) ? POOL_K_CLASS
			 : (e == POOL_U_HUGE_HEAD || e == POOL_U_HUGE_TAIL) ? POOL_K_HUGE : POOL_K_DEDICATED;
		if (c.kind != want)
			return fail_at(msg, u, -1, "table says dedicated/class/huge, the header disagrees");
		if (want == POOL_K_CLASS && (c.cls != POOL_U_CLASS_OF(e) ||
					    (c.live < c.n_slots) != POOL_U_HAS_SPACE(e)))
			return fail_at(msg, u, -1, "table's class or has-room mark differs from the header");
	}
	return 1;
}

/* INV-11: chunks do not overlap: every unit of a large block belongs to
 * that block alone, and its entries are exactly its back offsets. */
static int inv_large_once(const struct pool_view *v, struct pool_msg *msg)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	for (uint32_t u = 0; u < L.hw;) {
		uint8_t e = L.table[u];
		struct pool_chunk c;
		if (e == POOL_U_FREE) {
			u++;
			continue;
		}
		if (!is_head(e))
			return fail_at(msg, u, -1, "unit claimed by no chunk head before it (overlap)");
		if (!chunk(v, &L, u, &c) || !c.units || c.units > L.hw - u) {
			u++; /* INV-3/INV-4 */
			continue;
		}
		for (uint32_t j = 1; j < c.units; j++) {
			uint8_t want = c.kind == POOL_K_HUGE ? POOL_U_HUGE_TAIL
							     : (uint8_t)(POOL_U_DEDICATED | (j + 1));
			if (L.table[u + j] != want)
				return fail_at(msg, u + j, -1, "unit inside a large chunk claimed elsewhere");
		}
		u += c.units;
	}
	return 1;
}

/* ---- the table of validators -------------------------------------------- */

/* Bit i of the allocator masks in eng_obs is pool_invariants[i]: append
 * only, never reorder (stored runs keep their masks). */
const struct pool_inv pool_invariants[] = {
	{"INV-1", "pool geometry", inv_meta},
	{"INV-2", "window ends at the highest unit in use", inv_window},
	{"INV-3", "chunk header integrity", inv_header},
	{"INV-4", "chunk geometry", inv_geometry},
	{"INV-5", "chunk metadata fits its window", inv_meta_fit},
	{"INV-6", "bitmap and live count agree", inv_bitmap_live},
	{"INV-7", "released chunks hold nothing", inv_released},
	{"INV-8", "no slot handed out twice", inv_slot_once},
	{"INV-9", "unit table recovers every chunk base", inv_table},
	{"INV-10", "dedicated chunks identified by the table", inv_dedicated},
	{"INV-11", "large blocks in at most one place", inv_large_once},
	{"INV-12", "poison of freed slots intact", inv_poison},
	{"INV-13", "redzones intact (no overflow)", inv_redzone},
	{"INV-14", "class hints point at the lowest free slot", inv_hint},
	{"INV-15", "no double free", inv_double_free},
	{"INV-16", "no free of a foreign pointer", inv_foreign_free},
	{"INV-24", "quarantine holds free slots only", inv_quarantine},
};
const unsigned pool_n_invariants = sizeof pool_invariants / sizeof pool_invariants[0];

_Static_assert(sizeof pool_invariants / sizeof pool_invariants[0] <= 32, "masks are 32 bits");

uint32_t pool_check_all(const struct pool_view *v, uint32_t *checked, struct pool_msg *first)
{
	uint32_t failed = 0, done = 0;
	if (first) {
		first->len = 0;
		first->text[0] = 0;
	}
	for (unsigned i = 0; i < pool_n_invariants; i++) {
		struct pool_msg m = {.len = 0};
		m.text[0] = 0;
		int r = pool_invariants[i].holds(v, &m);
		if (r < 0)
			continue;
		done |= 1u << i;
		if (r)
			continue;
		failed |= 1u << i;
		if (first && !first->len) {
			msg_str(first, pool_invariants[i].id);
			msg_str(first, ": ");
			msg_str(first, m.text);
		}
	}
	if (checked)
		*checked = done;
	return failed;
}

/* ---- read-only walk for pictures ------------------------------------------ */

int64_t pool_chunks(const struct pool_view *v,
		    void (*fn)(void *ctx, const struct pool_chunk_info *ci), void *ctx)
{
	struct layout L;
	if (!layout(v, &L))
		return -1;
	int64_t n = 0;
	for (uint32_t u = 0; u < L.hw; u++) {
		uint8_t e = L.table[u];
		if (!is_head(e))
			continue;
		struct pool_chunk_info ci;
		memset(&ci, 0, sizeof ci);
		ci.unit = u;
		ci.entry = e;
		ci.kind = (uint8_t)want_kind(e);
		ci.off = uoff(&L, u);
		ci.header_ok = chunk(v, &L, u, &ci.c);
		if (!ci.header_ok && !get(v, ci.off, sizeof ci.c, &ci.c))
			memset(&ci.c, 0, sizeof ci.c);
		ci.sum_ok = ci.header_ok && ci.c.sum == pool_chunk_sum(&ci.c);
		ci.span = L.unit;
		if (ci.kind == POOL_K_CLASS) {
			if (ci.header_ok && class_ok(&L, &ci.c)) {
				ci.slot_size = ci.c.slot_size;
				ci.n_slots = ci.c.n_slots;
				ci.bitmap_off = ci.c.bitmap_off;
				ci.sizes_off = ci.c.sizes_off;
				ci.payload_off = ci.c.payload_off;
			} else if (POOL_U_CLASS_OF(e) < L.m.n_classes) {
				ci.geometry_from_table = 1;
				ci.slot_size = pool_class_size(L.m.unit_shift, POOL_U_CLASS_OF(e));
				ci.n_slots = pool_class_slots(L.m.unit_shift, ci.slot_size, &ci.sizes_off,
							      &ci.payload_off);
				ci.bitmap_off = sizeof(struct pool_chunk);
			}
		} else if (ci.header_ok && ci.c.units && ci.c.units <= L.hw - u &&
			   ci.c.payload_off >= sizeof ci.c &&
			   ci.c.payload_off <= ((uint64_t)ci.c.units << L.m.unit_shift) &&
			   ci.c.req + POOL_REDZONE <=
				   ((uint64_t)ci.c.units << L.m.unit_shift) - ci.c.payload_off) {
			ci.span = (uint64_t)ci.c.units << L.m.unit_shift;
			ci.n_slots = 1;
			ci.payload_off = ci.c.payload_off;
			ci.slot_size = (uint32_t)(ci.span - ci.payload_off > UINT32_MAX ? UINT32_MAX
											: ci.span - ci.payload_off);
		}
		ci.bytes = at(v, ci.off, ci.span);
		n++;
		if (fn)
			fn(ctx, &ci);
	}
	return n;
}

int pool_slot(const struct pool_chunk_info *ci, uint32_t i, uint64_t *bad)
{
	uint64_t b;
	*bad = ci->off + ci->payload_off + (uint64_t)i * ci->slot_size;
	if (!ci->bytes || i >= ci->n_slots)
		return POOL_SLOT_UNKNOWN;
	const uint8_t *p = ci->bytes + ci->payload_off;
	if (ci->kind != POOL_K_CLASS) {
		/* One block: the padding before it and everything after req. */
		if (!all_poison(ci->bytes + sizeof ci->c, ci->payload_off - sizeof ci->c, &b)) {
			*bad = ci->off + sizeof ci->c + b;
			return POOL_SLOT_OVERRUN;
		}
		if (!all_poison(p + ci->c.req, ci->span - ci->payload_off - ci->c.req, &b)) {
			*bad = ci->off + ci->payload_off + ci->c.req + b;
			return POOL_SLOT_OVERRUN;
		}
		return POOL_SLOT_LIVE;
	}
	p += (uint64_t)i * ci->slot_size;
	if (!bit(ci->bytes + ci->bitmap_off, i)) {
		if (all_poison(p, ci->slot_size, &b))
			return POOL_SLOT_FREE;
		*bad += b;
		return POOL_SLOT_WRITTEN;
	}
	uint16_t s = size_at(ci->bytes + ci->sizes_off, i);
	if (s && s <= ci->slot_size && !all_poison(p + (s - 1u), ci->slot_size - (s - 1u), &b)) {
		*bad += s - 1u + b;
		return POOL_SLOT_OVERRUN;
	}
	return POOL_SLOT_LIVE;
}
