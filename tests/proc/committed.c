/*
 * committed.c — a property plugin for crash scenarios (t5410): after the
 * op named by the argument (default "check"), every key committed earlier
 * in the trace is still there, and the store says it is intact.
 *
 * A key is committed by an op labelled "put K" (its reply came back, so
 * the program acknowledged it: cmc applies the next op, a crash included,
 * only once the target is quiescent).  The check op's reply is read as
 * lines: the first lists the keys, separated by commas or spaces (a
 * key-value store's LIST, or sqlite3's group_concat); every further line
 * must be "ok" (sqlite3's PRAGMA integrity_check).
 */
#include <string.h>
#include <stdio.h>

#include "cmc_property.h"

const char *cmc_property_name(void)
{
	return "committed";
}

/* Is key (klen bytes) one of the separated words of line? */
static int listed(const unsigned char *line, size_t len, const char *key, size_t klen)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && line[j] != ',' && line[j] != ' ')
			j++;
		if (j - i == klen && !memcmp(line + i, key, klen))
			return 1;
		i = j + 1;
	}
	return 0;
}

int cmc_property_check(const struct cmc_property_ctx *ctx, char *msg, size_t msglen)
{
	const char *check = ctx->arg ? ctx->arg : "check";
	if (ctx->abi != CMC_PROPERTY_ABI || ctx->depth == 0 || strcmp(ctx->labels[ctx->depth - 1], check))
		return 0;
	const unsigned char *r = ctx->replies[ctx->depth - 1];
	size_t n = r ? ctx->reply_lens[ctx->depth - 1] : 0;
	size_t first = 0;
	while (first < n && r[first] != '\n')
		first++;
	for (size_t i = 0; i + 1 < ctx->depth; i++) {
		const char *l = ctx->labels[i];
		if (strncmp(l, "put ", 4))
			continue;
		if (!listed(r, first, l + 4, strlen(l + 4))) {
			snprintf(msg, msglen, "key %s, committed at step %zu, is missing: %s lists '%.*s'", l + 4,
				 i + 1, check, (int)(first < 200 ? first : 200), (const char *)r);
			return 1;
		}
	}
	for (size_t i = first + 1; i < n;) {
		size_t j = i;
		while (j < n && r[j] != '\n')
			j++;
		if (j - i != 2 || memcmp(r + i, "ok", 2)) {
			snprintf(msg, msglen, "%s says the store is damaged: '%.*s'", check,
				 (int)(j - i < 200 ? j - i : 200), (const char *)r + i);
			return 1;
		}
		i = j + 1;
	}
	return 0;
}
