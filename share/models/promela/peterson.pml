/*
 * peterson.pml — Peterson's algorithm for two processes
 * (share/models/peterson.c, after locks_auxiliary_vars/Peterson.tla in
 * tlaplus/Examples) in Promela, to check cmc's counts against SPIN's.
 *
 * The TLA+ spec's two processes and their program counters become data
 * here, not two Promela processes: SPIN would otherwise add its own
 * control states and the counts would no longer match TLC's state for
 * state.  Same shape as diehard.pml: one process, one do-loop, one d_step
 * per (label, process) with the spec's enabling condition as guard.
 * pc values: 0 a0, 1 a1, 2 a2, 3 a3, 4 cs, 5 a4; index 0 is process 1.
 * No end label: Peterson.cfg checks deadlock, and a stuck state would be
 * SPIN's invalid end state.
 */
#define A0 0
#define A1 1
#define A2 2
#define A3 3
#define CS 4
#define A4 5

byte pc[2];             /* all a0 */
bool c[2];              /* all FALSE */
byte turn = 1;

/* p is the index (0 or 1); the spec's process number is p + 1, and
 * Other(p + 1) is 2 - p. */
#define PROC(p) \
	:: d_step { pc[p] == A0 -> pc[p] = A1 } \
	:: d_step { pc[p] == A1 -> c[p] = true; pc[p] = A2 } \
	:: d_step { pc[p] == A2 -> turn = 2 - p; pc[p] = A3 } \
	:: d_step { pc[p] == A3 && (!c[1 - p] || turn == p + 1) -> pc[p] = CS } \
	:: d_step { pc[p] == CS -> pc[p] = A4 } \
	:: d_step { pc[p] == A4 -> c[p] = false; pc[p] = A0 }

active proctype peterson()
{
	do
	PROC(0)
	PROC(1)
	od
}
