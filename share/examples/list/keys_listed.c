/*
 * keys_listed.c — "every inserted key is still present" judged from the
 * outside, for a list server built without the hook (share/examples/list,
 * plain): after a LIST operation, every key the trace inserted (and did
 * not delete again) is among the keys of the reply.  The same invariant as
 * keys_present.c, which reads the canonical record instead; this one reads
 * only what any client sees, so it holds for the unmodified program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmc_property.h"

const char *cmc_property_name(void)
{
	return "keys-listed";
}

/* Is key among the space-separated numbers of the reply?  The reply is
 * target bytes: read within its length, never past it. */
static int listed(const unsigned char *r, size_t len, unsigned long long key)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && (r[i] == ' ' || r[i] == '\n'))
			i++;
		unsigned long long k = 0;
		size_t d = 0;
		for (; i < len && r[i] >= '0' && r[i] <= '9' && d < 19; i++, d++)
			k = k * 10 + (unsigned long long)(r[i] - '0');
		if (d && k == key)
			return 1;
		while (i < len && r[i] != ' ' && r[i] != '\n')
			i++; /* anything else: skip the word */
	}
	return 0;
}

int cmc_property_check(const struct cmc_property_ctx *ctx, char *msg, size_t msglen)
{
	size_t last = ctx->depth;
	if (!last || strcmp(ctx->labels[last - 1], "LIST"))
		return 0; /* judged on the reply to a LIST */
	const unsigned char *r = ctx->replies[last - 1];
	size_t rl = r ? ctx->reply_lens[last - 1] : 0;
	for (size_t i = 0; i + 1 < last; i++) {
		unsigned long long k;
		if (sscanf(ctx->labels[i], "INS %llu", &k) != 1)
			continue;
		int deleted = 0;
		for (size_t j = i + 1; j + 1 < last; j++) {
			unsigned long long d;
			if (sscanf(ctx->labels[j], "DEL %llu", &d) == 1 && d == k)
				deleted = 1;
		}
		if (!deleted && !listed(r, rl, k)) {
			snprintf(msg, msglen, "key %llu was inserted at step %zu but LIST does not show it", k,
				 i + 1);
			return 1;
		}
	}
	return 0;
}
