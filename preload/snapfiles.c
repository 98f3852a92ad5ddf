/*
 * snapfiles.c — a fork snapshot's child gets open files of its own.
 *
 * fork() shares every open file description between the child and its
 * origin: one file offset, and for a file with no name (tmpfile(), a
 * memfd) the only copy of its contents.  A child that reads or writes such
 * a file moves its origin's offset and changes what the origin and every
 * later sibling read, and the search then depends on the order in which
 * children ran: GNU ed keeps its buffer in a tmpfile(), and its fork run
 * reached 103 states where replay, which starts each trace afresh, reached
 * 95.  So in the child, before it takes its operation, every regular file
 * the program holds open (on a descriptor below PL_FD_SCAN) is given a
 * description of its own, on the same descriptor, with the same flags and
 * offset:
 *   - a file with a name is reopened: one in the working directory by its
 *     path, which is the copy's now (snapcwd.c mounted it), so the child
 *     has its own contents; any other by /proc/self/fd/N: a private
 *     offset, the same contents (what the child writes there still
 *     reaches its origin, as any file outside the state does);
 *   - a file with no name is copied whole into a new one of the same kind
 *     (O_TMPFILE in the same directory, or a memfd of the same name), so
 *     nothing the child writes there reaches its origin.  That costs a copy
 *     of the file per fork: a program with a large unnamed file (a sort's
 *     spill file) pays it on every snapshot child.
 * What is not carried over: a lock held on the file, and a shared mapping
 * of an unnamed file (it stays the origin's).  Raw system calls only, no
 * allocation (async-signal-safe: called from the snapshot's handler).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

#define MAX_FDS PL_FD_SCAN

static long raw(long nr, long a, long b, long c, long d, long e)
{
	return syscall(nr, a, b, c, d, e);
}

/* Copy size bytes of from into to, by offsets (from's offset, which its
 * origin shares, does not move).  False on a short copy. */
static bool copy_all(int from, int to, off_t size)
{
	char buf[4096];
	for (off_t at = 0; at < size;) {
		long r = raw(SYS_pread64, from, (long)buf, sizeof buf, at, 0);
		if (r <= 0)
			return false;
		for (long w = 0; w < r;) {
			long k = raw(SYS_pwrite64, to, (long)(buf + w), r - w, at + w, 0);
			if (k <= 0)
				return false;
			w += k;
		}
		at += r;
	}
	return true;
}

/* A new unnamed file like the one at path ("/tmp/#123 (deleted)",
 * "/memfd:name (deleted)"), read-write; -1 when none can be made. */
static int unnamed_like(const char *path, mode_t mode)
{
	static const char memfd[] = "/memfd:", deleted[] = " (deleted)";
	char name[256];
	size_t len = strlen(path);
	if (len >= sizeof deleted - 1 && !strcmp(path + len - (sizeof deleted - 1), deleted))
		len -= sizeof deleted - 1;
	if (!strncmp(path, memfd, sizeof memfd - 1)) {
		size_t k = len - (sizeof memfd - 1);
		if (k >= sizeof name)
			k = sizeof name - 1;
		memcpy(name, path + sizeof memfd - 1, k);
		name[k] = 0;
		return (int)raw(SYS_memfd_create, (long)name, MFD_CLOEXEC, 0, 0, 0);
	}
	const char *slash = NULL;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			slash = path + i;
	if (path[0] != '/' || !slash || (size_t)(slash - path) >= sizeof name)
		return -1;
	size_t k = slash > path ? (size_t)(slash - path) : 1;
	memcpy(name, path, k);
	name[k] = 0;
	return (int)raw(SYS_open, (long)name, O_TMPFILE | O_RDWR | O_CLOEXEC, mode & 07777, 0, 0);
}

/* Is path under the directory at (the working directory's copy)? */
static bool under(const char *path, const char *at)
{
	size_t len = at ? strlen(at) : 0;
	return len && !strncmp(path, at, len) && path[len] == '/';
}

static bool received(int fd, const int *recv, unsigned nrecv)
{
	for (unsigned i = 0; i < nrecv; i++)
		if (recv[i] == fd)
			return true;
	return false;
}

void pl_snap_own_files(const char *at, int snap_fd, const int *recv, unsigned nrecv)
{
	int fds[MAX_FDS];
	int nfds = pl_list_fds(fds, MAX_FDS, snap_fd);
	for (int i = 0; i < nfds; i++) {
		int fd = fds[i];
		char link[32], path[4096];
		struct stat st;
		/* (a cgroup's `tasks` file and a namespace's fd are regular
		 * files too: reopening them was a dozen calls for nothing) */
		if (received(fd, recv, nrecv) || raw(SYS_fstat, fd, (long)&st, 0, 0, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		long fl = raw(SYS_fcntl, fd, F_GETFL, 0, 0, 0);
		long fdfl = raw(SYS_fcntl, fd, F_GETFD, 0, 0, 0);
		if (fl < 0 || fdfl < 0 || (fl & O_PATH))
			continue;
		pl_fd_link(link, fd);
		long k = raw(SYS_readlink, (long)link, (long)path, sizeof path - 1, 0, 0);
		if (k <= 0)
			continue;
		path[k] = 0;
		/* in the working directory: by its path, now the copy's */
		const char *from = under(path, at) ? path : link;
		long pos = raw(SYS_lseek, fd, 0, SEEK_CUR, 0, 0);
		long reopen = (fl & ~(long)(O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC;
		int nfd = -1;
		if (st.st_nlink == 0) {
			int copy = unnamed_like(path, st.st_mode);
			if (copy >= 0 && !copy_all(fd, copy, st.st_size)) {
				raw(SYS_close, copy, 0, 0, 0, 0);
				copy = -1;
			}
			if (copy < 0)
				continue; /* shared with its origin, as before */
			if ((fl & O_ACCMODE) == O_RDWR) {
				nfd = copy;
				raw(SYS_fcntl, nfd, F_SETFL, fl, 0, 0);
			} else {
				pl_fd_link(link, copy);
				nfd = (int)raw(SYS_open, (long)link, reopen, 0, 0, 0);
				raw(SYS_close, copy, 0, 0, 0, 0);
			}
		} else {
			nfd = (int)raw(SYS_open, (long)from, reopen, 0, 0, 0);
		}
		if (nfd < 0)
			continue;
		if (pos > 0)
			raw(SYS_lseek, nfd, pos, SEEK_SET, 0, 0);
		raw(SYS_dup3, nfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0, 0, 0);
		raw(SYS_close, nfd, 0, 0, 0, 0);
	}
}
