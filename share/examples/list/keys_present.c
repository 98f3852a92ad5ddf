/*
 * keys_present.c — the seed's invariant "every inserted key is still
 * present" as a cmc property plugin (share/include/cmc_property.h).
 *
 * It reads the trace (labels "INS k") and the list server's canonical
 * record (list.c built with -DCMC_EMIT: the keys in order, each a uint64
 * little-endian) and fails when a key the trace inserted is missing.  Keys
 * are never deleted by the scenarios it is meant for; a "DEL k" label takes
 * k out of the expected set, so it stays correct when they are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmc_property.h"

const char *cmc_property_name(void)
{
	return "keys-present";
}

static int present(const struct cmc_property_ctx *ctx, uint64_t key)
{
	/* The record is untrusted: only whole 8-byte keys are read. */
	for (size_t off = 0; off + 8 <= ctx->canon_len; off += 8) {
		uint64_t k = 0;
		for (int b = 0; b < 8; b++)
			k |= (uint64_t)ctx->canon[off + b] << (8 * b);
		if (k == key)
			return 1;
	}
	return 0;
}

int cmc_property_check(const struct cmc_property_ctx *ctx, char *msg, size_t msglen)
{
	if (!ctx->canon)
		return 0; /* no record (target built without the hook): nothing to judge */
	if (ctx->canon_len % 8) {
		snprintf(msg, msglen, "canonical record of %zu bytes is not a list of 8-byte keys",
			 ctx->canon_len);
		return 1;
	}
	for (size_t i = 0; i < ctx->depth; i++) {
		unsigned long long k;
		if (sscanf(ctx->labels[i], "INS %llu", &k) != 1)
			continue;
		/* Deleted again later in the trace: not expected any more. */
		int deleted = 0;
		for (size_t j = i + 1; j < ctx->depth; j++) {
			unsigned long long d;
			if (sscanf(ctx->labels[j], "DEL %llu", &d) == 1 && d == k)
				deleted = 1;
		}
		if (!deleted && !present(ctx, (uint64_t)k)) {
			snprintf(msg, msglen, "key %llu was inserted at step %zu but is missing", k, i + 1);
			return 1;
		}
	}
	return 0;
}
