/*
 * check.c — where a failed internal check (check.h) ends: one line on
 * stderr naming the place and the rule, then abort(), so a core or the
 * sanitizer's report shows the stack.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

void cmc_check_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "cmc: internal check failed: %s:%d: %s\n", file, line, what);
	fflush(stderr);
	abort();
}

void cmc_check_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "cmc: internal check failed: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}
