/*
 * sigwall.c — the wall between a target and cmc where there is no PID
 * namespace: a seccomp filter, put on the target just before exec, that
 * stops every system call that would signal cmc.
 *
 * Why.  In a PID namespace of its own (pids.c) a target cannot name cmc.
 * Without one (not root, CMC_NO_PIDNS) a raw kill() of cmc's pid reaches
 * it, and cmc can only look at the sender afterwards (sigsrc.c): two
 * targets that signal cmc at the same moment (--jobs 2) are one pending
 * signal, since the kernel keeps one of each standard signal, and one of
 * them went unjudged: the count of states then depended on timing.  A
 * filter judges each call as it is made, in the calling thread, before
 * anything is sent.
 *
 * What it stops: kill() of cmc's pid, of -(cmc's process group) or of -1
 * (every process the target may signal, cmc among them); tkill, tgkill,
 * rt_sigqueueinfo and rt_tgsigqueueinfo naming cmc's pid as the thread
 * group (tkill: cmc's main thread); pidfd_open of cmc's pid, so
 * pidfd_send_signal cannot reach it; and making cmc the owner of a
 * descriptor's I/O signals (fcntl F_SETOWN, which fails with ESRCH here;
 * F_SETOWN_EX, ioctl FIOSETOWN and SIOCSPGRP, whose owner is behind a
 * pointer, trap and the handler reads it), after which F_SETSIG could
 * have sent cmc any signal, SIGKILL too, on the next byte of input (it
 * did: cmc died of SIGIO).  The signal calls become SIGSYS with si_errno
 * CMC_WALL_DATA (SECCOMP_RET_TRAP), for the x86_64, x32 and i386 entry
 * points alike.  The preload's handler (preload/sigwall.c) fails the call
 * with ESRCH, as from a namespace, and reports it (CMC_CTL_SIGNAL, with the
 * signal): a `signal` fault of the operation, under either executor and
 * any --jobs, whatever the timing.  A target without the preload's
 * handler (statically linked, or one that set its own) gets SIGSYS
 * itself: a crash, judged the same way on every run.
 *
 * Only the pid numbers matter, so the filter is put on only where they
 * are cmc's: without a PID namespace (inside one, a target's own pid may
 * equal cmc's outside it).  It is inherited by every process the target
 * makes and kept across exec.  Without root the kernel takes a filter only
 * from a process with no_new_privs set, so that is set first: a set-user-ID
 * program the target runs then runs without its privilege.  Where the
 * kernel refuses (no seccomp), the target runs unfiltered and sigsrc.c
 * judges what arrives, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layout/cmc_region.h"
#include "target.h"

#if defined(__x86_64__)

#define X32 0x40000000u
#define ARG0_LO offsetof(struct seccomp_data, args[0]) /* little-endian: low half */
#define ARG1_LO offsetof(struct seccomp_data, args[1])
#define ARG2_LO offsetof(struct seccomp_data, args[2])
#define MAX_INSNS 128

/* Invariant: n <= MAX_INSNS; every jump lands inside f[0..n). */
struct prog {
	struct sock_filter f[MAX_INSNS];
	unsigned n;
	bool full;
};

static unsigned put(struct prog *p, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	if (p->n == MAX_INSNS) {
		p->full = true;
		return p->n - 1;
	}
	p->f[p->n] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
	return p->n++;
}

/* if (A == k) goto the `ja` that follows, fixed up later to `to`. */
static unsigned jump_if(struct prog *p, uint32_t k)
{
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, k);
	return put(p, BPF_JMP | BPF_JA, 0, 0, 0);
}

static void land(struct prog *p, unsigned ja, unsigned at)
{
	p->f[ja].k = at - ja - 1;
}

/* The system calls of one entry point (one arch's numbering). */
struct calls {
	uint32_t kill;
	uint32_t arg0[5]; /* tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open */
	uint32_t fcntl[2];
	uint32_t ioctl;
};

static const struct calls x86_64 = {62, {200, 234, 129, 297, 434}, {72, 72}, 16};
static const struct calls x32 = {62 | X32, {200 | X32, 234 | X32, 524 | X32, 536 | X32, 434 | X32},
				 {72 | X32, 72 | X32}, 514 | X32};
static const struct calls i386 = {37, {238, 270, 178, 335, 434}, {55, 221}, 54};

struct fixups {
	unsigned kill[3], arg0[3 * 5], fcntl[3 * 2], ioctl[3];
	unsigned nkill, narg0, nfcntl, nioctl;
};

static void dispatch(struct prog *p, const struct calls *c, struct fixups *fx)
{
	fx->kill[fx->nkill++] = jump_if(p, c->kill);
	for (size_t i = 0; i < sizeof c->arg0 / sizeof c->arg0[0]; i++)
		fx->arg0[fx->narg0++] = jump_if(p, c->arg0[i]);
	for (size_t i = 0; i < sizeof c->fcntl / sizeof c->fcntl[0]; i++)
		fx->fcntl[fx->nfcntl++] = jump_if(p, c->fcntl[i]);
	fx->ioctl[fx->nioctl++] = jump_if(p, c->ioctl);
}

static bool build(struct prog *p, pid_t cmc, pid_t cmc_pgrp)
{
	struct fixups fx = {0};
	uint32_t trap = SECCOMP_RET_TRAP | CMC_WALL_DATA;
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
	unsigned to64 = jump_if(p, AUDIT_ARCH_X86_64);
	unsigned to32 = jump_if(p, AUDIT_ARCH_I386);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	land(p, to64, p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	dispatch(p, &x86_64, &fx);
	dispatch(p, &x32, &fx);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	land(p, to32, p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	dispatch(p, &i386, &fx);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	/* kill(pid): cmc, its group, everyone. */
	for (unsigned i = 0; i < fx.nkill; i++)
		land(p, fx.kill[i], p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG0_LO);
	const uint32_t whom[] = {(uint32_t)cmc, (uint32_t)-cmc_pgrp, (uint32_t)-1};
	for (size_t i = 0; i < sizeof whom / sizeof whom[0]; i++) {
		put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, whom[i]);
		put(p, BPF_RET | BPF_K, 0, 0, trap);
	}
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	/* the others: the first argument is a thread group (a thread for
	 * tkill, a pid for pidfd_open) */
	for (unsigned i = 0; i < fx.narg0; i++)
		land(p, fx.arg0[i], p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG0_LO);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)cmc);
	put(p, BPF_RET | BPF_K, 0, 0, trap);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	/* fcntl(fd, F_SETOWN, owner): cmc or its group fail as from a
	 * namespace (no fault: nothing was sent yet); F_SETOWN_EX's owner is
	 * behind a pointer: the handler reads it. */
	for (unsigned i = 0; i < fx.nfcntl; i++)
		land(p, fx.fcntl[i], p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG1_LO);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, F_SETOWN);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 5, 6, F_SETOWN_EX);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG2_LO);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, (uint32_t)cmc);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)-cmc_pgrp);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | ESRCH);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
	put(p, BPF_RET | BPF_K, 0, 0, trap);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	/* ioctl(fd, FIOSETOWN or SIOCSPGRP, &owner): the handler reads it */
	for (unsigned i = 0; i < fx.nioctl; i++)
		land(p, fx.ioctl[i], p->n);
	put(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG1_LO);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, FIOSETOWN);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SIOCSPGRP);
	put(p, BPF_RET | BPF_K, 0, 0, trap);
	put(p, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
	return !p->full;
}

int proc_sigwall_child(pid_t cmc, pid_t cmc_pgrp)
{
	struct prog p = {.n = 0};
	if (cmc <= 1 || cmc_pgrp <= 1 || !build(&p, cmc, cmc_pgrp))
		return -1;
	struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.f};
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

#else

int proc_sigwall_child(pid_t cmc, pid_t cmc_pgrp)
{
	(void)cmc;
	(void)cmc_pgrp;
	errno = ENOSYS;
	return -1;
}

#endif
