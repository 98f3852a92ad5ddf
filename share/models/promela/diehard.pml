/*
 * diehard.pml — the Die Hard jugs (share/models/diehard.c) in Promela, to
 * check cmc's counts against SPIN's.
 *
 * One process whose body is a single do-loop; each option is one d_step,
 * which SPIN executes as one indivisible transition, guard first, so an
 * option is enabled exactly when the C action yields and control is back
 * at the loop head after it.  The process therefore has one control
 * location and SPIN's state is the valuation (small, big) plus constants
 * (that location, the process count): "states, stored" is the number of
 * distinct valuations, and every option taken from a stored state is one
 * TLC "generated" successor, either new (stored) or seen (matched).
 * The loop head has no end label: a state with no enabled option would be
 * an "invalid end state", SPIN's deadlock, just as TLC checks deadlock for
 * DieHard (there is none: all six actions are always enabled).
 */
byte small = 0, big = 0;

active proctype diehard()
{
	do
	:: d_step { small = 3 }                 /* FillSmallJug */
	:: d_step { big = 5 }                   /* FillBigJug */
	:: d_step { small = 0 }                 /* EmptySmallJug */
	:: d_step { big = 0 }                   /* EmptyBigJug */
	:: d_step {                             /* SmallToBig */
		if
		:: small + big <= 5 -> big = big + small; small = 0
		:: else -> small = small - (5 - big); big = 5
		fi
	   }
	:: d_step {                             /* BigToSmall */
		if
		:: small + big <= 3 -> small = small + big; big = 0
		:: else -> big = big - (3 - small); small = 3
		fi
	   }
	od
}
