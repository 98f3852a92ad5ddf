/*
 * philosophers.pml — the Chandy-Misra dining philosophers with NP = 5
 * (share/models/philosophers.c, after DiningPhilosophers.tla in
 * tlaplus/Examples) in Promela, to check cmc's counts against SPIN's.
 *
 * Same shape as diehard.pml: one process, one do-loop, one d_step per
 * (label, philosopher) with the translation's enabling test pc[i] == ...
 * as guard.  Loop tests CanEat on the state before its own fork hand-over
 * (the TLA+ translation reads it unprimed), so the d_step computes it into
 * `ce` first and zeroes `ce` again before it ends: `ce` is 0 in every
 * stored state and adds nothing to the counts.  Some steps leave the state
 * as it was (a hungry philosopher who cannot eat yet and has no dirty fork
 * to hand over); SPIN counts those as matched, cmc as generated
 * duplicates, as TLC does.  Every state has NP enabled steps: no end label
 * is needed.
 *
 * Index i is philosopher i+1 and fork i+1.  Fork f is philosopher f's left
 * fork and philosopher f-1's right one (fork 1 is philosopher 5's right).
 * The spec starts fork 2 with philosopher 1 and every other fork f with f;
 * Promela can only start an array with one value, and an init step before
 * the loop would add a state of its own.  So hx[f] stores the holder XOR
 * its initial value (H(f) below): 0 at the start, and a bijection of the
 * spec's holder[f] per fork, so the counts are unchanged.
 */
#define LOOP  0
#define EAT   1
#define THINK 2

byte hx[5];             /* holder[f] ^ H(f); all 0 */
bool clean[5];          /* all FALSE */
bool hungry[5] = true;
byte pc[5];             /* all LOOP */
bool ce;                /* scratch inside Loop's d_step, always 0 between steps */

/* i: index; L, R: fork indices; P: the philosopher's number; LP, RP: the
 * numbers of the left and right neighbours; HL, HR: the initial holders of
 * forks L and R. */
#define PHIL(i, L, R, P, LP, RP, HL, HR) \
	:: d_step { pc[i] == LOOP -> \
		ce = ((hx[L] ^ HL) == P && (hx[R] ^ HR) == P && clean[L] && clean[R]); \
		if \
		:: (hx[L] ^ HL) == P && !clean[L] -> hx[L] = LP ^ HL; clean[L] = true \
		:: else -> \
			if \
			:: (hx[R] ^ HR) == P && !clean[R] -> hx[R] = RP ^ HR; clean[R] = true \
			:: else -> skip \
			fi \
		fi; \
		if \
		:: hungry[i] && ce -> pc[i] = EAT \
		:: hungry[i] && !ce -> pc[i] = LOOP \
		:: else -> pc[i] = THINK \
		fi; \
		ce = false } \
	:: d_step { pc[i] == THINK -> hungry[i] = true; pc[i] = LOOP } \
	:: d_step { pc[i] == EAT -> hungry[i] = false; clean[L] = false; clean[R] = false; pc[i] = LOOP }

active proctype philosophers()
{
	do
	PHIL(0, 0, 1, 1, 5, 2, 1, 1)
	PHIL(1, 1, 2, 2, 1, 3, 1, 3)
	PHIL(2, 2, 3, 3, 2, 4, 3, 4)
	PHIL(3, 3, 4, 4, 3, 5, 4, 5)
	PHIL(4, 4, 0, 5, 4, 1, 5, 1)
	od
}
