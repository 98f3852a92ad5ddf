/*
 * check.h — cmc checking its own invariants, at a level chosen when it is
 * built (make CHECK=N; -DCMC_CHECK=N), as mimalloc's MI_DEBUG does:
 *
 *   0  nothing is checked; ALWAYS()/NEVER() are their bare conditions
 *   1  cheap, O(1) assertions (CMC_ASSERT): the default build
 *   2  + validators at a structure's quiet points (CMC_ASSERT_EXPENSIVE,
 *        an _is_valid() after a run, a resize, an eviction); ALWAYS()/
 *        NEVER() abort when they fail: the sanitizer build and unit tests
 *   3  + validators around every change (CMC_ASSERT_INTERNAL): slow,
 *        for `make CHECK=3 test`
 *
 * A failed check prints "cmc: internal check failed: FILE:LINE: EXPR" and
 * aborts: it is a bug in cmc, never bad input (bad input is an error that
 * names the input).  ALWAYS(x)/NEVER(x), as in SQLite, mark a defensive
 * branch that "cannot happen": below level 2 they only evaluate x, so the
 * branch still handles it in a release build.
 *
 * An _is_valid() returns true or aborts through cmc_check_fail() naming
 * what it found broken; it is also called directly by the unit tests.
 */
#ifndef CMC_CHECK_H
#define CMC_CHECK_H

#include <stdbool.h>

#ifndef CMC_CHECK
#define CMC_CHECK 1
#endif

_Noreturn void cmc_check_fail(const char *file, int line, const char *what);
/* cmc_check_fail with a printf-style message: for validators */
_Noreturn void cmc_check_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CMC_CHECK_FAIL_(e) cmc_check_fail(__FILE__, __LINE__, #e)

#if CMC_CHECK >= 1
#define CMC_ASSERT(e) ((e) ? (void)0 : CMC_CHECK_FAIL_(e))
#else
#define CMC_ASSERT(e) ((void)0)
#endif

#if CMC_CHECK >= 2
#define CMC_ASSERT_EXPENSIVE(e) ((e) ? (void)0 : CMC_CHECK_FAIL_(e))
#define ALWAYS(x) ((x) ? 1 : (CMC_CHECK_FAIL_(x), 0))
#define NEVER(x) ((x) ? (CMC_CHECK_FAIL_(!(x)), 1) : 0)
#else
#define CMC_ASSERT_EXPENSIVE(e) ((void)0)
#define ALWAYS(x) (x)
#define NEVER(x) (x)
#endif

#if CMC_CHECK >= 3
#define CMC_ASSERT_INTERNAL(e) ((e) ? (void)0 : CMC_CHECK_FAIL_(e))
#else
#define CMC_ASSERT_INTERNAL(e) ((void)0)
#endif

/* A validator's own test: fail with a message naming the broken rule. */
#define CMC_VALID(cond, ...) \
	((cond) ? (void)0 : cmc_check_failf(__FILE__, __LINE__, __VA_ARGS__))

#endif
