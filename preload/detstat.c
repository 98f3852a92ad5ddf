/*
 * detstat.c — file metadata in the deterministic environment
 * (CMC_DETERMINISTIC=1, detenv.c): what stat(2) and its family say about
 * a file is the same on every run and under either executor.
 *
 * Without it, a program that keeps what fstat() says about its files
 * stored numbers that change from run to run: a pipe's inode (pipefs
 * counts them machine-wide), the inode, device and times of a file in the
 * target's working directory (a fresh copy per target, scratch.c).  calc
 * keeps its standard streams' inodes in a global table, so two runs of
 * the same trace differed in its .data (seen by heap-graph hashing, whose
 * roots those globals are).
 *
 * So st_ino is renumbered by what the file is to the program: its path
 * (a descriptor's, from /proc/self/fd; a name's, by opening it O_PATH),
 * or, for what has none (a pipe, a socket), the descriptor it is on.  Each
 * distinct one gets the next virtual inode in the order the process first
 * asks about it: the same on every run, and the same in a fork snapshot's
 * child, whose input pipe and working directory are fresh copies at the
 * same descriptor and path (snap.c, snapcwd.c).  A file asked about twice,
 * under any name that resolves to the same path, gets the same number; two
 * hard links get two (not modelled).  st_dev is renumbered by real device,
 * in first-asked order.  The tables live in the process's memory, so a
 * child goes on numbering where a replayed process would.  The times
 * (access, modification, change, birth) read the virtual clock's epoch
 * (DET_EPOCH in detenv.c): files keep no time of their own (an ordering by
 * mtime is lost; not modelled).  Sizes, modes, link counts, owners are
 * real: they follow from what the program did.  Past DET_FILES distinct
 * files the numbers are the real ones.
 *
 * Covers stat, fstat, lstat, fstatat (the 64 variants are the same
 * symbols' aliases on x86_64), the old __xstat, __fxstat, __lxstat and
 * __fxstatat that binaries built against older glibc call, and statx.
 * Calls glibc makes internally are not seen.  Raw system calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

#define DET_FILES 1024
#define DET_DEVS 64
#define DET_EPOCH_S 1767225600LL /* detenv.c's DET_EPOCH: 2026-01-01T00:00:00Z */
#define DET_DEV_BASE 0x100       /* virtual devices 0x100, 0x101, ... */

/*
 * Invariant: keys[0 .. nkeys) are distinct identities (a path's hash, or a
 * descriptor's for what has no path), the k-th renumbered as inode k + 1;
 * devs[0 .. ndevs) distinct real devices, the k-th renumbered
 * DET_DEV_BASE + k.  nkeys <= DET_FILES, ndevs <= DET_DEVS.
 */
static uint64_t keys[DET_FILES];
static unsigned nkeys;
static uint64_t devs[DET_DEVS];
static unsigned ndevs;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* What fd is to the program: its path, or the descriptor itself. */
static uint64_t key_of_fd(int fd)
{
	char link[32], path[512];
	pl_fd_link(link, fd);
	long n = syscall(SYS_readlink, link, path, sizeof path);
	if (n > 0 && path[0] == '/')
		return fnv(0xcbf29ce484222325ULL, path, (size_t)n);
	uint64_t h = fnv(0xcbf29ce484222325ULL, "fd", 2);
	return fnv(h, &fd, sizeof fd);
}

/* What a name is: the path it resolves to (flags: AT_SYMLINK_NOFOLLOW for
 * the link itself); the name as given when it cannot be opened. */
static uint64_t key_of_path(int dirfd, const char *path, int flags)
{
	int o = O_PATH | O_CLOEXEC | ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0);
	int fd = path && *path ? (int)syscall(SYS_openat, dirfd, path, o, 0) : -1;
	if (fd >= 0) {
		uint64_t k = key_of_fd(fd);
		syscall(SYS_close, fd);
		return k;
	}
	if (path && !*path && (flags & AT_EMPTY_PATH))
		return key_of_fd(dirfd);
	uint64_t h = fnv(0xcbf29ce484222325ULL, &dirfd, sizeof dirfd);
	return path ? fnv(h, path, strlen(path)) : h;
}

/* The virtual numbers of an identity on a real device; false past the
 * tables. */
static bool renumber(uint64_t key, uint64_t dev, uint64_t *vdev, uint64_t *vino)
{
	unsigned f = 0, d = 0;
	while (f < nkeys && keys[f] != key)
		f++;
	while (d < ndevs && devs[d] != dev)
		d++;
	if ((f == nkeys && nkeys == DET_FILES) || (d == ndevs && ndevs == DET_DEVS))
		return false;
	if (f == nkeys)
		keys[nkeys++] = key;
	if (d == ndevs)
		devs[ndevs++] = dev;
	*vdev = DET_DEV_BASE + d;
	*vino = f + 1;
	return true;
}

static void fix_stat(uint64_t key, struct stat *st)
{
	uint64_t vdev, vino;
	if (renumber(key, st->st_dev, &vdev, &vino)) {
		st->st_dev = (dev_t)vdev;
		st->st_ino = (ino_t)vino;
	}
	st->st_atim.tv_sec = st->st_mtim.tv_sec = st->st_ctim.tv_sec = DET_EPOCH_S;
	st->st_atim.tv_nsec = st->st_mtim.tv_nsec = st->st_ctim.tv_nsec = 0;
}

static void fix_statx(uint64_t key, struct statx *sx)
{
	uint64_t dev = makedev(sx->stx_dev_major, sx->stx_dev_minor), vdev, vino;
	if ((sx->stx_mask & STATX_INO) && renumber(key, dev, &vdev, &vino)) {
		sx->stx_ino = vino;
		sx->stx_dev_major = major(vdev);
		sx->stx_dev_minor = minor(vdev);
	}
	struct statx_timestamp e = {.tv_sec = DET_EPOCH_S, .tv_nsec = 0};
	sx->stx_atime = sx->stx_btime = sx->stx_ctime = sx->stx_mtime = e;
}

/* fstatat, the one call the rest go through: the raw syscall, fixed. */
static int do_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int r = (int)syscall(SYS_newfstatat, dirfd, path, st, flags);
	if (r == 0 && pl_det_on())
		fix_stat(key_of_path(dirfd, path, flags), st);
	return r;
}

PL_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return do_fstatat(dirfd, path, st, flags);
}

PL_EXPORT int stat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, 0);
}

PL_EXPORT int lstat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

PL_EXPORT int fstat(int fd, struct stat *st)
{
	int r = (int)syscall(SYS_fstat, fd, st);
	if (r == 0 && pl_det_on())
		fix_stat(key_of_fd(fd), st);
	return r;
}

/* glibc before 2.33 exported these, and binaries built then call them
 * (ver is _STAT_VER, the kernel's struct stat on x86_64). */
PL_EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat(path, st);
}

PL_EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return lstat(path, st);
}

PL_EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return fstat(fd, st);
}

PL_EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return do_fstatat(dirfd, path, st, flags);
}

PL_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
	int r = (int)syscall(SYS_statx, dirfd, path, flags, mask, sx);
	if (r == 0 && pl_det_on())
		fix_statx(key_of_path(dirfd, path, flags), sx);
	return r;
}

/* x86_64: struct stat64 is struct stat; the 64 names are the same calls. */
_Static_assert(sizeof(struct stat64) == sizeof(struct stat), "stat64 is stat on this ABI");

PL_EXPORT int stat64(const char *path, struct stat64 *st) { return stat(path, (struct stat *)st); }
PL_EXPORT int lstat64(const char *path, struct stat64 *st) { return lstat(path, (struct stat *)st); }
PL_EXPORT int fstat64(int fd, struct stat64 *st) { return fstat(fd, (struct stat *)st); }

PL_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return do_fstatat(dirfd, path, (struct stat *)st, flags);
}

PL_EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	return __xstat(ver, path, (struct stat *)st);
}

PL_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	return __lxstat(ver, path, (struct stat *)st);
}

PL_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return __fxstat(ver, fd, (struct stat *)st);
}

PL_EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	return __fxstatat(ver, dirfd, path, (struct stat *)st, flags);
}
