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
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
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

/* A shared mapping of a file under `at` is mapped anew, at the same
 * place, from the same path (now the copy's). */
static void remap_one(unsigned long start, unsigned long end, int prot, unsigned long off, const char *path,
		      const char *at, size_t len)
{
	if (!path || strncmp(path, at, len) || path[len] != '/')
		return;
	int fd = (int)raw(SYS_open, (long)path, ((prot & PROT_WRITE) ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	syscall(SYS_mmap, start, end - start, prot, MAP_SHARED | MAP_FIXED, fd, off);
	raw(SYS_close, fd, 0, 0, 0, 0);
}

/* One line of /proc/self/maps. */
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
	if (shared != 's')
		return;
	int prot = (r == 'r' ? PROT_READ : 0) | (w == 'w' ? PROT_WRITE : 0) | (x == 'x' ? PROT_EXEC : 0);
	remap_one(start, end, prot, off, strchr(p, '/'), at, len);
}

/* The kernel's query of one mapping (uapi linux/fs.h, Linux 6.11 and
 * later): asked for the first shared mapping of a file at or above an
 * address, it answers without writing out the text of every mapping,
 * which was most of what remapping cost a child that has none. */
struct pl_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PL_PROCMAP_QUERY 0xC0686611ul /* _IOWR('f', 17, struct procmap_query) */
#define PL_Q_READABLE 0x01
#define PL_Q_WRITABLE 0x02
#define PL_Q_EXECUTABLE 0x04
#define PL_Q_SHARED 0x08
#define PL_Q_COVERING_OR_NEXT 0x10
#define PL_Q_FILE_BACKED 0x20
_Static_assert(sizeof(struct pl_procmap_query) == 104, "struct procmap_query is 104 bytes");

/* By the query: true when it answered (every such mapping was seen),
 * false when this kernel has no such query (the caller reads the text). */
static bool remap_by_query(int fd, const char *at, size_t len)
{
	char name[4096];
	unsigned long addr = 0;
	for (;;) {
		struct pl_procmap_query q;
		memset(&q, 0, sizeof q);
		q.size = sizeof q;
		q.query_flags = PL_Q_SHARED | PL_Q_FILE_BACKED | PL_Q_COVERING_OR_NEXT;
		q.query_addr = addr;
		q.vma_name_addr = (uint64_t)(uintptr_t)name;
		q.vma_name_size = sizeof name;
		if (raw(SYS_ioctl, fd, (long)PL_PROCMAP_QUERY, (long)&q, 0, 0) < 0)
			return errno == ENOENT; /* none left; else no such query */
		if (q.vma_end <= addr)
			return true; /* (never: the kernel moves on) */
		name[sizeof name - 1] = 0;
		int prot = ((q.vma_flags & PL_Q_READABLE) ? PROT_READ : 0) |
			   ((q.vma_flags & PL_Q_WRITABLE) ? PROT_WRITE : 0) |
			   ((q.vma_flags & PL_Q_EXECUTABLE) ? PROT_EXEC : 0);
		if (q.vma_name_size)
			remap_one(q.vma_start, q.vma_end, prot, q.vma_offset, name, at, len);
		addr = q.vma_end;
	}
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
	if (remap_by_query(fd, at, len)) {
		raw(SYS_close, fd, 0, 0, 0, 0);
		return;
	}
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
