/*
 * durable.c — the durable image of the target's files, for crash
 * operations (engine/proc/durable.c says what it holds and reverts to it;
 * share/scenario.md "Crashes" what it models).
 *
 * Only when cmc made the image: ".cmc-durable" (PROC_DURABLE_DIR) in the
 * working directory the target started in, or the nearest directory above
 * it that has one (its root, found at start-up).  Then
 * every call that makes data durable or moves a name is followed by the
 * same change to the image, for files below the root:
 *     fsync, fdatasync  a regular file: sync/REL := its contents now
 *                       (and so does every write, pwrite, writev or
 *                       pwritev through a descriptor with O_SYNC or
 *                       O_DSYNC);
 *                       a directory: each regular file in it has its name
 *                       on disk (name/REL markers);
 *     sync, syncfs      everything below the root, both;
 *     rename, renameat, renameat2   sync/ and name/ entries move with the
 *                       name (a name not on disk does not become so; one
 *                       on disk stays, now naming the moved file);
 *     unlink, unlinkat, rmdir, remove   the entries go.
 * The real call is made first, by a raw system call; the image changes
 * only when it succeeded, and errno is what the call set.
 *
 * Files are named by where /proc/self/fd says they are, so a file is
 * followed through a chdir and a directory fd.  Nothing is allocated (the
 * heap is the program's, and part of its state); buffers are on the stack.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h> /* rename, renameat2 and RENAME_EXCHANGE, remove */
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pl.h"

#define IMAGE ".cmc-durable" /* PROC_DURABLE_DIR (engine/proc/scenario.h) */
#define DEPTH_MAX 32

static bool on;                 /* the image exists: keep it */
static char root[PATH_MAX];     /* the working directory at start-up */
static size_t rootlen;

/* out := the concatenation of the strings parts (NULL-terminated), without
 * snprintf (pl.h: nothing that may allocate); false when it does not fit. */
static bool join(char *out, size_t n, const char *const *parts)
{
	size_t len = 0;
	for (; *parts; parts++) {
		size_t k = strlen(*parts);
		if (len + k >= n)
			return false;
		memcpy(out + len, *parts, k);
		len += k;
	}
	out[len] = 0;
	return true;
}

__attribute__((constructor)) static void pl_durable_init(void)
{
	long n = syscall(SYS_getcwd, root, sizeof root - sizeof IMAGE - 64);
	if (n <= 0)
		return;
	/* cmc puts the image at the top of the target's working directory; a
	 * program exec'd in a directory below it (sh -c "cd db && exec prog")
	 * finds it there */
	for (rootlen = strlen(root); rootlen > 1;) {
		char img[PATH_MAX];
		struct stat st;
		if (join(img, sizeof img, (const char *[]){root, "/" IMAGE, NULL}) &&
		    syscall(SYS_newfstatat, AT_FDCWD, img, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			on = true;
			return;
		}
		while (rootlen > 1 && root[rootlen - 1] != '/')
			rootlen--;
		root[rootlen > 1 ? --rootlen : rootlen] = 0;
	}
}

/* abs (absolute) relative to the root into rel: false when it is not below
 * it, or is in the image itself.  "" is the root. */
static bool rel_of(const char *abs, char *rel, size_t n)
{
	if (strncmp(abs, root, rootlen) || (abs[rootlen] && abs[rootlen] != '/'))
		return false;
	const char *r = abs + rootlen + (abs[rootlen] == '/');
	if (!strncmp(r, IMAGE, sizeof IMAGE - 1) && (!r[sizeof IMAGE - 1] || r[sizeof IMAGE - 1] == '/'))
		return false;
	if (strlen(r) >= n)
		return false;
	strcpy(rel, r);
	return true;
}

/* The path of an open fd, relative to the root. */
static bool rel_of_fd(int fd, char *rel, size_t n)
{
	char link[32], abs[PATH_MAX];
	pl_fd_link(link, fd);
	long k = syscall(SYS_readlinkat, AT_FDCWD, link, abs, sizeof abs - 1);
	if (k <= 0 || abs[0] != '/')
		return false;
	abs[k] = 0;
	if (k > 10 && !strcmp(abs + k - 10, " (deleted)"))
		return false;
	return rel_of(abs, rel, n);
}

/* path (as the program named it, relative to dirfd) relative to the root:
 * its directory resolved by the kernel, then its last component. */
static bool rel_of_at(int dirfd, const char *path, char *rel, size_t n)
{
	char dir[PATH_MAX];
	size_t len = path ? strlen(path) : 0;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!len || len >= sizeof dir)
		return false;
	memcpy(dir, path, len);
	dir[len] = 0;
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return false;
	char name[NAME_MAX + 1];
	if (strlen(base) > NAME_MAX)
		return false;
	strcpy(name, base);
	if (slash == dir)
		strcpy(dir, "/");
	else if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	int fd = (int)syscall(SYS_openat, dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	char d[PATH_MAX];
	bool ok = rel_of_fd(fd, d, sizeof d);
	syscall(SYS_close, fd);
	return ok && join(rel, n, (const char *[]){d, *d ? "/" : "", name, NULL});
}

/* root/IMAGE/tree/rel into out (rel "" is the tree itself). */
static bool image_path(char *out, size_t n, const char *tree, const char *rel)
{
	return join(out, n, (const char *[]){root, "/" IMAGE "/", tree, *rel ? "/" : "", rel, NULL});
}

/* The directories leading to path's last component below the image. */
static void make_parents(char *path)
{
	for (char *s = path + rootlen + sizeof IMAGE + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		syscall(SYS_mkdirat, AT_FDCWD, path, 0700);
		*s = '/';
	}
}

/* Remove path, whatever it is, a directory with what is below it. */
static void rm_path(char *path, size_t cap, int depth)
{
	if (syscall(SYS_unlinkat, AT_FDCWD, path, 0) == 0 || errno == ENOENT || depth > DEPTH_MAX)
		return;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd >= 0) {
		char buf[2048];
		size_t len = strlen(path);
		long k;
		while ((k = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
			for (long o = 0; o < k;) {
				struct dirent64 *e = (struct dirent64 *)(buf + o);
				o += e->d_reclen;
				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				if (!join(path + len, cap - len, (const char *[]){"/", e->d_name, NULL}))
					continue;
				rm_path(path, cap, depth + 1);
				path[len] = 0;
			}
		}
		syscall(SYS_close, fd);
	}
	syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
}

static void forget(const char *rel)
{
	char p[PATH_MAX];
	if (image_path(p, sizeof p, "sync", rel))
		rm_path(p, sizeof p, 0);
	if (image_path(p, sizeof p, "name", rel))
		rm_path(p, sizeof p, 0);
}

/* The synced contents of rel: what the file at src (open to read) holds. */
static void sync_copy(int src, const char *rel)
{
	char p[PATH_MAX], buf[16384];
	if (!image_path(p, sizeof p, "sync", rel))
		return;
	make_parents(p);
	int out = (int)syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return;
	long k;
	while ((k = syscall(SYS_read, src, buf, sizeof buf)) > 0)
		if (syscall(SYS_write, out, buf, k) != k)
			break;
	syscall(SYS_close, out);
}

/* The name rel is on disk. */
static void name_mark(const char *rel)
{
	char p[PATH_MAX];
	if (!image_path(p, sizeof p, "name", rel))
		return;
	make_parents(p);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		syscall(SYS_close, fd);
}

/* Every regular file in the directory dir (rel, open), made durable:
 * names only, or with `all` contents too and every level below. */
static void sync_dir(int dir, const char *rel, bool all, int depth)
{
	char buf[2048];
	long k;
	while ((k = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
		for (long o = 0; o < k;) {
			struct dirent64 *e = (struct dirent64 *)(buf + o);
			o += e->d_reclen;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (!*rel && !strcmp(e->d_name, IMAGE))
				continue;
			char sub[PATH_MAX];
			if (!join(sub, sizeof sub, (const char *[]){rel, *rel ? "/" : "", e->d_name, NULL}))
				continue;
			struct stat st;
			if (syscall(SYS_newfstatat, dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (S_ISREG(st.st_mode)) {
				name_mark(sub);
				int fd = all ? (int)syscall(SYS_openat, dir, e->d_name,
							   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0) : -1;
				if (fd >= 0) {
					sync_copy(fd, sub);
					syscall(SYS_close, fd);
				}
			} else if (S_ISDIR(st.st_mode) && all && depth < DEPTH_MAX) {
				int fd = (int)syscall(SYS_openat, dir, e->d_name,
						      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
				if (fd >= 0) {
					sync_dir(fd, sub, all, depth + 1);
					syscall(SYS_close, fd);
				}
			}
		}
	}
}

/* fd was fsync'd (or fdatasync'd). */
static void synced_fd(int fd)
{
	char rel[PATH_MAX];
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) < 0 || !rel_of_fd(fd, rel, sizeof rel))
		return;
	char link[32];
	pl_fd_link(link, fd);
	/* read through a descriptor of our own: fd may be write-only, and
	 * its offset is the program's */
	int flags = S_ISDIR(st.st_mode) ? O_RDONLY | O_DIRECTORY | O_CLOEXEC : O_RDONLY | O_NONBLOCK | O_CLOEXEC;
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return;
	int own = (int)syscall(SYS_openat, AT_FDCWD, link, flags, 0);
	if (own < 0)
		return;
	if (S_ISREG(st.st_mode))
		sync_copy(own, rel);
	else
		sync_dir(own, rel, false, 0);
	syscall(SYS_close, own);
}

static void synced_all(void)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd >= 0) {
		sync_dir(fd, "", true, 0);
		syscall(SYS_close, fd);
	}
}

/* rel_a was renamed to rel_b (either NULL: outside the root). */
static void moved(const char *a, const char *b, bool exchange)
{
	if (!b) {
		if (a)
			forget(a);
		return;
	}
	static const char *const trees[] = {"sync", "name"};
	for (size_t i = 0; i < 2; i++) {
		char pa[PATH_MAX], pb[PATH_MAX];
		if (!image_path(pb, sizeof pb, trees[i], b))
			continue;
		struct stat st;
		bool have_a = a && image_path(pa, sizeof pa, trees[i], a) &&
			      syscall(SYS_newfstatat, AT_FDCWD, pa, &st, AT_SYMLINK_NOFOLLOW) == 0;
		bool have_b = syscall(SYS_newfstatat, AT_FDCWD, pb, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (exchange && have_a && have_b) {
			syscall(SYS_renameat2, AT_FDCWD, pa, AT_FDCWD, pb, RENAME_EXCHANGE);
		} else if (have_a) {
			/* the contents synced, and a name on disk, go with the file */
			rm_path(pb, sizeof pb, 0);
			make_parents(pb);
			syscall(SYS_renameat2, AT_FDCWD, pa, AT_FDCWD, pb, 0);
		} else if (i == 0 || exchange) {
			/* the file now at b was never synced; a name on disk
			 * stays on disk (it names the new file now) */
			if (have_b && exchange && a && image_path(pa, sizeof pa, trees[i], a)) {
				make_parents(pa);
				syscall(SYS_renameat2, AT_FDCWD, pb, AT_FDCWD, pa, 0);
			} else
				rm_path(pb, sizeof pb, 0);
		}
	}
}

PL_EXPORT int fsync(int fd)
{
	long r = syscall(SYS_fsync, fd);
	if (r == 0 && on) {
		int e = errno;
		synced_fd(fd);
		errno = e;
	}
	return (int)r;
}

PL_EXPORT int fdatasync(int fd)
{
	long r = syscall(SYS_fdatasync, fd);
	if (r == 0 && on) {
		int e = errno;
		synced_fd(fd);
		errno = e;
	}
	return (int)r;
}

PL_EXPORT void sync(void)
{
	syscall(SYS_sync);
	if (on) {
		int e = errno;
		synced_all();
		errno = e;
	}
}

PL_EXPORT int syncfs(int fd)
{
	long r = syscall(SYS_syncfs, fd);
	if (r == 0 && on) {
		int e = errno;
		synced_all();
		errno = e;
	}
	return (int)r;
}

/* A write to fd succeeded: with O_SYNC or O_DSYNC it is durable at once,
 * as if fsync'd. */
static void wrote(int fd)
{
	int e = errno;
	long fl = syscall(SYS_fcntl, fd, F_GETFL, 0);
	if (fl >= 0 && (fl & O_DSYNC)) /* O_SYNC includes O_DSYNC */
		synced_fd(fd);
	errno = e;
}

PL_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	long r = syscall(SYS_write, fd, buf, n);
	if (r > 0 && on)
		wrote(fd);
	return r;
}

PL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	long r = syscall(SYS_pwrite64, fd, buf, n, off);
	if (r > 0 && on)
		wrote(fd);
	return r;
}

PL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

PL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	long r = syscall(SYS_writev, fd, iov, cnt);
	if (r > 0 && on)
		wrote(fd);
	return r;
}

PL_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	/* the kernel takes the offset as two halves (low, high) */
	long r = syscall(SYS_pwritev, fd, iov, cnt, (unsigned long)off, (unsigned long)((uint64_t)off >> 32));
	if (r > 0 && on)
		wrote(fd);
	return r;
}

static int renamed(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
#ifdef SYS_renameat
	long r = flags ? syscall(SYS_renameat2, olddir, old, newdir, new, flags)
		       : syscall(SYS_renameat, olddir, old, newdir, new);
#else
	long r = syscall(SYS_renameat2, olddir, old, newdir, new, flags);
#endif
	if (r == 0 && on) {
		int e = errno;
		char a[PATH_MAX], b[PATH_MAX];
		bool in_a = rel_of_at(olddir, old, a, sizeof a), in_b = rel_of_at(newdir, new, b, sizeof b);
		moved(in_a ? a : NULL, in_b ? b : NULL, (flags & RENAME_EXCHANGE) != 0);
		errno = e;
	}
	return (int)r;
}

PL_EXPORT int rename(const char *old, const char *new)
{
	return renamed(AT_FDCWD, old, AT_FDCWD, new, 0);
}

PL_EXPORT int renameat(int olddir, const char *old, int newdir, const char *new)
{
	return renamed(olddir, old, newdir, new, 0);
}

PL_EXPORT int renameat2(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
	return renamed(olddir, old, newdir, new, flags);
}

static int removed(int dir, const char *path, int flags)
{
	/* resolved first: after the call a directory's own name is gone */
	char rel[PATH_MAX];
	bool in = on && rel_of_at(dir, path, rel, sizeof rel);
	long r = syscall(SYS_unlinkat, dir, path, flags);
	if (r == 0 && in) {
		int e = errno;
		forget(rel);
		errno = e;
	}
	return (int)r;
}

PL_EXPORT int unlink(const char *path)
{
	return removed(AT_FDCWD, path, 0);
}

PL_EXPORT int unlinkat(int dir, const char *path, int flags)
{
	return removed(dir, path, flags);
}

PL_EXPORT int rmdir(const char *path)
{
	return removed(AT_FDCWD, path, AT_REMOVEDIR);
}

PL_EXPORT int remove(const char *path)
{
	int r = removed(AT_FDCWD, path, 0);
	if (r < 0 && errno == EISDIR)
		r = removed(AT_FDCWD, path, AT_REMOVEDIR);
	return r;
}
