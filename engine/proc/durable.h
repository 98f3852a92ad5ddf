/*
 * durable.h — crashes: what a crash leaves of a target's files, and the
 * crash operation (durable.c; the preload's half is preload/durable.c).
 * Private to engine/proc/.
 */
#ifndef CMC_PROC_DURABLE_H
#define CMC_PROC_DURABLE_H

#include <stddef.h>

#include "exec.h"
#include "scenario.h"

struct proc_target;

/* Everything below the open working directory root is durable now: its
 * image (PROC_DURABLE_DIR) is made anew from the files.  0, or -1 with
 * err filled (a cap exceeded, a file that cannot be copied). */
int proc_durable_settle(const struct proc_scenario *sc, int root, char *err, size_t errlen);
/* A power loss: every regular file below root becomes what the image
 * says (removed, emptied or its synced contents), then settle.  0 or -1
 * with err filled. */
int proc_durable_lose(const struct proc_scenario *sc, int root, char *err, size_t errlen);

/* The crash operation op (op->crash set) on the quiescent target t:
 * kill it (t is freed), for a power loss revert its working directory to
 * the durable image, and start the target again in that directory.  The
 * new target, quiescent at start-up; NULL when it could not be reverted
 * (obs: a `limit` fault) or did not start again (obs: the start-up fault,
 * its exit or signal). */
struct proc_target *proc_target_crash(struct proc_target *t, const struct proc_op *op, const char *preload,
				      struct proc_obs *obs, double *spawn_s);

#endif
