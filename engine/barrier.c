/*
 * barrier.c — spin, then sleep (barrier.h).
 *
 * The round's generation is the futex word: a waiter that finds it
 * unchanged after spinning counts itself among the sleepers and waits
 * until it moves; the last to arrive moves it and, when someone sleeps,
 * wakes them.  Every access to gen and sleepers is sequentially
 * consistent, so either the opener sees the sleeper's count (and wakes
 * it) or the sleeper sees the new generation (and never sleeps): no
 * wake-up is lost.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "barrier.h"

/* About 50 microseconds of spinning: longer than a round's usual skew,
 * shorter than a chunk's one-thread admission. */
#define SPINS 2000

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void eng_barrier_init(eng_barrier *b, unsigned n)
{
	b->n = n;
	b->arrived = 0;
	b->gen = 0;
	b->sleepers = 0;
}

void eng_barrier_wait(eng_barrier *b)
{
	unsigned g = __atomic_load_n(&b->gen, __ATOMIC_SEQ_CST);
	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->n) {
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&b->gen, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&b->sleepers, __ATOMIC_SEQ_CST))
			syscall(SYS_futex, &b->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	for (unsigned i = 0; i < SPINS; i++) {
		if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != g)
			return;
		relax();
	}
	__atomic_add_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) == g)
		syscall(SYS_futex, &b->gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
	__atomic_sub_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
}
