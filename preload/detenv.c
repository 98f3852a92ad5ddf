/*
 * detenv.c — a deterministic environment for the target (CMC_DETERMINISTIC=1,
 * which cmc sets unless a scenario's `env CMC_DETERMINISTIC=0` says
 * otherwise): programs such as sqlite3 seed state from the clock, the pid
 * and /dev/urandom, so without this every run reaches a different heap and
 * replay, fork snapshots and `cmc replay` cannot agree.  Owns the
 * interposed entry points below and the two per-process counters behind
 * them (the virtual clock and the random stream).  Both counters live in
 * the process's memory, so a fork snapshot's child continues exactly where
 * a replayed process would be after the same operations.
 *
 *   time, gettimeofday, clock_gettime
 *           one virtual clock for every clock id: DET_EPOCH (2026-01-01
 *           00:00:00 UTC) for the realtime clocks, DET_EPOCH - 1e9 s for the
 *           others (so monotonic < realtime, as on a machine up for years),
 *           advancing by 1 ms per call, so loops that wait for a deadline
 *           still end; an `op LABEL advance DURATION` moves it on by
 *           DURATION at once (detwait.c).  (The vDSO is irrelevant: a dynamically linked program
 *           calls these symbols, which the preload interposes; glibc's own
 *           internal calls are not seen, and need not be.)
 *   clock, times, getrusage
 *           the process's CPU time is the same virtual clock (a program
 *           that stores its CPU time, as calc does for its runtime(), kept
 *           real figures in its globals, different on every run: seen by
 *           heap-graph hashing, which reads them as roots); the other
 *           usage counters (page faults, context switches, max RSS) read 0.
 *   getpid, getppid, getpgrp, getpgid, getsid, kill and the other calls
 *           that name a process: the target's pid world, detpid.c.
 *   getrandom, getentropy, and open/openat (also _FORTIFY_SOURCE's
 *           __open_2 family, and fopen) of /dev/urandom, /dev/random
 *           bytes from one seeded generator (splitmix64); an opened random
 *           device is a memfd holding DET_DEVBYTES fresh bytes, read as a
 *           file (an fd kept open across operations is shared with snapshot
 *           children by fork: read it whole or reopen it).
 *   waits on descriptors with a timeout: see detwait.c.
 * Off (unset or "0"): the entry points behave as libc's, by raw syscalls.
 * Like the rest of the preload: libc only, never allocates (but for the
 * FILE an interposed fopen makes for the program, as libc's would).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pl.h"

#define DET_EPOCH 1767225600LL  /* 2026-01-01T00:00:00Z */
#define DET_STEP_NS 1000000LL   /* the virtual clock's advance per call */
#define DET_DEVBYTES 4096

static int det = -1;            /* -1 not read yet, 0 off, 1 on */
static int64_t clock_ns;        /* virtual nanoseconds since DET_EPOCH */
static uint64_t rng = 0x636d632d72616e64ULL; /* "cmc-rand" */

static int on(void)
{
	if (det < 0) {
		/* pl_env may open /proc/self/environ, which comes back here:
		 * off while we look. */
		char v[8];
		det = 0;
		det = pl_env(CMC_ENV_DETERMINISTIC, v, sizeof v) == 1 && v[0] == '1' && !v[1];
	}
	return det;
}

int pl_det_on(void)
{
	return on();
}

void pl_det_advance(uint32_t ms)
{
	clock_ns += (int64_t)ms * 1000000LL;
}

int64_t pl_det_now_ns(void) { return clock_ns; }

void pl_det_set_ns(int64_t ns)
{
	if (ns > clock_ns)
		clock_ns = ns;
}

static uint64_t next64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		uint64_t r = next64();
		size_t k = n < 8 ? n : 8;
		memcpy(p, &r, k);
		p += k;
		n -= k;
	}
}

/* glibc declares these pointers nonnull; the kernel accepts NULL anyway. */
__attribute__((noinline)) static int null(const volatile void *p)
{
	return p == NULL;
}

static void tick(struct timespec *ts, clockid_t id)
{
	clock_ns += DET_STEP_NS;
	int64_t base = (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI)
			       ? DET_EPOCH : DET_EPOCH - 1000000000LL;
	ts->tv_sec = (time_t)(base + clock_ns / 1000000000LL);
	ts->tv_nsec = (long)(clock_ns % 1000000000LL);
}

/* ---- time -------------------------------------------------------------- */

PL_EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!on())
		return (int)syscall(SYS_clock_gettime, id, ts);
	if (null(ts)) {
		errno = EFAULT;
		return -1;
	}
	tick(ts, id);
	return 0;
}

PL_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	if (!on())
		return (int)syscall(SYS_gettimeofday, tv, tz);
	struct timespec ts;
	tick(&ts, CLOCK_REALTIME);
	if (!null(tv)) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	if (tz)
		memset(tz, 0, 2 * sizeof(int)); /* struct timezone: UTC */
	return 0;
}

PL_EXPORT time_t time(time_t *out)
{
	struct timespec ts;
	if (!on()) {
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	} else
		tick(&ts, CLOCK_REALTIME);
	if (out)
		*out = ts.tv_sec;
	return ts.tv_sec;
}

/* ---- CPU time ---------------------------------------------------------- */

/* The virtual clock as CPU time: ns since the process's virtual start
 * (CLOCK_MONOTONIC's reading less its base), moved on like any read. */
static int64_t cpu_ns(void)
{
	clock_ns += DET_STEP_NS;
	return clock_ns;
}

PL_EXPORT clock_t clock(void)
{
	if (!on()) {
		struct timespec ts;
		if (syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
			return (clock_t)-1;
		return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
	}
	return (clock_t)(cpu_ns() / (1000000000 / CLOCKS_PER_SEC));
}

#define DET_HZ 100 /* USER_HZ: the unit of times() on Linux */

PL_EXPORT clock_t times(struct tms *buf)
{
	if (!on())
		return (clock_t)syscall(SYS_times, buf);
	int64_t ns = cpu_ns();
	clock_t t = (clock_t)(ns / (1000000000 / DET_HZ));
	if (!null(buf)) {
		buf->tms_utime = t;
		buf->tms_stime = buf->tms_cutime = buf->tms_cstime = 0;
	}
	/* elapsed ticks since an arbitrary point: the monotonic clock's */
	return (clock_t)((DET_EPOCH - 1000000000LL) * DET_HZ) + t;
}

PL_EXPORT int getrusage(int who, struct rusage *u)
{
	if (!on())
		return (int)syscall(SYS_getrusage, who, u);
	if (null(u)) {
		errno = EFAULT;
		return -1;
	}
	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD) {
		errno = EINVAL;
		return -1;
	}
	memset(u, 0, sizeof *u);
	if (who != RUSAGE_CHILDREN) {
		int64_t ns = cpu_ns();
		u->ru_utime.tv_sec = (time_t)(ns / 1000000000LL);
		u->ru_utime.tv_usec = (suseconds_t)(ns % 1000000000LL / 1000);
	}
	return 0;
}

/* ---- randomness -------------------------------------------------------- */

PL_EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	if (!on())
		return syscall(SYS_getrandom, buf, n, flags);
	fill(buf, n);
	return (ssize_t)n;
}

PL_EXPORT int getentropy(void *buf, size_t n)
{
	if (n > 256) {
		errno = EIO;
		return -1;
	}
	if (!on())
		return syscall(SYS_getrandom, buf, n, 0) == (long)n ? 0 : -1;
	fill(buf, n);
	return 0;
}

static int is_random_dev(const char *path)
{
	return path && (!strcmp(path, "/dev/urandom") || !strcmp(path, "/dev/random"));
}

/* A memfd of fresh generator bytes, positioned at 0, with the flags asked
 * for where they apply (O_CLOEXEC, O_NONBLOCK). */
static int random_fd(int flags)
{
	int fd = (int)syscall(SYS_memfd_create, "cmc-random", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	uint8_t buf[DET_DEVBYTES];
	fill(buf, sizeof buf);
	size_t off = 0;
	while (off < sizeof buf) {
		ssize_t w = write(fd, buf + off, sizeof buf - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	if (flags & O_NONBLOCK)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (on() && is_random_dev(path))
		return random_fd(flags);
	char own[256];
	if (on())
		path = pl_det_proc_path(path, own, sizeof own);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

PL_EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t m = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, m);
}

PL_EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t m = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, m);
}

PL_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t m = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, m);
}

PL_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t m = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, m);
}

/* _FORTIFY_SOURCE's entry points, which a program built with it (all of
 * Debian) calls instead of open() when the compiler cannot see the flags:
 * perl's open of /dev/urandom for its seeds comes here, and read the
 * machine's randomness (a different heap on every run) before these were
 * interposed.  As glibc's, a call that may create a file without a mode
 * is the program's bug and ends it. */
static int fortified(int dirfd, const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		static const char m[] = "*** invalid open call: O_CREAT or O_TMPFILE without mode ***: "
					"terminated\n";
		(void)!write(2, m, sizeof m - 1);
		abort();
	}
	return do_openat(dirfd, path, flags, 0);
}

PL_EXPORT int __open_2(const char *path, int flags) { return fortified(AT_FDCWD, path, flags); }
PL_EXPORT int __open64_2(const char *path, int flags) { return fortified(AT_FDCWD, path, flags); }
PL_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return fortified(dirfd, path, flags);
}
PL_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return fortified(dirfd, path, flags);
}

/* fopen opens by glibc's internal open, which no interposed open() sees:
 * the random devices and the target's /proc/<pid> are mapped here as
 * open() maps them, and the FILE is the program's (made by libc's fdopen,
 * an allocation fopen would have made too).  Any other path, or the
 * deterministic environment off: libc's own fopen. */
typedef FILE *fopen_fn(const char *, const char *);

/* libc's own, looked up once (*slot: NULL until then). */
static fopen_fn *libc_fopen(fopen_fn **slot, const char *sym)
{
	fopen_fn *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (fopen_fn *)dlsym(RTLD_NEXT, sym);
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

static FILE *det_fopen(const char *path, const char *mode, fopen_fn *real)
{
	if (!on() || !path || !mode || mode[0] != 'r' || strchr(mode, '+') || !is_random_dev(path)) {
		char own[256];
		const char *p = on() && path ? pl_det_proc_path(path, own, sizeof own) : path;
		if (!real) {
			errno = ENOSYS;
			return NULL;
		}
		return real(p, mode);
	}
	int fd = random_fd(strchr(mode, 'e') ? O_CLOEXEC : 0);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

static fopen_fn *real_fopen, *real_fopen64;

PL_EXPORT FILE *fopen(const char *path, const char *mode)
{
	return det_fopen(path, mode, libc_fopen(&real_fopen, "fopen"));
}
PL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return det_fopen(path, mode, libc_fopen(&real_fopen64, "fopen64"));
}
