/*
 * barrier.h — a barrier for the search's worker threads that spins before
 * it sleeps.  The parallel search meets at several barriers per chunk of
 * the frontier, a few hundred microseconds apart; a barrier that puts
 * every waiter to sleep costs a wake-up (tens of microseconds) each time,
 * a sizeable share of the work between two.  Waiters spin a little first
 * and sleep on a futex only after.  Private to the engine.
 */
#ifndef CMC_BARRIER_H
#define CMC_BARRIER_H

/*
 * Invariant: arrived < n between rounds (the last to arrive resets it
 * before it opens the round by bumping gen); sleepers counts the waiters
 * inside the futex wait, so the opener wakes only when there is one.
 */
typedef struct eng_barrier {
	unsigned n;
	unsigned arrived;
	unsigned gen;
	unsigned sleepers;
} eng_barrier;

void eng_barrier_init(eng_barrier *b, unsigned n);
void eng_barrier_wait(eng_barrier *b);

#endif
