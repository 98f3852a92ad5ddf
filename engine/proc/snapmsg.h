/*
 * snapmsg.h — cmc's side of the snapshot socket's messages
 * (cmc_region.h section 5): every datagram the target's end sends is
 * checked against the phase the exchange is in before any field is used.
 * The socket exists under both executors (the replay executor only never
 * asks for a fork), and both read it the same way after every operation
 * (proc_target_op): what a program writes there is judged alike by either.
 */
#ifndef PROC_SNAPMSG_H
#define PROC_SNAPMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "layout/cmc_region.h"

/* What cmc expects on a snapshot's socket. */
enum proc_snap_phase {
	/* between fork requests: only a READY, from an image the target
	 * exec'd (or its start-up one) whose preload found the socket */
	PROC_SNAP_IDLE,
	/* a FORK was sent: FORKED or ERROR answers it; a READY is a stray
	 * from an exec'd image and is passed over */
	PROC_SNAP_FORKING,
};

/*
 * Is this datagram a message the target may send in phase ph?  len is its
 * size as received, msg_flags recvmsg's (MSG_TRUNC: longer than a message;
 * MSG_CTRUNC: its ancillary data was cut), nfds the descriptors that came
 * with it (a target sends none).  Returns the message's kind, or 0 with
 * *why saying what is wrong (a constant string).  Pure: no process, no
 * descriptor (tests/fuzz/snap-fuzzer.c).
 */
unsigned proc_snap_check(enum proc_snap_phase ph, const void *msg, size_t len, int msg_flags,
			 size_t nfds, const char **why);

/*
 * Receive one datagram from cmc's end fd without waiting, closing any
 * descriptors that came with it, and check it (proc_snap_check).  Returns
 * 1 with *m filled, 0 when nothing is there (errno: EAGAIN, or the error),
 * -1 for a message that breaks the protocol (*why).  *from (unless NULL):
 * the sender's pid as the kernel says it (SCM_CREDENTIALS, with SO_PASSCRED
 * on fd), in cmc's pid namespace; 0 when it did not say.
 */
int proc_snap_recv(int fd, enum proc_snap_phase ph, struct cmc_snap_msg *m, const char **why, pid_t *from);

#endif
