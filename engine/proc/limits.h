/*
 * limits.h — resource limits on targets and the jail that keeps every
 * process a target creates within cmc's reach.  Private to engine/proc/.
 *
 *   rlimits  address space, file size and CPU time (scenario `limit as|
 *            fsize|cpu`), set in the child between fork and exec; a target
 *            killed by SIGXCPU or SIGXFSZ is reported as a `limit` fault.
 *   jail     when cmc may create cgroups (root, the v1 pids controller or
 *            cgroup v2 mounted), each target started by proc_target_start
 *            runs in a cgroup of its own, on one hierarchy (v1 pids where
 *            mounted, else v2): the v1 pids controller's pids.max caps its
 *            processes (`limit procs`; root ignores RLIMIT_NPROC), and
 *            killing the target kills every process in its cgroup (v2
 *            cgroup.kill, else a kill-until-empty loop over cgroup.procs), so
 *            children that left the process group (setsid, setpgid) or
 *            outlived the target go too.  Without cgroups: the process group
 *            only, and no process cap (RLIMIT_NPROC is per user: unsafe to
 *            lower for one target) — said once on stderr when a cap was set.
 *
 * Ownership: proc_jail_new() returns a jail owned by the target;
 * proc_jail_free() kills what is left in it and hands it back to a small
 * pool for reuse (or removes its cgroups); cgroups still busy with a dying
 * process are removed later, at the latest when cmc exits.
 */
#ifndef CMC_PROC_LIMITS_H
#define CMC_PROC_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exec.h"
#include "scenario.h"

struct proc_jail;

/* Parent, just before fork: a jail for the next target this thread starts
 * (NULL when cgroups are not available: limits then are rlimits only). */
struct proc_jail *proc_jail_new(const struct proc_scenario *sc);
/* Child, between fork and exec: set the rlimits and enter the jail this
 * thread prepared last.  No allocation.  0, or -1 with errno. */
int proc_limits_child(const struct proc_scenario *sc);
/* A jail of its own for a process its origin is about to fork (a fork-
 * snapshot child), so that its process cap and kill scope count from it
 * alone, as a replayed target's do.  *cgroup: an fd on the jail's cgroup v2
 * directory to start the child in (CLONE_INTO_CGROUP), *tasks: an fd on its
 * v1 cgroup's `tasks` for the child to move itself into; each owned by the
 * jail, or -1.  NULL without cgroups. */
struct proc_jail *proc_jail_ready(const struct proc_scenario *sc, int *cgroup, int *tasks);
/* Put pid, just forked for j, in it: born_v2 when it started in the v2
 * cgroup, moved_v1 when it moved itself into the v1 one; it is moved into
 * the others it must be in.  NULL j is fine. */
void proc_jail_enter(struct proc_jail *j, pid_t pid, bool born_v2, bool moved_v1);
/* Kill every process left in the jail, remove it, free it.  NULL is fine. */
void proc_jail_free(struct proc_jail *j);
/* After an operation: a process-cap breach since the jail was made becomes
 * a PROC_FAULT_LIMIT fault in obs (unless obs already has a fault). */
void proc_jail_observe(struct proc_jail *j, const struct proc_scenario *sc, struct proc_obs *obs);
/* A death by SIGXCPU/SIGXFSZ: fill msg naming the limit and return true. */
bool proc_limits_signal(int sig, const struct proc_scenario *sc, const char *after, char *msg,
			size_t msglen);

#endif
