/*
 * util.h — small helpers shared by the engine's files: allocation that dies
 * with a message instead of returning NULL (callers never check), and a
 * monotonic clock.  Public to the libraries above (store, viz, tui) so
 * they die the same way; not installed, not part of libcmc's API.
 */
#ifndef CMC_UTIL_H
#define CMC_UTIL_H

#include <stddef.h>

void *eng_xmalloc(size_t n);
void *eng_xcalloc(size_t n, size_t size);
void *eng_xrealloc(void *p, size_t n);
char *eng_xstrdup(const char *s);
void *eng_xmemdup(const void *p, size_t n);
/* Append n bytes of p to the buffer *buf (*len used of *cap), at the next
 * 16-byte boundary (frontends take states as C structs); returns where. */
size_t eng_append16(unsigned char **buf, size_t *len, size_t *cap, const void *p, size_t n);
_Noreturn void eng_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double eng_now(void); /* seconds, CLOCK_MONOTONIC */

#endif
