/*
 * durable.c — what a crash leaves of a target's files (`op LABEL crash`,
 * share/scenario.md "Crashes"): cmc's side of the durable image the
 * preload keeps (preload/durable.c), and the crash operation itself.
 *
 * The image lives in the target's working directory, in PROC_DURABLE_DIR:
 *     sync/REL   the contents file REL had when it was last made durable
 *                (fsync, fdatasync, sync, syncfs; or at the start); none:
 *                it never was;
 *     name/REL   an empty marker: the name REL is on disk (it was there at
 *                the start, or its directory was synced since it was made;
 *                a rename carries it to the new name, an unlink drops it).
 * A power loss (PROC_CRASH_LOST) makes every regular file of the working
 * directory what the image says: a file whose name is not on disk is
 * removed, one whose name is takes its synced contents (empty when it was
 * never synced).  Then everything left is durable: the image is made anew
 * from the files (settle).  A process crash (PROC_CRASH_KEPT) changes no
 * file: the page cache survives the process.
 *
 * Everything below the working directory was written by the target and is
 * untrusted: every component is opened relative to a directory fd with
 * O_NOFOLLOW (a link is never followed; a link in the image counts as
 * missing), the walk is bounded in depth, and the bytes and files copied
 * by `state-cap`; more is a `limit` fault, never a silent cut.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable.h"
#include "scratch.h"
#include "target.h"
#include "util.h"

#define DEPTH_MAX 32

struct dwalk {
	uint64_t bytes, files;  /* copied so far */
	uint64_t cap_bytes, cap_files;
	char *err;
	size_t errlen;
	int failed;             /* 0, or -1 once err is set */
};

static int fail(struct dwalk *w, const char *what, const char *name)
{
	if (!w->failed)
		snprintf(w->err, w->errlen, "crash: %s%s%.200s", what, name ? ": " : "", name ? name : "");
	w->failed = -1;
	return -1;
}

/* The names in the open directory fd, sorted (the order of what is done
 * does not matter, but a stable one keeps failures repeatable); the
 * caller frees each and the array. */
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **names_of(int fd, size_t *n)
{
	int c = dup(fd);
	DIR *d = c < 0 ? NULL : fdopendir(c);
	*n = 0;
	if (!d) {
		if (c >= 0)
			close(c);
		return NULL;
	}
	rewinddir(d); /* the dup shares fd's offset: a walk before may have moved it */
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap)
			v = eng_xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
		v[(*n)++] = eng_xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_names);
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Remove name (any kind, a directory with what is below it) from dir. */
static void rm_at(int dir, const char *name, int depth)
{
	if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
		return;
	int sub = depth < DEPTH_MAX ? openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (sub >= 0) {
		size_t n;
		char **v = names_of(sub, &n);
		for (size_t i = 0; i < n; i++)
			rm_at(sub, v[i], depth + 1);
		free_names(v, n);
		close(sub);
	}
	unlinkat(dir, name, AT_REMOVEDIR);
}

/* A directory below dir, made when missing; -1 when it cannot be (or is
 * not a directory: a link there is not followed). */
static int subdir(int dir, const char *name, bool make)
{
	if (dir < 0)
		return -1;
	if (make && mkdirat(dir, name, 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Copy the open file in into a new file name in dir (out: -1, then dir is
 * not used: only count), bounded by the caps. */
static int copy_into(struct dwalk *w, int in, int dir, const char *name, int out)
{
	char buf[65536];
	if (out < 0)
		out = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return fail(w, "cannot write the durable image", name);
	if (++w->files > w->cap_files) {
		close(out);
		return fail(w, "more files than state-cap allows", name);
	}
	ssize_t r;
	while ((r = read(in, buf, sizeof buf)) > 0) {
		w->bytes += (uint64_t)r;
		if (w->bytes > w->cap_bytes) {
			close(out);
			return fail(w, "more bytes than state-cap allows", name);
		}
		if (write(out, buf, (size_t)r) != r) {
			close(out);
			return fail(w, "cannot write the durable image", name);
		}
	}
	close(out);
	return r < 0 ? fail(w, "cannot read", name) : 0;
}

/*
 * Visit every regular file below dir (not the image itself, at the top),
 * in name order, with the directories of sync and name that mirror its
 * own: made as needed when `make` (a settle), else whatever exists (-1
 * where nothing does: a power loss).  Links, fifos, sockets, devices are
 * not part of the model.
 */
typedef void (*dfile_fn)(struct dwalk *w, int dir, int sync, int name, const char *file);

static void walk_dir(struct dwalk *w, int dir, int sync, int name, int depth, bool make, dfile_fn fn)
{
	size_t n;
	char **v = names_of(dir, &n);
	for (size_t i = 0; i < n && !w->failed; i++) {
		struct stat st;
		if (depth == 0 && !strcmp(v[i], PROC_DURABLE_DIR))
			continue;
		if (fstatat(dir, v[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			fn(w, dir, sync, name, v[i]);
		} else if (S_ISDIR(st.st_mode) && depth < DEPTH_MAX) {
			int d = subdir(dir, v[i], false);
			int s = subdir(sync, v[i], make), m = subdir(name, v[i], make);
			if (make && (d < 0 || s < 0 || m < 0))
				fail(w, "cannot copy the directory", v[i]);
			else if (d >= 0)
				walk_dir(w, d, s, m, depth + 1, make, fn);
			int fds[] = {d, s, m};
			for (size_t k = 0; k < 3; k++)
				if (fds[k] >= 0)
					close(fds[k]);
		}
	}
	free_names(v, n);
}

/* Durable now: the file's contents into sync, a marker into name. */
static void settle_file(struct dwalk *w, int dir, int sync, int name, const char *file)
{
	int in = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0) {
		fail(w, "cannot read", file);
		return;
	}
	copy_into(w, in, sync, file, -1);
	close(in);
	int m = openat(name, file, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (m < 0)
		fail(w, "cannot write the durable image", file);
	else
		close(m);
}

static void walk_init(struct dwalk *w, const struct proc_scenario *sc, char *err, size_t errlen)
{
	*w = (struct dwalk){.cap_bytes = sc->state_cap, .cap_files = sc->state_cap_files,
			    .err = err, .errlen = errlen};
}

int proc_durable_settle(const struct proc_scenario *sc, int root, char *err, size_t errlen)
{
	struct dwalk w;
	walk_init(&w, sc, err, errlen);
	rm_at(root, PROC_DURABLE_DIR, 0);
	int top = subdir(root, PROC_DURABLE_DIR, true);
	int sync = subdir(top, "sync", true), name = subdir(top, "name", true);
	if (sync < 0 || name < 0)
		fail(&w, "cannot make the durable image", PROC_DURABLE_DIR);
	else
		walk_dir(&w, root, sync, name, 0, true, settle_file);
	int fds[] = {top, sync, name};
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return w.failed;
}

/* Is name in dir (-1: no such dir) a regular file (not a link)? */
static bool is_reg(int dir, const char *name)
{
	struct stat st;
	return dir >= 0 && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Power loss: the file becomes what sync and name say of it. */
static void lose_file(struct dwalk *w, int dir, int sync, int name, const char *file)
{
	if (!is_reg(name, file)) { /* its name never reached the disk */
		if (unlinkat(dir, file, 0) < 0)
			fail(w, "cannot remove", file);
		return;
	}
	int out = openat(dir, file, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0) {
		fail(w, "cannot rewrite", file);
		return;
	}
	int in = is_reg(sync, file) ? openat(sync, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (in >= 0) {
		copy_into(w, in, dir, file, out);
		close(in);
	} else {
		close(out); /* never synced: its data never reached the disk */
	}
}

int proc_durable_lose(const struct proc_scenario *sc, int root, char *err, size_t errlen)
{
	struct dwalk w;
	walk_init(&w, sc, err, errlen);
	int top = subdir(root, PROC_DURABLE_DIR, false);
	int sync = subdir(top, "sync", false), name = subdir(top, "name", false);
	if (sync < 0 || name < 0)
		fail(&w, "the durable image is missing (the target removed it?)", PROC_DURABLE_DIR);
	else
		walk_dir(&w, root, sync, name, 0, false, lose_file);
	int fds[] = {top, sync, name};
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return w.failed ? -1 : proc_durable_settle(sc, root, err, errlen);
}

struct proc_target *proc_target_crash(struct proc_target *t, const struct proc_op *op, const char *preload,
				      struct proc_obs *obs, double *spawn_s)
{
	const struct proc_scenario *sc = t->sc;
	struct proc_scratch *s = t->scratch ? proc_scratch_ref(t->scratch) : NULL;
	proc_target_kill(t); /* SIGKILL: nothing of the process survives */
	if (op->crash == PROC_CRASH_LOST) {
		/* never the scenario's own directory (CMC_SHARED_CWD=1): only a
		 * copy of cmc's is reverted */
		const char *dir = s ? proc_scratch_dir(s) : NULL;
		int root = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		int rc = root < 0 ? -1 : proc_durable_lose(sc, root, obs->fault_msg, sizeof obs->fault_msg);
		if (root < 0)
			snprintf(obs->fault_msg, sizeof obs->fault_msg, "crash: the target's working directory "
				 "%s cannot be read", dir ? dir : "(none of its own: CMC_SHARED_CWD?)");
		if (root >= 0)
			close(root);
		if (rc < 0) {
			obs->fault = PROC_FAULT_LIMIT;
			proc_scratch_unref(s);
			return NULL;
		}
	}
	struct proc_target *n = proc_target_start_in(sc, preload, s, obs, spawn_s);
	proc_scratch_unref(s);
	if (!n) {
		char was[sizeof obs->fault_msg];
		snprintf(was, sizeof was, "%s", obs->fault_msg);
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "started again: %.400s", was);
	}
	return n;
}
