/*
 * files.c — the files a scenario declares part of the state (`state-file`,
 * `state-dir`): read from the target's working directory once it is
 * quiescent (or ended), their contents folded into one fingerprint that
 * the frontend combines into the state's identity, and a summary (one
 * line per file: kind, size, a short hash, the path) kept in the
 * observation for `cmc show`.
 *
 * The directory read is cmc's copy of the target's (scratch.c), the same
 * bytes under either executor: a fork child has a copy of its origin's.
 * Nothing is followed out of it: every component is opened with
 * O_NOFOLLOW, a symbolic link is an entry of its own (its text is its
 * content), a fifo, socket or device is an entry with no content (never
 * opened).  A dir is walked in strcmp order of its names at every level,
 * so the fingerprint does not depend on readdir's order.  Bounded by
 * `state-cap`: more bytes or files than that is a `limit` fault of the
 * state, never a silent cut.
 *
 * Summary lines (text; the path with bytes below 0x20, 0x7f and '\'
 * written as \xHH):
 *     f SIZE HASH PATH     a regular file; HASH: the low 64 bits of the
 *                          XXH3-128 of its bytes, 16 hex
 *     l SIZE HASH PATH     a symbolic link; SIZE and HASH of its text
 *     o 0 - PATH           another kind (fifo, socket, device)
 *     d 0 - PATH/          a declared dir that exists (its files follow)
 *     m 0 - PATH           a declared path that does not exist (or is
 *                          not what was declared: a dir for state-file)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "scratch.h"
#include "target.h"
#include "util.h"

#define WALK_DEPTH 64

struct fwalk {
	const struct proc_scenario *sc;
	XXH3_state_t id;        /* the identity: every entry's kind, path, content */
	struct proc_buf *sum;
	uint64_t bytes, files;
	char over[200];         /* why the caps were exceeded; "" when not */
	uint8_t buf[65536];
};

static void sum_line(struct fwalk *w, char kind, uint64_t size, const uint64_t *hash,
		     const char *path, bool slash)
{
	char head[64];
	int n = hash ? snprintf(head, sizeof head, "%c %llu %016llx ", kind, (unsigned long long)size,
				(unsigned long long)*hash)
		     : snprintf(head, sizeof head, "%c %llu - ", kind, (unsigned long long)size);
	proc_buf_add(w->sum, head, (size_t)n);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c < 0x20 || *c == 0x7f || *c == '\\') {
			char e[5];
			snprintf(e, sizeof e, "\\x%02x", *c);
			proc_buf_add(w->sum, e, 4);
		} else
			proc_buf_add(w->sum, c, 1);
	}
	proc_buf_add(w->sum, slash ? "/\n" : "\n", slash ? 2 : 1);
}

/* Into the identity: the entry's kind, path (with its NUL) and size; a
 * file's or link's content hash follows. */
static void id_entry(struct fwalk *w, char kind, const char *path, uint64_t size)
{
	XXH3_128bits_update(&w->id, &kind, 1);
	XXH3_128bits_update(&w->id, path, strlen(path) + 1);
	XXH3_128bits_update(&w->id, &size, sizeof size);
}

static bool count(struct fwalk *w, const char *path, uint64_t size)
{
	if (w->over[0])
		return false;
	if (++w->files > w->sc->state_cap_files) {
		snprintf(w->over, sizeof w->over, "more than %u files in the declared state files "
			 "(state-cap), at %.100s", w->sc->state_cap_files, path);
		return false;
	}
	if (size > w->sc->state_cap - w->bytes) {
		snprintf(w->over, sizeof w->over, "more than %llu bytes in the declared state files "
			 "(state-cap), at %.100s", (unsigned long long)w->sc->state_cap, path);
		return false;
	}
	w->bytes += size;
	return true;
}

/* A regular file already open: one pass of XXH3-128 over its bytes.
 * The identity takes all 128 bits after the entry, so the stream stays
 * prefix-free whatever the bytes; the summary shows the low 64. */
static void regular(struct fwalk *w, int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && !count(w, path, (uint64_t)st.st_size))
		return;
	XXH3_state_t h;
	XXH3_128bits_reset(&h);
	uint64_t size = 0;
	ssize_t r;
	/* What was read, not what stat said: they agree on a quiescent target. */
	while ((r = read(fd, w->buf, sizeof w->buf)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		XXH3_128bits_update(&h, w->buf, (size_t)r);
		size += (uint64_t)r;
	}
	XXH128_hash_t c = XXH3_128bits_digest(&h);
	id_entry(w, 'f', path, size);
	XXH3_128bits_update(&w->id, &c, sizeof c);
	sum_line(w, 'f', size, &c.low64, path, false);
}

static void symlink_entry(struct fwalk *w, int dir, const char *name, const char *path)
{
	char text[4096];
	ssize_t n = readlinkat(dir, name, text, sizeof text);
	if (n < 0)
		n = 0;
	if (!count(w, path, (uint64_t)n))
		return;
	XXH128_hash_t c = XXH3_128bits(text, (size_t)n);
	id_entry(w, 'l', path, (uint64_t)n);
	XXH3_128bits_update(&w->id, &c, sizeof c);
	sum_line(w, 'l', (uint64_t)n, &c.low64, path, false);
}

static void other_entry(struct fwalk *w, const char *path)
{
	if (!count(w, path, 0))
		return;
	id_entry(w, 'o', path, 0);
	sum_line(w, 'o', 0, NULL, path, false);
}

static void missing(struct fwalk *w, const char *path)
{
	id_entry(w, 'm', path, 0);
	sum_line(w, 'm', 0, NULL, path, false);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
	if (!strcmp(dir, "."))
		return eng_xstrdup(name);
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = eng_xmalloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Every entry below the open directory fd (taken), in name order. */
static void walk(struct fwalk *w, int fd, const char *path, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap)
			names = eng_xrealloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
		names[n++] = eng_xstrdup(e->d_name);
	}
	if (n) /* (an empty directory: names is NULL, which qsort may not take) */
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *sub = join(path, names[i]);
		struct stat st;
		if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			/* gone between readdir and now: not on a quiescent target */
		} else if (S_ISDIR(st.st_mode)) {
			int c = depth < WALK_DEPTH ? openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY |
							    O_NOFOLLOW | O_CLOEXEC) : -1;
			if (c >= 0)
				walk(w, c, sub, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			int c = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			if (c >= 0) {
				regular(w, c, sub);
				close(c);
			}
		} else if (S_ISLNK(st.st_mode)) {
			symlink_entry(w, dirfd(d), names[i], sub);
		} else {
			other_entry(w, sub);
		}
		free(sub);
		free(names[i]);
	}
	free(names);
	closedir(d);
}

/* The directory holding rel's last component, opened without following
 * a link on the way (-1: a component is missing, or not a directory);
 * *last points at that component in rel. */
static int parent_of(int root, const char *rel, const char **last)
{
	int fd = dup(root);
	const char *c = rel;
	for (const char *s; fd >= 0 && (s = strchr(c, '/')); c = s + 1) {
		char comp[NAME_MAX + 1];
		size_t k = (size_t)(s - c);
		if (k > NAME_MAX) {
			close(fd);
			return -1;
		}
		memcpy(comp, c, k);
		comp[k] = 0;
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	*last = c;
	return fd;
}

static void declared(struct fwalk *w, int root, const struct proc_statefile *f)
{
	if (f->dir && !strcmp(f->rel, ".")) {
		int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		id_entry(w, 'd', ".", 0);
		sum_line(w, 'd', 0, NULL, ".", true);
		if (fd >= 0)
			walk(w, fd, ".", 0);
		return;
	}
	const char *last;
	int dir = parent_of(root, f->rel, &last);
	struct stat st;
	if (dir < 0 || fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (f->dir ? !S_ISDIR(st.st_mode) : S_ISDIR(st.st_mode))) {
		missing(w, f->rel);
	} else if (f->dir) {
		int fd = openat(dir, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		id_entry(w, 'd', f->rel, 0);
		sum_line(w, 'd', 0, NULL, f->rel, true);
		if (fd >= 0)
			walk(w, fd, f->rel, 0);
	} else if (S_ISREG(st.st_mode)) {
		int fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			regular(w, fd, f->rel);
			close(fd);
		} else
			missing(w, f->rel);
	} else if (S_ISLNK(st.st_mode)) {
		symlink_entry(w, dir, last, f->rel);
	} else {
		other_entry(w, f->rel);
	}
	if (dir >= 0)
		close(dir);
}

void proc_files_observe(const struct proc_target *t, struct proc_obs *obs)
{
	const struct proc_scenario *sc = t->sc;
	obs->files.len = 0;
	if (!sc->nstatefiles)
		return;
	const char *dir = t->scratch ? proc_scratch_dir(t->scratch) : sc->cwd ? sc->cwd : NULL;
	int root = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (root < 0) {
		if (obs->fault == PROC_FAULT_NONE) { /* the first fault is the one reported */
			obs->fault = PROC_FAULT_PROTOCOL;
			snprintf(obs->fault_msg, sizeof obs->fault_msg, "state files: the target's "
				 "working directory %s cannot be read", dir ? dir : "(none of its own)");
		}
		return;
	}
	struct fwalk *w = eng_xcalloc(1, sizeof *w);
	w->sc = sc;
	w->sum = &obs->files;
	XXH3_128bits_reset(&w->id);
	for (size_t i = 0; i < sc->nstatefiles && !w->over[0]; i++)
		declared(w, root, &sc->statefiles[i]);
	close(root);
	XXH128_hash_t d = XXH3_128bits_digest(&w->id);
	obs->e.files = (eng_fp){d.high64, d.low64};
	if (eng_fp_zero(obs->e.files))
		obs->e.files.lo = 1;
	if (w->over[0] && obs->fault == PROC_FAULT_NONE) {
		obs->fault = PROC_FAULT_LIMIT;
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s", w->over);
	}
	free(w);
}
