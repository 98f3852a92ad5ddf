/*
 * sigstack.c — the stack cmc's own signals are handled on.
 *
 * cmc signals a target for two things: a fork request (snap.c) and a
 * timeout operation (detwait.c).  A handler runs on the stack of whatever
 * it interrupted unless an alternate stack is set, and the kernel's signal
 * frame (saved registers, siginfo with cmc's pid, the FPU state) would then
 * be written below the target's stack pointer: bytes the program later
 * reads as uninitialised locals (struct padding, a scratch buffer) and may
 * copy into its heap.  A fork snapshot's child would carry a frame a
 * replayed process never had, and the two executors would disagree about
 * the state.  So both handlers are SA_ONSTACK and run here, in the
 * preload's own memory, which no observation covers; the program's stack
 * is never touched by them, under either executor.
 *
 * The kernel keeps one alternate stack per thread.  A program that sets
 * its own (libsigsegv's stack-overflow handlers, for one) is given the
 * illusion of it: sigaltstack() records and reports the program's stack
 * and keeps this one in place, so the program's SA_ONSTACK handlers run on
 * this one too (large enough for them: PL_SIGSTACK bytes).  Only the main
 * thread has it; threaded targets fall back to replay.  Raw system calls
 * only.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

#define PL_SIGSTACK (64 * 1024)
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

static _Alignas(64) unsigned char area[PL_SIGSTACK];
static bool installed;
/* What the program believes its alternate stack is: at first none. */
static stack_t user = {.ss_flags = SS_DISABLE};

void pl_sigstack_install(void)
{
	if (installed)
		return;
	stack_t ss = {.ss_sp = area, .ss_size = sizeof area, .ss_flags = 0};
	if (syscall(SYS_sigaltstack, &ss, NULL) == 0)
		installed = true;
}

int pl_sig_handle(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	pl_sigstack_install();
	return sigaction(sig, &sa, NULL);
}

PL_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	if (!installed)
		return (int)syscall(SYS_sigaltstack, ss, old);
	stack_t kern;
	if (syscall(SYS_sigaltstack, NULL, &kern) < 0)
		return -1;
	bool on = kern.ss_flags & SS_ONSTACK;
	if (ss) {
		if (on) { /* the kernel's rule: not while running on it */
			errno = EPERM;
			return -1;
		}
		if (ss->ss_flags & ~(SS_DISABLE | SS_AUTODISARM)) {
			errno = EINVAL;
			return -1;
		}
		if (!(ss->ss_flags & SS_DISABLE) && ss->ss_size < (size_t)MINSIGSTKSZ) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (old) {
		*old = user;
		if (on)
			old->ss_flags = SS_ONSTACK;
	}
	if (ss)
		user = *ss;
	return 0;
}
