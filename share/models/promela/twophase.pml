/*
 * twophase.pml — two-phase commit with three RMs (share/models/twophase.c,
 * after TwoPhase.tla in tlaplus/Examples) in Promela, to check cmc's
 * counts against SPIN's.
 *
 * Same shape as diehard.pml: one process, one do-loop at one control
 * location, one d_step per (action, rm) pair whose guard is the TLA+
 * enabling condition.  So "states, stored" counts distinct valuations of
 * (rm, tm, tmPrepared, msgs) and stored + matched counts TLC's generated
 * states (the initial state plus one per enabled option per stored state;
 * options that lead back to the same state, like receiving Commit twice,
 * are matched).  msgs is a bit set: bit i is Prepared from RM i, then
 * Commit and Abort, exactly as in the C model.  No end label: TwoPhase.cfg
 * checks deadlock, and a stuck state would be SPIN's invalid end state.
 */
#define WORKING   0
#define PREPARED  1
#define COMMITTED 2
#define ABORTED   3

#define TM_INIT      0
#define TM_COMMITTED 1
#define TM_ABORTED   2

#define MSG_COMMIT 8
#define MSG_ABORT  16

byte rm[3];             /* all WORKING (0) */
byte tm = TM_INIT;
byte tmPrepared = 0;
byte msgs = 0;

#define PER_RM(i) \
	:: d_step { tm == TM_INIT && (msgs & (1 << i)) != 0 -> tmPrepared = tmPrepared | (1 << i) } \
	:: d_step { rm[i] == WORKING -> rm[i] = PREPARED; msgs = msgs | (1 << i) } \
	:: d_step { rm[i] == WORKING -> rm[i] = ABORTED } \
	:: d_step { (msgs & MSG_COMMIT) != 0 -> rm[i] = COMMITTED } \
	:: d_step { (msgs & MSG_ABORT) != 0 -> rm[i] = ABORTED }

active proctype twophase()
{
	do
	:: d_step { tm == TM_INIT && tmPrepared == 7 -> tm = TM_COMMITTED; msgs = msgs | MSG_COMMIT }
	:: d_step { tm == TM_INIT -> tm = TM_ABORTED; msgs = msgs | MSG_ABORT }
	PER_RM(0)
	PER_RM(1)
	PER_RM(2)
	od
}
