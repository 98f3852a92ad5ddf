/*
 * corecost.c — what it costs this machine to move data between two cores,
 * the figure that decides whether a shared-memory parallel search can pay
 * (tests/bench/cores.sh prints it beside engine.sh's --jobs ratio).
 *
 * Three measurements, two threads pinned to the first two CPUs:
 *   handoff   one cache line passed back and forth (each side waits for
 *             the other's store): half a round trip, what a dependent
 *             access to a line another core just wrote costs — a
 *             compare-and-swap on a shared table, a pointer into a
 *             buffer the other core filled;
 *   stream    one core reads, in order, lines the other has just written
 *             (the hardware prefetches: many misses in flight);
 *   scatter   the same lines read in a random order, independent loads
 *             (out-of-order execution overlaps them);
 * and, for scale, scatter over lines the reading core wrote itself.
 * Prints one "name: value" line each, nanoseconds per line.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fork/timing.h"

#define LINES 16384 /* 1 MiB: within a core's caches, so nothing but the
		     * hand-over between cores is measured */
#define ROUNDS 60
#define HANDOFFS 200000

static _Alignas(64) volatile long flag;
static unsigned char *buf;
static unsigned *order;
static volatile int phase;
static double t_stream, t_scatter;
static volatile unsigned long sink;

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set); /* best effort */
}

static void *reader(void *arg)
{
	(void)arg;
	pin(1);
	for (long i = 0; i < HANDOFFS; i++) { /* the hand-off game */
		while (flag != 2 * i + 1)
			;
		flag = 2 * i + 2;
	}
	unsigned long sum = 0;
	for (int r = 0; r < 2 * ROUNDS; r++) {
		while (phase != 2 * r + 1)
			;
		double t = now();
		if (r % 2 == 0)
			for (size_t i = 0; i < LINES; i++)
				sum += buf[i * 64];
		else
			for (size_t i = 0; i < LINES; i++)
				sum += buf[(size_t)order[i] * 64];
		*(r % 2 == 0 ? &t_stream : &t_scatter) += now() - t;
		phase = 2 * r + 2;
	}
	sink = sum;
	return NULL;
}

int main(void)
{
	buf = aligned_alloc(64, (size_t)LINES * 64);
	order = malloc(LINES * sizeof *order);
	if (!buf || !order)
		return 1;
	for (unsigned i = 0; i < LINES; i++)
		order[i] = i;
	srand(1);
	for (unsigned i = LINES - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	memset(buf, 0, (size_t)LINES * 64);
	pthread_t th;
	if (pthread_create(&th, NULL, reader, NULL))
		return 1;
	pin(0);
	double t0 = now();
	for (long i = 0; i < HANDOFFS; i++) {
		while (flag != 2 * i)
			;
		flag = 2 * i + 1;
	}
	double handoff = (now() - t0) / HANDOFFS / 2;
	for (int r = 0; r < 2 * ROUNDS; r++) {
		while (phase != 2 * r)
			;
		for (size_t i = 0; i < LINES; i++) /* written line by line */
			buf[i * 64] = (unsigned char)r;
		phase = 2 * r + 1;
	}
	pthread_join(th, NULL);
	/* the same scatter on lines this core wrote */
	double t_own = 0;
	unsigned long sum = 0;
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < LINES; i++)
			buf[i * 64] = (unsigned char)r;
		double t = now();
		for (size_t i = 0; i < LINES; i++)
			sum += buf[(size_t)order[i] * 64];
		t_own += now() - t;
	}
	sink += sum;
	printf("handoff ns: %.0f\n", handoff * 1e9);
	printf("stream ns/line: %.1f\n", t_stream / ROUNDS / LINES * 1e9);
	printf("scatter ns/line: %.1f\n", t_scatter / ROUNDS / LINES * 1e9);
	printf("scatter own ns/line: %.1f\n", t_own / ROUNDS / LINES * 1e9);
	free(buf);
	free(order);
	return 0;
}
