/*
 * label.c — text for labels: the growable buffer and the escapers that turn
 * untrusted target bytes into something Graphviz shows literally.  Every
 * byte that came from a target (operation labels of process runs, canonical
 * records, fault texts) passes through viz_label_bytes or viz_html_bytes on
 * its way into a picture; nothing else in viz/ puts such bytes in a label.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

static void reserve(viz_buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->s = eng_xrealloc(b->s, cap);
	b->cap = cap;
}

void viz_buf_add(viz_buf *b, const char *s)
{
	size_t n = strlen(s);
	reserve(b, n);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void viz_buf_addf(viz_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *viz_buf_str(viz_buf *b) { return b->s ? b->s : ""; }

void viz_buf_reset(viz_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

void viz_buf_free(viz_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void escape(viz_buf *b, const void *p, size_t n, size_t max, bool html)
{
	const unsigned char *c = p;
	size_t lim = n < max ? n : max;
	reserve(b, lim * 6 + 32);
	char *o = b->s + b->len;
	for (size_t i = 0; i < lim; i++) {
		unsigned x = c[i];
		const char *ent = NULL;
		if (html) {
			switch (x) {
			case '&': ent = "&amp;"; break;
			case '<': ent = "&lt;"; break;
			case '>': ent = "&gt;"; break;
			case '"': ent = "&quot;"; break;
			case '\'': ent = "&#39;"; break;
			case '\\': ent = "\\"; break;
			}
		} else if (x == '\\') {
			ent = "\\\\";
		}
		if (ent) {
			size_t k = strlen(ent);
			memcpy(o, ent, k);
			o += k;
		} else if (x < 0x20 || x >= 0x7f) {
			/* Shown as the four characters \xHH.  In a plain label the
			 * backslash is doubled so Graphviz does not read an escape. */
			o += sprintf(o, html ? "\\x%02x" : "\\\\x%02x", x);
		} else {
			*o++ = (char)x;
		}
	}
	*o = 0;
	b->len = (size_t)(o - b->s);
	if (n > lim)
		viz_buf_add(b, "...");
}

void viz_label_bytes(viz_buf *b, const void *p, size_t n, size_t max) { escape(b, p, n, max, false); }
void viz_html_bytes(viz_buf *b, const void *p, size_t n, size_t max) { escape(b, p, n, max, true); }
