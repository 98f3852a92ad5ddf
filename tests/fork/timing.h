/*
 * timing.h — what the fork benchmarks' helpers (forklimit, forkproto,
 * cgmove) share: a monotonic clock in seconds and an order on doubles for
 * qsort (their medians).
 */
#ifndef CMC_BENCH_TIMING_H
#define CMC_BENCH_TIMING_H

#include <time.h>

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
