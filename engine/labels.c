/*
 * labels.c — the intern table of labels.h.  Two levels: a direct-mapped
 * front keyed by the caller's pointer (a frontend passing the same static
 * string, or the same buffer, hits here after one comparison of the text),
 * then an open-addressing table keyed by the text's hash.  Copies are
 * allocated one by one and never move or change.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "util.h"

#define FRONT_BITS 8

struct front {
	const char *src;   /* the caller's pointer last seen here */
	const char *copy;  /* its text's copy */
};

struct slot {
	char *copy;
	uint64_t hash;
};

/* Invariant: n * 2 <= cap (cap a power of two, or 0 with no slots); every
 * front entry's copy is one of the slots' copies and held the text of its
 * src when it was filled (rechecked on every hit: a caller's buffer may
 * since hold another text). */
struct eng_labels {
	struct front front[1u << FRONT_BITS];
	struct slot *slots;
	size_t n, cap;
};

eng_labels *eng_labels_new(void) { return eng_xcalloc(1, sizeof(eng_labels)); }

void eng_labels_free(eng_labels *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].copy);
	free(t->slots);
	free(t);
}

static inline bool same_text(const char *a, const char *b)
{
	for (; *a == *b; a++, b++)
		if (!*a)
			return true;
	return false;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void grow(eng_labels *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct slot *s = eng_xcalloc(cap, sizeof *s);
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].copy)
			continue;
		size_t j = t->slots[i].hash & (cap - 1);
		while (s[j].copy)
			j = (j + 1) & (cap - 1);
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
}

const char *eng_labels_intern(eng_labels *t, const char *text)
{
	if (!text)
		return NULL;
	struct front *f =
		&t->front[((uintptr_t)text * 0x9e3779b97f4a7c15ull) >> (64 - FRONT_BITS)];
	if (f->src == text && same_text(f->copy, text))
		return f->copy;
	uint64_t h = text_hash(text);
	size_t j = 0;
	if (t->cap)
		for (j = h & (t->cap - 1); t->slots[j].copy; j = (j + 1) & (t->cap - 1))
			if (t->slots[j].hash == h && same_text(t->slots[j].copy, text))
				goto found;
	if ((t->n + 1) * 2 > t->cap) {
		grow(t);
		for (j = h & (t->cap - 1); t->slots[j].copy; j = (j + 1) & (t->cap - 1))
			;
	}
	t->slots[j] = (struct slot){eng_xstrdup(text), h};
	t->n++;
found:
	*f = (struct front){text, t->slots[j].copy};
	return f->copy;
}
