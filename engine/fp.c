/*
 * fp.c — fingerprints: XXH3-128 of a state's bytes, pairs of fingerprints,
 * and the collision estimate reported at the end of a run.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cmc.h"

eng_fp eng_fp_of(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	eng_fp fp = {h.high64, h.low64};
	if (eng_fp_zero(fp)) /* zero means "absent"; XXH3 never maps real data here in practice */
		fp.lo = 1;
	return fp;
}

eng_fp eng_fp_combine(eng_fp a, eng_fp b)
{
	uint64_t buf[4] = {a.hi, a.lo, b.hi, b.lo};
	return eng_fp_of(buf, sizeof buf);
}

char *eng_fp_hex(eng_fp fp, char buf[33])
{
	static const char hx[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		buf[i] = hx[(fp.hi >> (60 - 4 * i)) & 15];
		buf[16 + i] = hx[(fp.lo >> (60 - 4 * i)) & 15];
	}
	buf[32] = 0;
	return buf;
}

/*
 * The birthday bound: the probability that some two of n distinct states
 * share a b-bit fingerprint (so one of them, and what lies behind it, was
 * never explored) is at most n (n - 1) / 2 / 2^b; b = 128 here.  One
 * formula for every run, exhaustive or random walks: it depends on the
 * states kept, not on how often the search met them again (TLC's
 * "optimistic" n (g - n) / 2^b reads 0 for a run that never met a state
 * twice, which promises too much).
 */
double eng_collision_p(uint64_t distinct)
{
	if (distinct < 2)
		return 0.0;
	return (double)distinct * (double)(distinct - 1) / 2.0 / 3.402823669209385e38;
}
