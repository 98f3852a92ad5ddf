/*
 * wb-text.c — fitting text to the columns a view has, written once for
 * every view: a path shortened in the middle (the file name is what tells
 * two scenarios of one folder apart), a message wrapped at word breaks, a
 * key-hint line cut only between whole hints, and a line of fields that
 * drops its least important ones first.  Text in, text out: no curses,
 * so the unit test (tests/unit/t4-text.c) reaches it.  Inputs are
 * printable text already (escaped by wb_escape); widths count bytes,
 * which for printable ASCII are columns.
 */
#include <string.h>

#include "wb-text.h"

static size_t put(char *dst, size_t dstlen, const char *s, size_t n)
{
	if (dstlen == 0)
		return 0;
	if (n > dstlen - 1)
		n = dstlen - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
	return n;
}

char *wb_text_elide_path(char *dst, size_t dstlen, const char *s, size_t width)
{
	size_t n = strlen(s);
	if (width >= WB_TEXT_MAX)
		width = WB_TEXT_MAX - 1; /* tmp's room */
	if (width + 1 < dstlen)
		dstlen = width + 1;
	if (n <= width || dstlen == 0) {
		put(dst, dstlen, s, n);
		return dst;
	}
	if (width < 4) {
		/* no room for an ellipsis: the end, where the file name is */
		put(dst, dstlen, s + n - width, width);
		return dst;
	}
	const char *slash = strrchr(s, '/');
	size_t base = slash ? n - (size_t)(slash - s) : n; /* "/name" or "name" */
	char tmp[WB_TEXT_MAX];
	size_t o = 0;
	if (base + 3 <= width) {
		/* head of the path, "...", the whole file name */
		size_t head = width - 3 - base;
		memcpy(tmp, s, head);
		o = head;
		memcpy(tmp + o, "...", 3);
		o += 3;
		memcpy(tmp + o, s + n - base, base);
		o += base;
	} else {
		/* the file name alone is too long: its start and its end */
		const char *b = slash ? slash + 1 : s;
		size_t bn = strlen(b), keep = width - 3, front = keep / 2, back = keep - front;
		memcpy(tmp, b, front);
		o = front;
		memcpy(tmp + o, "...", 3);
		o += 3;
		memcpy(tmp + o, b + bn - back, back);
		o += back;
	}
	put(dst, dstlen, tmp, o);
	return dst;
}

size_t wb_text_wrap(const char *s, size_t width, struct wb_text_line *lines, size_t max)
{
	size_t n = strlen(s), k = 0, i = 0;
	if (width == 0)
		width = 1;
	while (i < n && k < max) {
		while (i < n && s[i] == ' ' && k > 0)
			i++; /* a break's spaces start no line */
		if (i >= n)
			break;
		size_t len = n - i;
		if (len > width) {
			/* break at the last space that fits; none, or one in the
			 * line's first half (a long word: a hex blob, a path):
			 * cut the word at the width */
			size_t cut = width;
			while (cut > 0 && s[i + cut] != ' ' && s[i + cut - 1] != ' ')
				cut--;
			len = cut * 2 > width ? cut : width;
			while (len > 1 && s[i + len - 1] == ' ')
				len--;
		}
		lines[k].start = i;
		lines[k].len = len;
		k++;
		i += len;
	}
	if (k == 0 && max > 0) {
		lines[0].start = 0;
		lines[0].len = 0;
		k = 1;
	}
	return k;
}

/* A hint starts at a word holding ':' ("Enter:open the state"); the words
 * up to the next such word are its description. */
static bool starts_hint(const char *w)
{
	for (; *w && *w != ' '; w++)
		if (*w == ':')
			return true;
	return false;
}

char *wb_text_fit_hints(char *dst, size_t dstlen, const char *hints, size_t width)
{
	size_t o = 0, n = strlen(hints);
	if (width + 1 < dstlen)
		dstlen = width + 1;
	if (dstlen == 0)
		return dst;
	dst[0] = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && hints[i] == ' ')
			i++;
		size_t j = i;
		/* to the start of the next hint */
		while (j < n) {
			while (j < n && hints[j] != ' ')
				j++;
			size_t k = j;
			while (k < n && hints[k] == ' ')
				k++;
			if (k >= n || starts_hint(hints + k))
				break;
			j = k;
		}
		if (j == i)
			break;
		size_t need = (o ? 1 : 0) + (j - i);
		if (o + need > dstlen - 1)
			break; /* hints come most important first: stop at one that does not fit */
		if (o)
			dst[o++] = ' ';
		memcpy(dst + o, hints + i, j - i);
		o += j - i;
		dst[o] = 0;
		i = j;
	}
	return dst;
}

char *wb_text_fit_fields(char *dst, size_t dstlen, const struct wb_text_field *f, size_t n,
			 size_t width)
{
	bool keep[WB_TEXT_FIELDS];
	if (n > WB_TEXT_FIELDS)
		n = WB_TEXT_FIELDS;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		keep[i] = f[i].text && f[i].text[0];
		total += keep[i] ? strlen(f[i].text) : 0;
	}
	/* drop the least important (highest rank) first, the later one of a tie */
	while (total > width) {
		size_t worst = n;
		for (size_t i = 0; i < n; i++)
			if (keep[i] && f[i].rank > 0 && (worst == n || f[i].rank >= f[worst].rank))
				worst = i;
		if (worst == n)
			break; /* only rank 0 left: cut below */
		keep[worst] = false;
		total -= strlen(f[worst].text);
	}
	/* Dropping a wide field may have left room for a narrower one that
	 * went before it: take those back, most important first. */
	for (int again = 1; again;) {
		again = 0;
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (!keep[i] && f[i].text && f[i].text[0] && total + strlen(f[i].text) <= width &&
			    (best == n || f[i].rank < f[best].rank))
				best = i;
		if (best < n) {
			keep[best] = true;
			total += strlen(f[best].text);
			again = 1;
		}
	}
	size_t o = 0;
	if (dstlen == 0)
		return dst;
	dst[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			o += put(dst + o, dstlen - o, f[i].text, strlen(f[i].text));
	if (o > width)
		dst[width] = 0;
	return dst;
}
