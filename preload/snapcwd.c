/*
 * snapcwd.c — a fork snapshot's child gets a working directory of its own
 * (engine/proc/scratch.c makes the copy, cmc_region.h section 5
 * carries its path in the FORK message).  In the child, inside the
 * snapshot's signal handler: a mount namespace of its own, the copy
 * mounted where its origin's directory was and its shared mappings of
 * files there mapped again (the files it holds open there are reopened
 * on the copy by snapfiles.c, with the rest), so
 * nothing the child writes reaches its origin or a sibling.  Raw system
 * calls only, no allocation (async-signal-safe).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

static long raw(long nr, long a, long b, long c, long d, long e)
{
	return syscall(nr, a, b, c, d, e);
}

static unsigned long hex_field(const char **p)
{
	unsigned long v = 0;
	for (;; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + (unsigned long)d;
	}
}

/* One line of /proc/self/maps: a shared mapping of a file under `at` is
 * mapped anew, at the same place, from the same path (now the copy's). */
static void remap_line(const char *l, const char *at, size_t len)
{
	const char *p = l;
	unsigned long start = hex_field(&p);
	if (*p++ != '-')
		return;
	unsigned long end = hex_field(&p);
	if (*p++ != ' ')
		return;
	char r = p[0], w = p[1], x = p[2], shared = p[3];
	p += 5;
	unsigned long off = hex_field(&p);
	const char *path = strchr(p, '/');
	if (shared != 's' || !path || strncmp(path, at, len) || path[len] != '/')
		return;
	int prot = (r == 'r' ? PROT_READ : 0) | (w == 'w' ? PROT_WRITE : 0) | (x == 'x' ? PROT_EXEC : 0);
	int fd = (int)raw(SYS_open, (long)path, (w == 'w' ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	syscall(SYS_mmap, start, end - start, prot, MAP_SHARED | MAP_FIXED, fd, off);
	raw(SYS_close, fd, 0, 0, 0, 0);
}

/*
 * Shared mappings of files under `at` (gdbm maps its database) are the
 * origin's files too: each is mapped again from the copy, in place.
 * Lines are read into a fixed buffer; a line longer than it is passed
 * over.
 */
static void remap_under(const char *at)
{
	int fd = (int)raw(SYS_open, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	size_t len = strlen(at);
	char buf[8192];
	size_t have = 0;
	long n;
	while ((n = raw(SYS_read, fd, (long)(buf + have), sizeof buf - 1 - have, 0, 0)) > 0) {
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			remap_line(line, at, len);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof buf - 1)
			have = 0; /* one line longer than the buffer */
	}
	raw(SYS_close, fd, 0, 0, 0, 0);
}

/*
 * Enter the namespace cmc made for this child (engine/proc/scratchns.c),
 * its copy already mounted: no mount to make here and none to tear down
 * when it dies.  Entering resets the root and the working directory to
 * the namespace's: so only a program at the machine's root (not one that
 * chrooted, whose root this would undo), and the working directory is
 * taken back afterwards, by its descriptor when it is not under the copy
 * (the caller goes into it again by path when it is).  False, with
 * nothing changed, when there is none or it cannot be entered.
 */
static bool enter_made(int mntns, bool under)
{
	char root[2];
	if (mntns < 0 || raw(SYS_readlink, (long)"/proc/self/root", (long)root, sizeof root, 0, 0) != 1 ||
	    root[0] != '/')
		return false;
	int here = under ? -1 : (int)raw(SYS_open, (long)".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (!under && here < 0)
		return false;
	bool ok = raw(SYS_setns, mntns, CLONE_NEWNS, 0, 0, 0) == 0;
	if (here >= 0) {
		if (ok)
			raw(SYS_fchdir, here, 0, 0, 0, 0);
		raw(SYS_close, here, 0, 0, 0, 0);
	}
	return ok;
}

/*
 * In a fork child: its own working directory (src, a copy of its
 * origin's that cmc made) mounted where its origin's is (at), in a mount
 * namespace of its own (the one cmc made for it, mntns, else one it makes), so that what it writes there no sibling sees; if
 * the program works there, into it again, and the shared mappings of
 * files there mapped again on the copy (the files it holds open there:
 * pl_snap_own_files(), next).  The origin's mount is detached first (one layer, not a stack
 * that grows with the depth).  False when the kernel refused: it then
 * shares its origin's.
 */
bool pl_snap_own_cwd(char *src, char *at, int mntns)
{
	src[CMC_SNAP_CWD_MAX - 1] = at[CMC_SNAP_CWD_MAX - 1] = 0;
	if (src[0] != '/' || at[0] != '/')
		return false;
	char was[4096];
	long n = raw(SYS_getcwd, (long)was, sizeof was, 0, 0, 0);
	size_t len = strlen(at);
	bool under = n > 0 && !strncmp(was, at, len) && (was[len] == 0 || was[len] == '/');
	if (!enter_made(mntns, under)) {
		/* one of its own: a copy of its origin's, whose mount is
		 * detached first (one layer, not a stack that grows with the
		 * depth) */
		if (raw(SYS_unshare, CLONE_NEWNS, 0, 0, 0, 0) != 0)
			return false;
		raw(SYS_umount2, (long)at, MNT_DETACH, 0, 0, 0);
		if (raw(SYS_mount, (long)src, (long)at, 0, MS_BIND, 0) != 0)
			return false;
	}
	if (under)
		raw(SYS_chdir, (long)was, 0, 0, 0, 0);
	remap_under(at);
	return true;
}
