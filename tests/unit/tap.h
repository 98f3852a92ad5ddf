/*
 * tap.h — the smallest TAP producer for C unit tests: ok(cond, fmt, ...)
 * prints "ok N - ..." or "not ok N - ..."; tap_done() prints the plan and
 * returns the exit status.
 */
#ifndef CMC_TAP_H
#define CMC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
