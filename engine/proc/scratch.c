/*
 * scratch.c — a target's working directory of its own:
 * files a target writes there reach no other state's target and no later
 * run, and go with the target.
 *
 * Each target starts in a fresh directory of cmc's (cmc-cwd.XXXXXX in
 * $TMPDIR, else /dev/shm, else /tmp),
 * a copy of the scenario's `cwd` when it names one (directories, regular
 * files and symbolic links; other kinds are left out), else empty.  So
 * that the path the target sees is the same on every run and under either
 * executor (programs keep their working directory in the heap), the
 * directory is bind-mounted, in a mount namespace of the target's own, on
 * a fixed path: the scenario's `cwd` itself when it names one (so absolute
 * paths into it still work, on the copy), else PROC_SCRATCH_AT.  The
 * directory is removed when the last process using it is gone.
 *
 * Where the kernel refuses a mount namespace (not root), the target
 * works in the directory at its own path, which differs from run to run:
 * proc_scratch_enter() says so by its return.
 *
 * Under fork snapshots each child gets a copy of its origin's directory
 * (proc_scratch_fork), which it mounts over its origin's in a mount
 * namespace of its own (preload/snap.c): a snapshot's files are its
 * ancestors', never its siblings'.  Where that fails (no fixed path, the
 * kernel refuses) the child shares its origin's.  Files the program
 * holds open there, and its shared mappings of them, are reopened and
 * mapped again on the copy; a lock held on one is not carried over.
 *
 * Invariant: refs > 0 while any target holds the scratch; the directory
 * is removed when refs reaches 0.  refs changes from several workers
 * (snapshots are shared by the fork executor's pool): atomically.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "durable.h"
#include "scratch.h"
#include "util.h"

struct proc_scratch {
	unsigned refs;
	char *dir;      /* cmc's copy */
	char *at;       /* where the target sees it */
	int nsfd;       /* a fork child's: the namespace with dir at `at`, or -1 */
};

/*
 * Spares: fork children's copies whose last target is gone, emptied, each
 * with its namespace (nsfd >= 0), for the next child to be handed on
 * instead of made anew (scratchns.c says what that saves).  Invariants:
 * nspare <= SPARE_MAX; a spare has refs == 0, nsfd >= 0 and an empty dir;
 * all are removed at exit (spare_drain()).  A copy is handed on only once
 * its last target has been reaped (proc_target_kill() drops its reference
 * after waitpid and after the jail's processes are killed), so no process
 * is left in its namespace to see the next child's files.
 */
#define SPARE_MAX 32
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static struct proc_scratch *spare[SPARE_MAX];
static unsigned nspare;
static unsigned long long st_copies, st_namespaces, st_reused;

/* ---- the seed: a copy of the scenario's directory ---------------------- */

static int copy_file(int from_dir, int to_dir, const char *name, mode_t mode)
{
	int in = openat(from_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int out = in < 0 ? -1 : openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
	char buf[65536];
	ssize_t r = 0;
	while (out >= 0 && (r = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)r) != r) {
			r = -1;
			break;
		}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || r < 0 ? -1 : 0;
}

/* Copy the tree under from_dir into to_dir (both open); depth bounds it. */
static int copy_tree(int from_dir, int to_dir, int depth)
{
	int fd = dup(from_dir);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(from_dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			rc = copy_file(from_dir, to_dir, e->d_name, st.st_mode);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(from_dir, e->d_name, target, sizeof target - 1);
			if (n >= 0) {
				target[n] = 0;
				rc = symlinkat(target, to_dir, e->d_name);
			}
		} else if (S_ISDIR(st.st_mode) && depth < 32) {
			int sub_from = openat(from_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			int sub_to = -1;
			if (sub_from >= 0 && mkdirat(to_dir, e->d_name, st.st_mode & 07777) == 0)
				sub_to = openat(to_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			rc = sub_from < 0 || sub_to < 0 ? -1 : copy_tree(sub_from, sub_to, depth + 1);
			if (sub_from >= 0)
				close(sub_from);
			if (sub_to >= 0)
				close(sub_to);
		}
	}
	closedir(d);
	return rc;
}

/* Copy the tree at `from` into the directory `to`: 0, or an errno. */
static int copy_dir(const char *from, const char *to)
{
	int f = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = f < 0 ? errno : 0;
	int t = f < 0 ? -1 : open(to, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f >= 0 && t < 0)
		e = errno;
	if (!e && copy_tree(f, t, 0) < 0)
		e = errno ? errno : EIO;
	if (f >= 0)
		close(f);
	if (t >= 0)
		close(t);
	return e;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int rm_inner(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return ftw->level > 0 ? rm_one(path, st, flag, ftw) : 0;
}

/* 1 when the directory has nothing in it, 0 when it has, -1 when it
 * cannot be read.  Three calls for an empty one (the common case: most
 * targets write nothing there, and this runs twice per fork child). */
static int dir_empty(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[2048] __attribute__((aligned(8)));
	long n;
	int rc = 1;
	while (rc == 1 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof reclen); /* struct linux_dirent64 */
			const char *name = buf + off + 19;
			off += reclen;
			if (strcmp(name, ".") && strcmp(name, ".."))
				rc = 0;
		}
	if (n < 0)
		rc = -1;
	close(fd);
	return rc;
}

/* Empty dir, keeping it: 0 when nothing is left in it. */
static int empty_dir(const char *dir)
{
	if (dir_empty(dir) == 1)
		return 0;
	nftw(dir, rm_inner, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return dir_empty(dir) == 1 ? 0 : -1;
}

/* Where the copies go: $TMPDIR when set, else /dev/shm (a tmpfs: making
 * and removing a directory there costs a fraction of what it costs on a
 * disk, once per fork child), else /tmp. */
static const char *scratch_base(void)
{
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp)
		return tmp;
	return access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
}

/*
 * Is the cmc that made cmc-cwd.PID-* gone?  Each cmc holds an exclusive
 * flock on cmc-cwd.PID.lock beside its copies for as long as it runs
 * (hold_lock()); the kernel drops it when that cmc ends, however it ends.
 * A lock that can be taken is a dead owner's, whatever pid namespace
 * either cmc is in: kill(pid, 0) cannot tell that (a cmc in a namespace of
 * its own sees no other, and swept live cmcs' copies from under their
 * targets: "cannot execute target: No such file or directory").  Copies
 * without a lock file (made by a cmc before this) are its when the pid is
 * not running here.  *lockfd: the taken lock, to be closed once the
 * copies are gone (then the file is removed first).
 */
static bool owner_gone(const char *base, int pid, int *lockfd)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/cmc-cwd.%d.lock", base, pid);
	*lockfd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (*lockfd < 0)
		return errno == ENOENT && kill(pid, 0) < 0 && errno == ESRCH;
	if (flock(*lockfd, LOCK_EX | LOCK_NB) == 0)
		return true;
	close(*lockfd);
	*lockfd = -1;
	return false;
}

static void sweep_once(void)
{
	const char *base = scratch_base();
	DIR *d = opendir(base);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int pid = 0, n = 0, lockfd = -1;
		char path[PATH_MAX];
		if (sscanf(e->d_name, "cmc-cwd.%d.lock%n", &pid, &n) >= 1 && n > 0 && !e->d_name[n] &&
		    pid > 0 && pid != (int)getpid()) {
			/* a lock nobody holds: its cmc is gone (its copies are
			 * then found by name: no lock file, a pid not running) */
			snprintf(path, sizeof path, "%s/%s", base, e->d_name);
			int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
				unlink(path);
			if (fd >= 0)
				close(fd);
			continue;
		}
		n = 0;
		if (sscanf(e->d_name, "cmc-cwd.%d-%*6[A-Za-z0-9]%n", &pid, &n) < 1 || n == 0 ||
		    e->d_name[n] || pid <= 0 || pid == (int)getpid())
			continue;
		if (owner_gone(base, pid, &lockfd)) {
			snprintf(path, sizeof path, "%s/%s", base, e->d_name);
			rm_tree(path);
		}
		if (lockfd >= 0)
			close(lockfd);
	}
	if (d)
		closedir(d);
}

static void drop_lock(void)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/cmc-cwd.%d.lock", scratch_base(), (int)getpid());
	unlink(path);
}

/* This cmc's lock (owner_gone()): taken once, held until it ends; never
 * inherited by a target (close-on-exec, and a forked child's copy of the
 * descriptor shares the lock but ends with the child's exec). */
static void hold_lock(void)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/cmc-cwd.%d.lock", scratch_base(), (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		atexit(drop_lock); /* fd itself is held for cmc's lifetime */
}

static void destroy(struct proc_scratch *s)
{
	if (s->nsfd >= 0)
		close(s->nsfd);
	rm_tree(s->dir);
	free(s->dir);
	free(s->at);
	free(s);
}

static void spare_drain(void)
{
	/* (at exit: a thread that died holding the lock leaves the spares
	 * to the next cmc's sweep rather than hang the exit) */
	if (pthread_mutex_trylock(&spare_mu) != 0)
		return;
	while (nspare)
		destroy(spare[--nspare]);
	pthread_mutex_unlock(&spare_mu);
}

/* A spare seen at `at`, or NULL. */
static struct proc_scratch *spare_take(const char *at)
{
	struct proc_scratch *s = NULL;
	pthread_mutex_lock(&spare_mu);
	for (unsigned i = nspare; i-- > 0;)
		if (!strcmp(spare[i]->at, at)) {
			s = spare[i];
			spare[i] = spare[--nspare];
			break;
		}
	pthread_mutex_unlock(&spare_mu);
	return s;
}

/* Keep s (refs 0, nsfd >= 0) as a spare: false when it cannot be emptied
 * or the spares are full. */
static bool spare_put(struct proc_scratch *s)
{
	if (empty_dir(s->dir) != 0)
		return false;
	pthread_mutex_lock(&spare_mu);
	bool kept = nspare < SPARE_MAX;
	if (kept)
		spare[nspare++] = s;
	pthread_mutex_unlock(&spare_mu);
	return kept;
}

static void sweep_and_lock(void)
{
	sweep_once();
	hold_lock();
	atexit(spare_drain); /* before drop_lock(): atexit runs backwards */
}

/* ---- the contract ------------------------------------------------------ */

/*
 * A cmc killed outright (SIGKILL) leaves its copies: each is named after
 * its cmc's pid (cmc-cwd.PID-XXXXXX), and the first target a cmc starts
 * removes those of cmcs no longer running (owner_gone()).
 */
static void sweep(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, sweep_and_lock);
}

struct proc_scratch *proc_scratch_new(const struct proc_scenario *sc, char *err, size_t errlen)
{
	sweep();
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/cmc-cwd.%d-XXXXXX", scratch_base(), (int)getpid());
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot make the target's working directory in %s: %s", scratch_base(),
			 strerror(errno));
		return NULL;
	}
	char at[PATH_MAX];
	if (sc->cwd) {
		int e = copy_dir(sc->cwd, dir);
		if (e || !realpath(sc->cwd, at)) {
			snprintf(err, errlen, "cannot copy the working directory %s: %s", sc->cwd,
				 strerror(e ? e : errno));
			rm_tree(dir);
			return NULL;
		}
	} else {
		snprintf(at, sizeof at, "%s", PROC_SCRATCH_AT);
		struct stat st;
		if ((mkdir(at, 0755) < 0 && errno != EEXIST) || lstat(at, &st) < 0 || !S_ISDIR(st.st_mode)) {
			/* no fixed path: the target works at the copy's own */
			snprintf(at, sizeof at, "%s", dir);
		}
	}
	if (sc->durable) {
		/* what the target starts with is on disk (durable.c) */
		int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int rc = root < 0 ? -1 : proc_durable_settle(sc, root, err, errlen);
		if (root < 0)
			snprintf(err, errlen, "cannot open the target's working directory %s: %s", dir,
				 strerror(errno));
		if (root >= 0)
			close(root);
		if (rc < 0) {
			rm_tree(dir);
			return NULL;
		}
	}
	struct proc_scratch *s = eng_xcalloc(1, sizeof *s);
	s->refs = 1;
	s->dir = eng_xstrdup(dir);
	s->at = eng_xstrdup(at);
	s->nsfd = -1;
	return s;
}

struct proc_scratch *proc_scratch_fork(const struct proc_scratch *origin)
{
	if (!origin || !strcmp(origin->at, origin->dir))
		return NULL; /* not mounted anywhere: nothing to mount over */
	struct proc_scratch *s = spare_take(origin->at);
	if (s) {
		/* (a spare is empty: an empty origin's copy is made) */
		if (dir_empty(origin->dir) != 1 && copy_dir(origin->dir, s->dir)) {
			destroy(s);
			return NULL;
		}
		__atomic_add_fetch(&st_reused, 1, __ATOMIC_RELAXED);
		s->refs = 1;
		return s;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/cmc-cwd.%d-XXXXXX", scratch_base(), (int)getpid());
	if (!mkdtemp(dir))
		return NULL;
	if (copy_dir(origin->dir, dir)) {
		rm_tree(dir);
		return NULL;
	}
	__atomic_add_fetch(&st_copies, 1, __ATOMIC_RELAXED);
	s = eng_xcalloc(1, sizeof *s);
	s->refs = 1;
	s->dir = eng_xstrdup(dir);
	s->at = eng_xstrdup(origin->at);
	s->nsfd = proc_scratch_ns_make(s->dir, s->at);
	if (s->nsfd >= 0)
		__atomic_add_fetch(&st_namespaces, 1, __ATOMIC_RELAXED);
	return s;
}

int proc_scratch_nsfd(const struct proc_scratch *s)
{
	return s ? s->nsfd : -1;
}

void proc_scratch_stats(struct proc_scratch_stats *out)
{
	out->copies = __atomic_load_n(&st_copies, __ATOMIC_RELAXED);
	out->namespaces = __atomic_load_n(&st_namespaces, __ATOMIC_RELAXED);
	out->reused = __atomic_load_n(&st_reused, __ATOMIC_RELAXED);
}

const char *proc_scratch_dir(const struct proc_scratch *s)
{
	return s->dir;
}

const char *proc_scratch_at(const struct proc_scratch *s)
{
	return s->at;
}

int proc_scratch_enter(const struct proc_scratch *s)
{
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", "none", MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount(s->dir, s->at, "none", MS_BIND, NULL) == 0)
		return chdir(s->at); /* into the copy just mounted there */
	if (chdir(s->dir) < 0)
		return -1;
	return 1;
}

struct proc_scratch *proc_scratch_ref(struct proc_scratch *s)
{
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	return s;
}

void proc_scratch_unref(struct proc_scratch *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (s->nsfd >= 0 && spare_put(s))
		return;
	destroy(s);
}
