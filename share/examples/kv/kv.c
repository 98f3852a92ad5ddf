/*
 * kv.c — a small key-value store driven by stdin through stdio: fgets in,
 * printf out, never fflush.  It is the stdio case for cmc: its reads never
 * pass through an interposed read(), and its replies sit in stdout's buffer
 * unless cmc asks the preload to line-buffer stdout (CMC_LINEBUF=1).
 * Entries are malloc'd (keys and values strdup'd) in a sorted array that
 * grows with realloc; DEL frees.
 *
 *   SET k v -> OK          GET k -> the value | NONE
 *   DEL k   -> OK | NONE   COUNT -> the number of entries
 *   DUMP    -> k=v pairs in key order, space separated
 * k and v are words without spaces.  Exits 0 at end of input.
 *
 * -DCMC_EMIT: after each command, the sorted pairs as a canonical record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CMC_EMIT
#include "cmc_emit.h"
#endif

struct entry {
	char *key, *val;
};

/* Invariant: entries[0..count) sorted by strcmp of key, keys distinct,
 * count <= cap. */
static struct entry *entries;
static size_t count, cap;

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		perror("kv: strdup");
		exit(1);
	}
	return d;
}

/* Index of key, or of where it would go; *found says which. */
static size_t find(const char *key, int *found)
{
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(entries[mid].key, key);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

static void set(const char *key, const char *val)
{
	int found;
	size_t i = find(key, &found);
	if (found) {
		free(entries[i].val);
		entries[i].val = xstrdup(val);
		return;
	}
	if (count == cap) {
		cap = cap ? 2 * cap : 4;
		entries = realloc(entries, cap * sizeof *entries);
		if (!entries) {
			perror("kv: realloc");
			exit(1);
		}
	}
	memmove(entries + i + 1, entries + i, (count - i) * sizeof *entries);
	entries[i].key = xstrdup(key);
	entries[i].val = xstrdup(val);
	count++;
}

static int del(const char *key)
{
	int found;
	size_t i = find(key, &found);
	if (!found)
		return 0;
	free(entries[i].key);
	free(entries[i].val);
	memmove(entries + i, entries + i + 1, (count - i - 1) * sizeof *entries);
	count--;
	return 1;
}

#ifdef CMC_EMIT
static void emit_state(void)
{
	static unsigned char space[64 * 1024];
	struct cmc_emit_buf b;
	cmc_emit_begin(&b, space, sizeof space);
	for (size_t i = 0; i < count; i++) {
		cmc_emit_str(&b, entries[i].key);
		cmc_emit_str(&b, entries[i].val);
	}
	cmc_emit_end(&b);
}
#else
static void emit_state(void) {}
#endif

int main(void)
{
	char line[512], a[256], b[256], extra[2];
	while (fgets(line, sizeof line, stdin)) {
		int found;
		if (sscanf(line, "SET %255s %255s %1s", a, b, extra) == 2) {
			set(a, b);
			printf("OK\n");
		} else if (sscanf(line, "GET %255s %1s", a, extra) == 1) {
			size_t i = find(a, &found);
			printf("%s\n", found ? entries[i].val : "NONE");
		} else if (sscanf(line, "DEL %255s %1s", a, extra) == 1) {
			printf("%s\n", del(a) ? "OK" : "NONE");
		} else if (strcmp(line, "COUNT\n") == 0) {
			printf("%zu\n", count);
		} else if (strcmp(line, "DUMP\n") == 0) {
			for (size_t i = 0; i < count; i++)
				printf(i ? " %s=%s" : "%s=%s", entries[i].key, entries[i].val);
			printf("\n");
		} else {
			printf("ERR expected SET k v, GET k, DEL k, COUNT or DUMP\n");
		}
		emit_state();
	}
	return 0;
}
