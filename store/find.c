/*
 * find.c — finding states by a fingerprint prefix (the workbench's `/`
 * jump, `cmc show` by fingerprint): one pass over a run's state blocks,
 * comparing the deduplicating, raw and canonical fingerprints against the
 * prefix as 128-bit masks, with no per-state allocation, label lookup or
 * query.  A million states take a fraction of a second.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A prefix of n hex digits as a value and a mask over (hi, lo). */
struct fp_prefix {
	eng_fp val, mask;
	uint32_t *ids;
	size_t max, *n;
};

static bool prefix_hit(const struct fp_prefix *p, eng_fp fp)
{
	return !eng_fp_zero(fp) && (fp.hi & p->mask.hi) == p->val.hi &&
	       (fp.lo & p->mask.lo) == p->val.lo;
}

static bool find_cb(void *ctx, uint32_t id, const struct store_rec *r)
{
	struct fp_prefix *p = ctx;
	if (prefix_hit(p, r->fp) || prefix_hit(p, r->raw_fp) || prefix_hit(p, r->canon_fp))
		p->ids[(*p->n)++] = id;
	return *p->n < p->max;
}

int store_find_fp_prefix(store *st, int64_t run, const char *hex, uint32_t *ids, size_t max,
			 size_t *n)
{
	*n = 0;
	size_t len = hex ? strlen(hex) : 0;
	struct fp_prefix p = {{0, 0}, {0, 0}, ids, max, n};
	for (size_t i = 0; i < len; i++) {
		int c = tolower((unsigned char)hex[i]);
		if (!isxdigit(c) || i >= 32) {
			snprintf(st->err, sizeof st->err,
				 "a fingerprint prefix is 1 to 32 hex digits, got '%.40s'", hex);
			return -1;
		}
		uint64_t d = (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
		uint64_t *v = i < 16 ? &p.val.hi : &p.val.lo, *m = i < 16 ? &p.mask.hi : &p.mask.lo;
		unsigned shift = 60 - 4 * (unsigned)(i % 16);
		*v |= d << shift;
		*m |= (uint64_t)15 << shift;
	}
	if (!len) {
		snprintf(st->err, sizeof st->err, "a fingerprint prefix is 1 to 32 hex digits, got ''");
		return -1;
	}
	if (!max)
		return 0;
	return store_each_state(st, run, find_cb, &p) < 0 ? -1 : 0;
}
