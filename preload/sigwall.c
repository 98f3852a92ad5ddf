/*
 * sigwall.c — the target's side of the wall that keeps its signals from
 * cmc (engine/proc/sigwall.c puts the seccomp filter on it).
 *
 * A system call the filter stops (one that would signal cmc) raises
 * SIGSYS in the calling thread, with si_errno CMC_WALL_DATA.  This handler
 * makes the call return -ESRCH, as it would from a PID namespace where cmc
 * cannot be named, and, for a real signal (not 0, the probe), tells cmc
 * on the control fd (CMC_CTL_SIGNAL: which signal, and whether the caller
 * was the process cmc runs or a child the program made).  cmc judges the
 * record with the operation that made it: a `signal` fault.  Nothing is
 * ever sent, so nothing depends on when cmc would have looked.
 *
 * fcntl(F_SETOWN_EX) and ioctl(FIOSETOWN, SIOCSPGRP) trap too, whatever
 * their owner, which is behind a pointer the filter cannot follow: the
 * handler reads it (EFAULT where the kernel would say so), fails the call
 * with ESRCH when it names cmc (its pid, group or a thread of it), and
 * otherwise does it by F_SETOWN, which the filter judges by value and
 * which sets the same owner (a thread owner of the caller's own becomes
 * its process).
 *
 * Any other SIGSYS (a filter of the program's own, an unknown system call
 * where the kernel raises it) gets the default action, as if no handler
 * were set.  A program that sets its own SIGSYS handler replaces this one
 * and meets the filter itself.  The handler runs on the preload's own
 * stack (sigstack.c says why).  Installed only when cmc runs the program
 * (CMC_CTL_FD set); x86_64 only, as the filter.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "pl.h"

#if defined(__x86_64__)

#define X32 0x40000000L
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp trap */
#endif

/* Which argument of system call nr (of this arch) is the signal; -1: none
 * (pidfd_open), -2: not a call the filter stops. */
static int signal_arg(unsigned arch, long nr)
{
	if (arch == AUDIT_ARCH_I386) {
		switch (nr) {
		case 37:  /* kill */
		case 238: /* tkill */
		case 178: /* rt_sigqueueinfo */
			return 1;
		case 270: /* tgkill */
		case 335: /* rt_tgsigqueueinfo */
			return 2;
		case 434: /* pidfd_open */
			return -1;
		}
		return -2;
	}
	switch (nr & ~X32) {
	case 62:  /* kill */
	case 200: /* tkill */
	case 129: /* rt_sigqueueinfo */
	case 524: /* rt_sigqueueinfo, x32 */
		return 1;
	case 234: /* tgkill */
	case 297: /* rt_tgsigqueueinfo */
	case 536: /* rt_tgsigqueueinfo, x32 */
		return 2;
	case 434: /* pidfd_open */
		return -1;
	}
	return -2;
}

/* fcntl(F_SETOWN_EX) and ioctl(FIOSETOWN, SIOCSPGRP), which the filter
 * traps because their owner is behind a pointer: which kind (0: neither). */
enum { OWN_NONE, OWN_FCNTL_EX, OWN_IOCTL };

static int owner_call(unsigned arch, long nr)
{
	if (arch == AUDIT_ARCH_I386)
		return nr == 55 || nr == 221 ? OWN_FCNTL_EX : nr == 54 ? OWN_IOCTL : OWN_NONE;
	nr &= ~X32;
	return nr == 72 ? OWN_FCNTL_EX : nr == 16 || nr == 514 ? OWN_IOCTL : OWN_NONE;
}

/* n bytes at the program's address p, or false where the kernel would
 * have said EFAULT. */
static bool peek(void *to, unsigned long p, size_t n)
{
	struct iovec l = {to, n}, r = {(void *)p, n};
	return syscall(SYS_process_vm_readv, syscall(SYS_getpid), &l, 1, &r, 1, 0) == (long)n;
}

/* Is tid a thread of process pid (0: the caller's)? */
static bool has_thread(pid_t pid, pid_t tid)
{
	char path[64] = "/proc/";
	char *q = pid ? pl_put_dec(path + 6, pid) : (memcpy(path + 6, "self", 5), path + 10);
	memcpy(q, "/task/", 6);
	pl_put_dec(q + 6, tid);
	return tid > 0 && syscall(SYS_faccessat, AT_FDCWD, path, F_OK, 0) == 0;
}

/* Does (type, id) name cmc: its pid, its process group, or one of its
 * threads? */
static bool names_cmc(int type, pid_t id)
{
	pid_t cmc = pl_snap_cmc();
	if (cmc <= 0)
		return false;
	if (type == F_OWNER_PGRP)
		return id == (pid_t)syscall(SYS_getpgid, cmc);
	if (id == cmc)
		return true;
	return type == F_OWNER_TID && has_thread(cmc, id);
}

/* The trapped call, done by F_SETOWN, which the filter judges by value:
 * the same owner for a process or a group.  A thread owner is taken for
 * its process when it is one of the caller's (the signal then goes to
 * the process, not that thread: threaded targets run under replay). */
static long set_owner(const greg_t *a, int kind)
{
	int fd = (int)a[0];
	int type;
	pid_t id;
	if (kind == OWN_IOCTL) {
		int who;
		if (!peek(&who, (unsigned long)a[2], sizeof who))
			return -EFAULT;
		type = who < 0 ? F_OWNER_PGRP : F_OWNER_PID;
		id = who < 0 ? -who : who;
	} else {
		struct f_owner_ex ex;
		if (!peek(&ex, (unsigned long)a[2], sizeof ex))
			return -EFAULT;
		type = ex.type;
		id = ex.pid;
		if (type != F_OWNER_TID && type != F_OWNER_PID && type != F_OWNER_PGRP)
			return -EINVAL;
	}
	if (names_cmc(type, id))
		return -ESRCH;
	long who = type == F_OWNER_PGRP ? -(long)id : id;
	if (type == F_OWNER_TID && id != 0) {
		if (!has_thread(0, id))
			return -ESRCH;
		who = (pid_t)syscall(SYS_getpid);
	}
	long r = syscall(SYS_fcntl, fd, F_SETOWN, who);
	return r < 0 ? -errno : r;
}

static void not_ours(void)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGSYS, &dfl, NULL);
	/* Pending until the handler returns, then the default action. */
	syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), SIGSYS);
}

static void report(long signo);

static void on_sys(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	int saved = errno; /* the interrupted code's: the calls here set it */
	ucontext_t *uc = ucv;
	bool ours = si->si_code == SYS_SECCOMP && si->si_errno == CMC_WALL_DATA;
	int at = ours ? signal_arg(si->si_arch, si->si_syscall) : -2;
	int own = ours ? owner_call(si->si_arch, si->si_syscall) : OWN_NONE;
	if (at == -2 && own == OWN_NONE) {
		not_ours();
		errno = saved;
		return;
	}
	greg_t *g = uc->uc_mcontext.gregs;
	/* The arguments, by the entry point's convention. */
	greg_t args64[3] = {g[REG_RDI], g[REG_RSI], g[REG_RDX]};
	greg_t args32[3] = {g[REG_RBX], g[REG_RCX], g[REG_RDX]};
	const greg_t *a = si->si_arch == AUDIT_ARCH_I386 ? args32 : args64;
	if (own != OWN_NONE) {
		g[REG_RAX] = set_owner(a, own);
		errno = saved;
		return;
	}
	g[REG_RAX] = -ESRCH;
	long signo = at < 0 ? 0 : (long)(int)a[at];
	/* 0 only asks whether cmc is there; others are refused anyway */
	if (signo >= 1 && signo <= 64)
		report(signo);
	errno = saved;
}

/* A real signal the wall stopped, for cmc (CMC_CTL_SIGNAL). */
static void report(long signo)
{
	pid_t cmc = pl_snap_cmc();
	uint32_t flags = cmc > 0 && syscall(SYS_getppid) != cmc ? CMC_SIGNAL_OTHER : 0;
	uint8_t rec[CMC_CTL_SIGNAL_LEN];
	pl_put_le32(rec, CMC_CTL_SIGNAL);
	pl_put_le32(rec + 4, (uint32_t)signo);
	pl_put_le32(rec + 8, flags);
	pl_put_le32(rec + 12, 0);
	pl_ctl_send(rec, sizeof rec);
}

__attribute__((constructor)) static void pl_sigwall_init(void)
{
	char v[24];
	if (pl_env(CMC_ENV_CTL_FD, v, sizeof v) != 1 || !v[0])
		return;
	pl_sig_handle(SIGSYS, on_sys); /* sigstack.c says why its stack */
}

#endif
