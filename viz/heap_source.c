/*
 * heap_source.c — where the allocator picture's data comes from: the
 * store's per-state allocator status (invariant bits) and the raw snapshot,
 * decoded into chunks and slots by the decoder that recognises the
 * allocator's layout.  Decoders are a table; the pool allocator's walks its
 * chunks with the read-only iterator of preload/layout/pool_check.c (no
 * second copy of the layout rules) and points each failing invariant at its
 * chunk, slot and byte by re-running that invariant's validator on the
 * stored bytes.  Invariants are named from pool_invariants[] (bit i is
 * entry i).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layout/pool.h"
#include "engine/util.h"

/*
 * A decoder fills h->chunks / h->n_chunks (and may set inv[].chunk and
 * byte_off for failing invariants) when it recognises the raw window's
 * layout, and returns 1; 0 when the bytes are not its layout.
 */
typedef int (*heap_decoder)(const uint8_t *raw, size_t len, viz_heap *h);

static void viz_heap_clear_chunks(viz_heap *h);

/* ---- the pool allocator ---------------------------------------------------- */

/*
 * The raw window is [base + data_off, base + used) and the region header is
 * not in it, so the view the validators read is rebuilt from the window
 * alone: data_off is POOL_META_OFF (INV-1), `used` and the region size
 * follow from the pool meta at window offset 0, and base is taken as 0
 * (only its alignment matters to the validators, and the real base is page
 * aligned).  Header-only facts (n_foreign) are unknown and read as 0, so a
 * failure that lives only there is reported as not locatable.
 */
struct pool_dec {
	viz_heap *h;
	struct pool_chunk_info *ci; /* parallel to h->chunks */
	size_t cap;
};

static void pool_dec_chunk(void *ctx, const struct pool_chunk_info *ci)
{
	struct pool_dec *d = ctx;
	viz_heap *h = d->h;
	if (h->n_chunks == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		h->chunks = eng_xrealloc(h->chunks, d->cap * sizeof *h->chunks);
		d->ci = eng_xrealloc(d->ci, d->cap * sizeof *d->ci);
	}
	d->ci[h->n_chunks] = *ci;
	viz_chunk *c = &h->chunks[h->n_chunks++];
	memset(c, 0, sizeof *c);
	c->offset = ci->off - POOL_META_OFF;
	c->unit = ci->unit;
	c->kind = ci->kind == POOL_K_CLASS ? VIZ_CHUNK_CLASS
		: ci->kind == POOL_K_HUGE  ? VIZ_CHUNK_HUGE
					   : VIZ_CHUNK_LARGE;
	c->size_class = ci->slot_size;
	c->n_slots = ci->n_slots;
	c->n_live = ci->c.live;
	c->magic = ci->c.magic;
	c->units = ci->c.units;
	c->owner = ci->c.owner;
	c->claim = ci->c.claim;
	c->req = ci->c.req;
	c->sum_ok = ci->sum_ok;
	c->geometry_guessed = ci->geometry_from_table;
	c->header_bad = !ci->header_ok || !ci->sum_ok;
	c->bad_slot = UINT32_MAX;
	c->slot = eng_xmalloc(ci->n_slots ? ci->n_slots : 1);
	for (uint32_t i = 0; i < ci->n_slots; i++) {
		uint64_t bad;
		switch (pool_slot(ci, i, &bad)) {
		case POOL_SLOT_FREE: c->slot[i] = VIZ_SLOT_FREE; break;
		case POOL_SLOT_LIVE: c->slot[i] = VIZ_SLOT_LIVE; break;
		case POOL_SLOT_WRITTEN: c->slot[i] = VIZ_SLOT_BROKEN; break;
		case POOL_SLOT_OVERRUN: c->slot[i] = VIZ_SLOT_OVERRUN; break;
		default: c->slot[i] = VIZ_SLOT_UNKNOWN; break;
		}
	}
	/* A class chunk's sizes[] holds requested size + 1 of each live slot. */
	if (ci->kind == POOL_K_CLASS && ci->bytes && ci->n_slots &&
	    ci->sizes_off + 2 * (uint64_t)ci->n_slots <= ci->span) {
		c->req_known = true;
		for (uint32_t i = 0; i < ci->n_slots; i++) {
			uint16_t s;
			memcpy(&s, ci->bytes + ci->sizes_off + 2 * (size_t)i, sizeof s);
			if (s && (c->slot[i] == VIZ_SLOT_LIVE || c->slot[i] == VIZ_SLOT_OVERRUN))
				c->req_live += s - 1u;
		}
	}
}

/* The decimal number after `key` in s, if any. */
static bool num_after(const char *s, const char *key, uint64_t *out)
{
	const char *p = strstr(s, key);
	if (!p || p[strlen(key)] < '0' || p[strlen(key)] > '9')
		return false;
	*out = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* Index of the chunk covering region offset `off`, or -1. */
static int64_t chunk_at(const struct pool_dec *d, uint64_t off)
{
	for (size_t k = 0; k < d->h->n_chunks; k++)
		if (off >= d->ci[k].off && off - d->ci[k].off < d->ci[k].span)
			return (int64_t)k;
	return -1;
}

/* Point a failing invariant at the chunk, slot and byte its validator's
 * message names ("unit U[ slot S]: ..." or "... region offset N"). */
static void pool_dec_point(struct pool_dec *d, const struct pool_view *v, viz_invariant *in)
{
	if (in->bit >= pool_n_invariants)
		return;
	struct pool_msg m = {.len = 0};
	m.text[0] = 0;
	if (pool_invariants[in->bit].holds(v, &m) != 0) {
		snprintf(in->detail, sizeof in->detail,
			 "holds on the stored window: the failure is in the region header, "
			 "which the raw window does not hold");
		return;
	}
	snprintf(in->detail, sizeof in->detail, "%s", m.text);
	uint64_t u, slot, off;
	int64_t k = -1;
	bool has_slot = false;
	if (!strncmp(m.text, "unit ", 5) && num_after(m.text, "unit ", &u)) {
		for (size_t j = 0; j < d->h->n_chunks && k < 0; j++)
			if (u == d->ci[j].unit)
				k = (int64_t)j;
		if (k < 0) /* a unit inside a large chunk */
			for (size_t j = 0; j < d->h->n_chunks && k < 0; j++)
				if (d->ci[j].kind != POOL_K_CLASS && u > d->ci[j].unit &&
				    u - d->ci[j].unit < d->h->chunks[j].units)
					k = (int64_t)j;
		has_slot = num_after(m.text, " slot ", &slot);
	} else if (num_after(m.text, "offset ", &off)) {
		k = chunk_at(d, off);
		if (k >= 0 && d->ci[k].slot_size && off >= d->ci[k].off + d->ci[k].payload_off) {
			slot = (off - d->ci[k].off - d->ci[k].payload_off) / d->ci[k].slot_size;
			has_slot = slot < d->ci[k].n_slots;
		}
	}
	if (k < 0)
		return;
	const struct pool_chunk_info *ci = &d->ci[k];
	viz_chunk *c = &d->h->chunks[k];
	in->chunk = k;
	in->byte_off = c->offset;
	if (!has_slot && ci->kind != POOL_K_CLASS && ci->n_slots == 1) {
		uint64_t bad;
		if (pool_slot(ci, 0, &bad) == POOL_SLOT_OVERRUN) {
			has_slot = true;
			slot = 0;
		}
	}
	if (has_slot && slot < ci->n_slots) {
		uint64_t bad;
		pool_slot(ci, (uint32_t)slot, &bad);
		in->slot = (uint32_t)slot;
		in->byte_off = bad - POOL_META_OFF;
		if (c->bad_slot == UINT32_MAX)
			c->bad_slot = (uint32_t)slot;
	} else {
		c->header_bad = true;
	}
}

static int pool_decode(const uint8_t *raw, size_t len, viz_heap *h)
{
	struct pool_meta pm;
	if (len < sizeof pm)
		return 0;
	memcpy(&pm, raw, sizeof pm);
	if (pm.magic != POOL_META_MAGIC || pm.unit_shift < POOL_UNIT_SHIFT_MIN ||
	    pm.unit_shift > POOL_UNIT_SHIFT_MAX)
		return 0;
	struct pool_view v;
	memset(&v, 0, sizeof v);
	v.hdr.alloc_kind = CMC_ALLOC_POOL;
	v.hdr.data_off = POOL_META_OFF;
	v.hdr.used = pm.units_off + ((uint64_t)pm.units_hw << pm.unit_shift);
	v.hdr.size = pm.units_off + ((uint64_t)pm.n_units << pm.unit_shift);
	v.win = raw;
	v.len = len; /* a window cut by the raw cap: reads past it fail, bounded */
	struct pool_dec d = {.h = h};
	int64_t n = pool_chunks(&v, pool_dec_chunk, &d);
	if (n < 0) {
		free(d.ci);
		viz_heap_clear_chunks(h);
		return 0;
	}
	for (unsigned i = 0; i < h->n_inv; i++)
		if (h->inv[i].failed)
			pool_dec_point(&d, &v, &h->inv[i]);
	free(d.ci);
	if (!h->n_chunks)
		snprintf(h->why_no_chunks, sizeof h->why_no_chunks,
			 "the pool holds no chunk at this state (nothing allocated)");
	return 1;
}

static const heap_decoder decoders[] = {
	pool_decode,
};

/* "INV-N short name" by bit, from the validator table; bits past it (none
 * today) are shown as INV-<bit + 1>. */
static char inv_label[32][80];

int viz_heap_load(store *st, int64_t run, uint32_t state, viz_heap *h, char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	h->run = run ? run : store_latest_run(st);
	h->state = state;
	if (!h->run) {
		snprintf(err, errlen, "%s: no runs stored yet (run cmc check first)", store_path(st));
		return -1;
	}
	store_state s;
	int rc = store_state_get(st, h->run, state, &s);
	if (rc != 0) {
		if (rc < 0)
			snprintf(err, errlen, "%s", store_error(st));
		else
			snprintf(err, errlen, "%s: run %lld has no state %u", store_path(st), (long long)h->run,
				 state);
		return rc;
	}
	h->has_alloc = (s.obs_flags & ENG_OBS_ALLOC) != 0;
	for (unsigned bit = 0; bit < 32; bit++) {
		if (!h->has_alloc || !(s.alloc_checked & (1u << bit)))
			continue;
		viz_invariant *in = &h->inv[h->n_inv++];
		in->bit = bit;
		if (bit < pool_n_invariants)
			snprintf(inv_label[bit], sizeof inv_label[bit], "%s %s", pool_invariants[bit].id,
				 pool_invariants[bit].name);
		else
			snprintf(inv_label[bit], sizeof inv_label[bit], "INV-%u", bit + 1);
		in->name = inv_label[bit];
		in->checked = true;
		in->failed = (s.alloc_failed & (1u << bit)) != 0;
		in->chunk = -1;
		in->slot = UINT32_MAX;
	}
	uint8_t *raw = NULL;
	size_t len = 0, full = 0;
	if (!eng_fp_zero(s.raw_blob) && store_blob(st, s.raw_blob, &raw, &len, &full) == 0) {
		h->raw_len = len;
		h->raw_full = full;
	}
	bool decoded = false;
	for (size_t i = 0; raw && i < sizeof decoders / sizeof decoders[0] && !decoded; i++)
		if (decoders[i])
			decoded = decoders[i](raw, len, h) == 1;
	if (!decoded) {
		if (!raw)
			snprintf(h->why_no_chunks, sizeof h->why_no_chunks,
				 "no raw snapshot stored for this state (a model run, or raw capture was off)");
		else
			snprintf(h->why_no_chunks, sizeof h->why_no_chunks,
				 "no chunk map: the raw window (%zu bytes) is not in a layout cmc can decode "
				 "(the bump allocator has no chunks)",
				 len);
	}
	free(raw);
	store_state_clear(&s);
	return 0;
}

static void viz_heap_clear_chunks(viz_heap *h)
{
	for (size_t i = 0; i < h->n_chunks; i++)
		free(h->chunks[i].slot);
	free(h->chunks);
	h->chunks = NULL;
	h->n_chunks = 0;
}

char viz_slot_char(uint8_t state)
{
	static const char c[] = {
		[VIZ_SLOT_FREE] = '.',   [VIZ_SLOT_LIVE] = '#',    [VIZ_SLOT_POISONED] = 'p',
		[VIZ_SLOT_BROKEN] = 'x', [VIZ_SLOT_OVERRUN] = '!', [VIZ_SLOT_UNKNOWN] = '?',
	};
	return state < sizeof c ? c[state] : '?';
}

void viz_heap_clear(viz_heap *h)
{
	viz_heap_clear_chunks(h);
	memset(h, 0, sizeof *h);
}
