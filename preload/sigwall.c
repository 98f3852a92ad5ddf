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
 * Any other SIGSYS (a filter of the program's own, an unknown system call
 * where the kernel raises it) gets the default action, as if no handler
 * were set.  A program that sets its own SIGSYS handler replaces this one
 * and meets the filter itself.  The handler runs on the preload's own
 * stack (sigstack.c says why).  Installed only when cmc runs the program
 * (CMC_CTL_FD set); x86_64 only, as the filter.
 */
#include <errno.h>
#include <linux/audit.h>
#include <signal.h>
#include <string.h>
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

static void not_ours(void)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGSYS, &dfl, NULL);
	/* Pending until the handler returns, then the default action. */
	syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), SIGSYS);
}

static void on_sys(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	ucontext_t *uc = ucv;
	int at = si->si_code == SYS_SECCOMP && si->si_errno == CMC_WALL_DATA
			 ? signal_arg(si->si_arch, si->si_syscall)
			 : -2;
	if (at == -2) {
		not_ours();
		return;
	}
	greg_t *g = uc->uc_mcontext.gregs;
	/* The arguments, by the entry point's convention. */
	greg_t args64[3] = {g[REG_RDI], g[REG_RSI], g[REG_RDX]};
	greg_t args32[3] = {g[REG_RBX], g[REG_RCX], g[REG_RDX]};
	const greg_t *a = si->si_arch == AUDIT_ARCH_I386 ? args32 : args64;
	g[REG_RAX] = -ESRCH;
	if (at < 0)
		return;
	long signo = (long)(int)a[at];
	if (signo < 1 || signo > 64)
		return; /* 0 only asks whether cmc is there; others are refused anyway */
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
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sys;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK; /* sigstack.c says why */
	sigfillset(&sa.sa_mask);
	pl_sigstack_install();
	sigaction(SIGSYS, &sa, NULL);
}

#endif
