/*
 * heap_source.c — where the allocator picture's data comes from: the
 * store's per-state allocator status (invariant bits) and the raw snapshot,
 * decoded into chunks and slots by the decoder that recognises the
 * allocator's layout.  Decoders are a table: the pool allocator (issue 7)
 * adds one entry that parses its chunk headers and bitmaps out of the raw
 * window and points failing invariants at chunks and bytes.  Until then the
 * table is empty and viz_heap says why there is no chunk map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

/*
 * A decoder fills h->chunks / h->n_chunks (and may set inv[].chunk and
 * byte_off for failing invariants) when it recognises the raw window's
 * layout, and returns 1; 0 when the bytes are not its layout.
 */
typedef int (*heap_decoder)(const uint8_t *raw, size_t len, viz_heap *h);

static const heap_decoder decoders[] = {
	NULL, /* the pool allocator's decoder goes here (issue 7) */
};

/* Catalogue names by bit (preload/INVARIANTS.md, once it exists); a bit
 * without a name is shown as INV-<bit + 1>. */
static const char *const inv_names[32] = {0};
static char inv_fallback[32][8];

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
		if (inv_names[bit]) {
			in->name = inv_names[bit];
		} else {
			snprintf(inv_fallback[bit], sizeof inv_fallback[bit], "INV-%u", bit + 1);
			in->name = inv_fallback[bit];
		}
		in->checked = true;
		in->failed = (s.alloc_failed & (1u << bit)) != 0;
		in->chunk = -1;
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

void viz_heap_clear(viz_heap *h)
{
	for (size_t i = 0; i < h->n_chunks; i++)
		free(h->chunks[i].slot);
	free(h->chunks);
	memset(h, 0, sizeof *h);
}
