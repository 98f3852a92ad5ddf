/*
 * detpid.c — the target's pid world under the deterministic environment
 * (CMC_DETERMINISTIC=1, detenv.c): the pids it is shown, and what the calls
 * that name a process do with them.  One mapping, which every entry point
 * below uses:
 *
 *   DET_PID     the target itself (its real pid differs on every run and in
 *               every snapshot child); as a process group, its own group
 *               (getpgrp), whose real id is the pid of the process cmc
 *               started: a snapshot child is in its root's group
 *   1           its parent (getppid): cmc's stand-in
 *   DET_SID     its session (getsid): cmc's, whose id depends on where cmc
 *               was started
 *   -1          as a kill() target: every process it may signal
 *   any other   a real pid (a child it forked) and passed as is
 *
 * The parent, the session and "everyone" are outside the target: neither
 * cmc nor init nor any other process is the target's to signal.  A signal
 * sent there — kill, killpg, sigqueue, tgkill; kill(getppid(), sig), the
 * common "tell my parent I am ready", first of all — is taken and dropped,
 * as if that process ignored it; a pidfd for one of them is refused
 * (EPERM), so pidfd_send_signal cannot reach it either.  A raw system call
 * bypasses all this: as root, the run's PID namespace is what keeps such a
 * signal inside (engine/proc/pids.c), and without one a seccomp filter
 * stops a call that names cmc (engine/proc/sigwall.c, sigwall.c here;
 * share/scenario.md, "Containment").
 *
 *   getpid, getppid, getpgrp, getpgid, getsid     the ids above
 *   kill, killpg, sigqueue, tgkill, pidfd_open    signals, mapped as above
 *   waitpid, wait4, waitid                        -DET_PID / P_PGID DET_PID:
 *                                                 its own group
 *   open/openat of /proc/DET_PID[/...]            /proc/self[/...]
 *                                                 (pl_det_proc_path, detenv.c)
 * Off: the entry points behave as libc's, by raw system calls (getppid
 * says 1, not 0, for a parent outside the PID namespace).  Like the
 * rest of the preload: libc only, never allocates.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl.h"

#define DET_PID 4242
#define DET_SID 4240

static pid_t real_self(void)
{
	return (pid_t)syscall(SYS_getpid);
}

static pid_t real_group(void)
{
	return (pid_t)syscall(SYS_getpgid, 0);
}

PL_EXPORT pid_t getpid(void)
{
	return pl_det_on() ? DET_PID : real_self();
}

/* Off, the real parent, except that a parent outside the target's PID
 * namespace (cmc, as root: engine/proc/pids.c) is 0 to the kernel, and
 * kill(getppid(), sig) would then signal the target's own group: it is
 * shown 1, the namespace's init, which ignores what it is sent from
 * inside. */
PL_EXPORT pid_t getppid(void)
{
	if (pl_det_on())
		return 1;
	pid_t p = (pid_t)syscall(SYS_getppid);
	return p ? p : 1;
}

/* The target's process group is its own: DET_PID too, on every run and in
 * every snapshot.  Its session is cmc's: DET_SID. */
PL_EXPORT pid_t getpgrp(void)
{
	return pl_det_on() ? DET_PID : real_group();
}

PL_EXPORT pid_t getpgid(pid_t pid)
{
	if (pl_det_on() && (pid == 0 || pid == DET_PID))
		return DET_PID;
	return (pid_t)syscall(SYS_getpgid, pid);
}

PL_EXPORT pid_t getsid(pid_t pid)
{
	if (pl_det_on() && (pid == 0 || pid == DET_PID))
		return DET_SID;
	return (pid_t)syscall(SYS_getsid, pid);
}

/* A process the target names (pid > 0) in the real world: *real, or false
 * when it is outside the target (its parent, its session). */
static bool one(pid_t pid, pid_t *real)
{
	*real = pid;
	if (!pl_det_on())
		return true;
	if (pid == DET_PID)
		*real = real_self();
	return pid != 1 && pid != DET_SID;
}

/* A kill() target in the real world: *real, or false when it is outside
 * the target (the parent, the session or its group, everyone: -1). */
static bool target(pid_t pid, pid_t *real)
{
	*real = pid;
	if (!pl_det_on())
		return true;
	if (pid > 0)
		return one(pid, real);
	if (pid == -DET_PID)
		*real = -real_group();
	return pid != -1 && pid != -DET_SID;
}

static bool bad_sig(int sig)
{
	if (sig < 0 || sig >= NSIG) {
		errno = EINVAL;
		return true;
	}
	return false;
}

PL_EXPORT int kill(pid_t pid, int sig)
{
	pid_t r;
	if (!target(pid, &r))
		return bad_sig(sig) ? -1 : 0; /* outside: taken, and dropped */
	return (int)syscall(SYS_kill, r, sig);
}

PL_EXPORT int killpg(pid_t pgrp, int sig)
{
	if (pgrp < 0) {
		errno = EINVAL;
		return -1;
	}
	return kill(-pgrp, sig);
}

PL_EXPORT int sigqueue(pid_t pid, int sig, const union sigval value)
{
	pid_t r = pid;
	if (pid > 0 && !one(pid, &r))
		return bad_sig(sig) ? -1 : 0;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = real_self();
	si.si_uid = getuid();
	si.si_value = value;
	return (int)syscall(SYS_rt_sigqueueinfo, r, sig, &si);
}

PL_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	pid_t rg, rt;
	bool in = one(tgid, &rg);
	/* (its main thread's id is its pid: DET_PID names it too) */
	if (!one(tid, &rt) || !in)
		return bad_sig(sig) ? -1 : 0;
	return (int)syscall(SYS_tgkill, rg, rt, sig);
}

PL_EXPORT int pidfd_open(pid_t pid, unsigned int flags)
{
	pid_t r;
	if (!one(pid, &r)) {
		errno = EPERM;
		return -1;
	}
	return (int)syscall(SYS_pidfd_open, r, flags);
}

/* ---- waits: its own group ----------------------------------------------- */

static pid_t wait_arg(pid_t pid)
{
	return pl_det_on() && pid == -DET_PID ? -real_group() : pid;
}

PL_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	return (pid_t)syscall(SYS_wait4, wait_arg(pid), status, options, NULL);
}

PL_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	return (pid_t)syscall(SYS_wait4, wait_arg(pid), status, options, ru);
}

PL_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	if (pl_det_on() && type == P_PGID && id == DET_PID)
		id = (id_t)real_group();
	return (int)syscall(SYS_waitid, type, id, info, options, NULL);
}

/* ---- /proc -------------------------------------------------------------- */

const char *pl_det_proc_path(const char *path, char *buf, size_t n)
{
	static const char pre[] = "/proc/4242";
	_Static_assert(DET_PID == 4242, "pre spells DET_PID");
	if (!path || strncmp(path, pre, sizeof pre - 1) != 0)
		return path;
	const char *rest = path + sizeof pre - 1;
	if (*rest && *rest != '/')
		return path; /* /proc/42421... */
	if (strlen(rest) + sizeof "/proc/self" > n)
		return path;
	memcpy(buf, "/proc/self", sizeof "/proc/self" - 1);
	memcpy(buf + sizeof "/proc/self" - 1, rest, strlen(rest) + 1);
	return buf;
}
