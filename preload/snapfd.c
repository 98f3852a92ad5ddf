/*
 * snapfd.c — the snapshot socket's descriptor belongs to the preload, not
 * to the program.  cmc puts the socket at CMC_SNAP_FD (1000)
 * under either executor; a program that never opened fd 1000 may still
 * name it: dup2 something onto it, close it, close_range over it, or ask
 * fcntl(F_DUPFD) for the lowest fd from below it.  Each of those calls
 * (through libc: a raw syscall is not seen) behaves as if fd 1000 were
 * free, as it would be outside cmc, and the socket keeps working:
 *   - close(sock), and dup/dup2/dup3/fcntl(F_DUPFD) *from* it: EBADF;
 *   - dup2/dup3 *onto* it: the socket first moves to the lowest free fd
 *     above (close-on-exec: an image the program execs finds no socket at
 *     CMC_SNAP_FD and runs no server), then the call proceeds;
 *   - close_range over it: the range is closed around it;
 *   - dup, or fcntl(F_DUPFD[_CLOEXEC], arg <= sock), that the socket
 *     pushed past it: the socket moves up and the program gets the
 *     socket's number.
 * The preload does this under both executors, so the program sees the same
 * descriptors whichever runs it.  The socket still takes a slot of the fd
 * table (a program that fills its table gets EMFILE one fd earlier under
 * cmc, under both executors alike).  A move blocks CMC_SNAP_SIG, so a fork
 * request never finds the socket half moved.
 *
 * Also owns close(), dup2() and dup3() for epoll.c, which must see every
 * descriptor that goes away (pl_epoll_closed()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

static long raw(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}

static void block(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, CMC_SNAP_SIG);
	raw(SYS_rt_sigprocmask, SIG_BLOCK, (long)&s, (long)old);
}

static void unblock(const sigset_t *old)
{
	raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)old, 0);
}

/* Is fd the snapshot socket (signal mask irrelevant: read once)? */
static bool is_sock(int fd)
{
	int s = pl_snap_fd();
	return s >= 0 && fd == s;
}

/* Move the socket to the lowest free fd above it; false when there is
 * none (then the program's call takes the number and the server stops). */
static bool move_up(void)
{
	sigset_t old;
	block(&old);
	int s = pl_snap_fd();
	bool ok = true;
	if (s >= 0) {
		int to = (int)raw(SYS_fcntl, s, F_DUPFD_CLOEXEC, s + 1);
		if (to >= 0) {
			raw(SYS_close, s, 0, 0);
			pl_snap_set_fd(to);
		} else {
			pl_snap_set_fd(-1);
			ok = false;
		}
	}
	unblock(&old);
	return ok;
}

static int ebadf(void)
{
	errno = EBADF;
	return -1;
}

PL_EXPORT int close(int fd)
{
	if (is_sock(fd))
		return ebadf();
	int r = (int)syscall(SYS_close, fd);
	int saved = errno;
	pl_epoll_closed(fd); /* also on EINTR: Linux closes it anyway */
	errno = saved;
	return r;
}

PL_EXPORT int dup2(int old, int new)
{
	if (is_sock(old))
		return ebadf();
	if (is_sock(new) && old != new)
		move_up();
	int r = (int)syscall(SYS_dup2, old, new);
	if (r >= 0 && old != new) {
		int saved = errno;
		pl_epoll_closed(new);
		errno = saved;
	}
	return r;
}

PL_EXPORT int dup3(int old, int new, int flags)
{
	if (is_sock(old))
		return ebadf();
	if (is_sock(new) && old != new)
		move_up();
	int r = (int)syscall(SYS_dup3, old, new, flags);
	if (r >= 0) {
		int saved = errno;
		pl_epoll_closed(new);
		errno = saved;
	}
	return r;
}

PL_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	int s = pl_snap_fd();
	if (s < 0 || (unsigned)s < lo || (unsigned)s > hi)
		return (int)syscall(SYS_close_range, lo, hi, flags);
	int r = 0;
	if ((unsigned)s > lo)
		r = (int)syscall(SYS_close_range, lo, (unsigned)s - 1, flags);
	if (r == 0 && (unsigned)s < hi)
		r = (int)syscall(SYS_close_range, (unsigned)s + 1, hi, flags);
	return r;
}

/* fcntl's argument is an int or a pointer: passed on as a long. */
static int do_fcntl(int fd, int cmd, long arg)
{
	if (is_sock(fd))
		return ebadf();
	int r = (int)syscall(SYS_fcntl, fd, cmd, arg);
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0) {
		int s = pl_snap_fd();
		/* without the socket, the program would have got s (the
		 * argument is an int: only its low half was passed) */
		if (s >= 0 && (int)arg <= s && r > s && move_up()) {
			int saved = errno;
			syscall(SYS_dup3, r, s, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
			syscall(SYS_close, r);
			errno = saved;
			r = s;
		}
	}
	return r;
}

/* dup is F_DUPFD from 0 (no close-on-exec either way). */
PL_EXPORT int dup(int fd)
{
	return do_fcntl(fd, F_DUPFD, 0);
}

PL_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

PL_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}
