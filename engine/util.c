/*
 * util.c — allocation wrappers that die with a message (as tmux's xmalloc),
 * and the clock.  Out of memory in the checker itself is not recoverable
 * except in the visited set, which reports it (see fpset.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

void eng_die(const char *fmt, ...)
{
	va_list ap;
	fputs("cmc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *eng_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		eng_die("out of memory allocating %zu bytes", n);
	return p;
}

void *eng_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		eng_die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *eng_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		eng_die("out of memory allocating %zu bytes", n);
	return q;
}

char *eng_xstrdup(const char *s)
{
	return eng_xmemdup(s, strlen(s) + 1);
}

void *eng_xmemdup(const void *p, size_t n)
{
	void *q = eng_xmalloc(n);
	if (n)
		memcpy(q, p, n);
	return q;
}

double eng_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t eng_append16(unsigned char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	size_t off = (*len + 15) & ~(size_t)15;
	if (off + n > *cap) {
		*cap = (off + n) * 2 + 4096;
		*buf = eng_xrealloc(*buf, *cap);
	}
	if (n)
		memcpy(*buf + off, p, n);
	*len = off + n;
	return off;
}
