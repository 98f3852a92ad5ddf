/*
 * epoll.c — epoll instances a fork snapshot's child can have to itself.
 *
 * fork shares an epoll instance between parent and child: one interest
 * list, whose entries name the files registered, not the descriptor
 * numbers.  A snapshot's child gets a fresh connection dup2'd where the
 * target's was (snap.c), but the shared instance still watches the old
 * one, so the child's event loop would never see its input.  So the
 * preload keeps each instance's interest list as the program built it
 * (epoll_create, epoll_create1, epoll_ctl), and the child, once its
 * descriptors are in place, makes a new instance with the same entries
 * (registered anew: they now name the child's files) and puts it on the
 * old number: pl_epoll_rebuild().
 *
 * A descriptor closed (close, or replaced by dup2/dup3: snapfd.c interposes
 * them and calls pl_epoll_closed()) leaves every list,
 * as the kernel's entry leaves when its file closes.  What is not seen:
 * instances made by a raw system call, an EPOLLONESHOT entry that fired
 * (it is armed again in the child), an entry kept alive by a dup of its
 * file.  More entries than the table holds mark it overflowed, and snapshots
 * then refuse to fork (cmc falls back to replay, saying why).
 *
 * The table is guarded by a spin lock in the wrappers; the rebuild runs in
 * the snapshot's signal handler without it: a quiescent target sleeps in a
 * read or a wait, never inside these wrappers.  Raw system calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

#define EP_INSTANCES 32
#define EP_ENTRIES 1024

/* Invariants: every entry's ep is one of inst[0 .. ninst); no two entries
 * have the same (ep, fd); ninst <= EP_INSTANCES, nent <= EP_ENTRIES. */
struct ep_entry {
	int ep, fd;
	uint32_t events;
	uint64_t data;
};
static int inst[EP_INSTANCES];
static int ninst;
static struct ep_entry ent[EP_ENTRIES];
static int nent;
static bool overflow;
static int lock_word;

static void lock(void)
{
	while (__atomic_test_and_set(&lock_word, __ATOMIC_ACQUIRE))
		;
}

static void unlock(void)
{
	__atomic_clear(&lock_word, __ATOMIC_RELEASE);
}

static int find_inst(int ep)
{
	for (int i = 0; i < ninst; i++)
		if (inst[i] == ep)
			return i;
	return -1;
}

static int find_entry(int ep, int fd)
{
	for (int i = 0; i < nent; i++)
		if (ent[i].ep == ep && ent[i].fd == fd)
			return i;
	return -1;
}

/* fd is closed (or about to be replaced): out of every list, and no
 * longer an instance.  Lock held. */
static void forget_fd(int fd)
{
	for (int i = 0; i < nent;)
		if (ent[i].fd == fd || ent[i].ep == fd)
			ent[i] = ent[--nent];
		else
			i++;
	int k = find_inst(fd);
	if (k >= 0)
		inst[k] = inst[--ninst];
}

static int created(int ep)
{
	if (ep < 0)
		return ep;
	lock();
	forget_fd(ep); /* a number reused behind our back */
	if (ninst < EP_INSTANCES)
		inst[ninst++] = ep;
	else
		overflow = true;
	unlock();
	return ep;
}

PL_EXPORT int epoll_create(int size)
{
	return created((int)syscall(SYS_epoll_create, size));
}

PL_EXPORT int epoll_create1(int flags)
{
	return created((int)syscall(SYS_epoll_create1, flags));
}

PL_EXPORT int epoll_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
	int r = (int)syscall(SYS_epoll_ctl, ep, op, fd, ev);
	if (r < 0 || __atomic_load_n(&ninst, __ATOMIC_RELAXED) == 0)
		return r;
	int saved = errno;
	lock();
	if (find_inst(ep) >= 0) {
		int k = find_entry(ep, fd);
		if (op == EPOLL_CTL_DEL) {
			if (k >= 0)
				ent[k] = ent[--nent];
		} else if (k >= 0) {
			ent[k].events = ev->events;
			ent[k].data = ev->data.u64;
		} else if (nent < EP_ENTRIES) {
			ent[nent++] = (struct ep_entry){ep, fd, ev->events, ev->data.u64};
		} else {
			overflow = true;
		}
	}
	unlock();
	errno = saved;
	return r;
}

void pl_epoll_closed(int fd)
{
	if (__atomic_load_n(&ninst, __ATOMIC_RELAXED) == 0)
		return;
	lock();
	forget_fd(fd);
	unlock();
}

bool pl_epoll_overflowed(void)
{
	return overflow;
}

/* In a snapshot's child, its descriptors in place: each instance made anew
 * with its entries, on its old number.  An entry whose descriptor fails to
 * register (closed since, in a way not seen) is left out, as the kernel
 * would have dropped it.  Async-signal-safe. */
void pl_epoll_rebuild(void)
{
	for (int i = 0; i < ninst; i++) {
		int ep = inst[i];
		long fdfl = syscall(SYS_fcntl, ep, F_GETFD, 0);
		if (fdfl < 0)
			continue;
		int fresh = (int)syscall(SYS_epoll_create1, (fdfl & FD_CLOEXEC) ? EPOLL_CLOEXEC : 0);
		if (fresh < 0)
			continue;
		for (int k = 0; k < nent; k++)
			if (ent[k].ep == ep) {
				struct epoll_event ev = {.events = ent[k].events, .data.u64 = ent[k].data};
				syscall(SYS_epoll_ctl, fresh, EPOLL_CTL_ADD, ent[k].fd, &ev);
			}
		syscall(SYS_dup3, fresh, ep, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
		syscall(SYS_close, fresh);
	}
}
