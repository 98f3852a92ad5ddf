/*
 * tcommit.pml — the abstract transaction commit with three RMs
 * (share/models/tcommit.c, after TCommit.tla in tlaplus/Examples) in
 * Promela, to check cmc's counts against SPIN's.
 *
 * Same shape as diehard.pml: one process, one do-loop, one d_step per
 * (disjunct, rm) pair.  TCommit reaches states where nothing is enabled
 * (every RM decided; TCommit.cfg turns deadlock checking off): the loop
 * head carries an end label, so SPIN takes them as valid end states and
 * neither adds nor reports anything for them.
 */
#define WORKING   0
#define PREPARED  1
#define COMMITTED 2
#define ABORTED   3

byte rm[3];             /* all WORKING (0) */

#define CAN_COMMIT ((rm[0] == PREPARED || rm[0] == COMMITTED) && \
		    (rm[1] == PREPARED || rm[1] == COMMITTED) && \
		    (rm[2] == PREPARED || rm[2] == COMMITTED))
#define NOT_COMMITTED (rm[0] != COMMITTED && rm[1] != COMMITTED && rm[2] != COMMITTED)

#define PER_RM(i) \
	:: d_step { rm[i] == WORKING -> rm[i] = PREPARED } \
	:: d_step { rm[i] == PREPARED && CAN_COMMIT -> rm[i] = COMMITTED } \
	:: d_step { (rm[i] == WORKING || rm[i] == PREPARED) && NOT_COMMITTED -> rm[i] = ABORTED }

active proctype tcommit()
{
end:
	do
	PER_RM(0)
	PER_RM(1)
	PER_RM(2)
	od
}
