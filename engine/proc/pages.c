/*
 * pages.c — the heap window hashed page by page, re-reading only the
 * pages a process changed since the snapshot it was forked from was
 * observed (pages.h says which pages are clean, and why that holds).
 * Owns struct proc_pages (shared by reference, immutable), the pagemap
 * reads, the cross-check against a full read (CHECK >= 2 or
 * CMC_CHECK_PAGES=1) and the counters CMC_PROC_STATS prints.
 *
 * All of it reads target memory through /proc/PID/mem and /proc/PID/pagemap
 * with pread: a bad address is an error, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "check.h"
#include "pages.h"
#include "target.h"
#include "util.h"

/* /proc/PID/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT (1ULL << 63)
#define PM_SWAP (1ULL << 62)
#define PM_FILE (1ULL << 61)
#define PM_EXCLUSIVE (1ULL << 56)
#define PM_PFN ((1ULL << 55) - 1)

/* A window of at most this many pages is read whole, every time: finding
 * its clean pages takes pagemap and the children file, two /proc files
 * opened, read and closed per observation (the kernel makes an inode for
 * each, per process), which costs more than reading 64 KiB. */
#define PAGES_READ_WHOLE 16

/* Dirty pages are read in runs of at most this many bytes. */
#define RUN_MAX (1u << 20)

static atomic_uint_fast64_t n_incremental, n_full, n_hashed, n_reused;
static atomic_bool said_no_pagemap, said_children;

struct proc_pages *proc_pages_ref(struct proc_pages *p)
{
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void proc_pages_unref(struct proc_pages *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (size_t i = 0; i < p->nkept; i++)
		proc_bytes_unref(p->kept[i]);
	free(p->kept);
	free(p->hash);
	free(p->ent);
	free(p);
}

void proc_pages_stats(struct proc_pages_stats *out)
{
	out->incremental = atomic_load(&n_incremental);
	out->full = atomic_load(&n_full);
	out->hashed = atomic_load(&n_hashed);
	out->reused = atomic_load(&n_reused);
}

/* Cross-check every page taken from a cache against its bytes? */
static bool checking(void)
{
	static int on = -1;
	if (on < 0) {
		const char *e = getenv("CMC_CHECK_PAGES");
		on = CMC_CHECK >= 2 || (e && *e && strcmp(e, "0") != 0);
	}
	return on;
}

static bool env_on(const char *name)
{
	const char *e = getenv(name);
	return e && *e && strcmp(e, "0") != 0;
}

/* Test hooks (t5370): make the first hash taken from a cache wrong, as a
 * stale cache would, so that the cross-check is seen to catch it; read
 * pagemap as a cmc without CAP_SYS_ADMIN does, frame numbers hidden. */
static bool stale_hook(void)
{
	static int on = -1;
	if (on < 0)
		on = env_on("CMC_TEST_PAGES_STALE");
	return on;
}

static bool no_pfn_hook(void)
{
	static int on = -1;
	if (on < 0)
		on = env_on("CMC_TEST_PAGES_NO_PFN");
	return on;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

static uint64_t page_base(const struct proc_pages *p)
{
	return p->lo & ~(uint64_t)(PROC_PAGE - 1);
}

/* Page i's bytes in the window: [start, end). */
static uint64_t page_start(const struct proc_pages *p, size_t i)
{
	uint64_t a = page_base(p) + (uint64_t)i * PROC_PAGE;
	return a < p->lo ? p->lo : a;
}

static uint64_t page_end(const struct proc_pages *p, size_t i)
{
	uint64_t a = page_base(p) + (uint64_t)(i + 1) * PROC_PAGE;
	return a > p->hi ? p->hi : a;
}

/* Does the target have a live child, which may share pages it wrote? */
static bool has_children(pid_t pid)
{
	char path[64], c;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!atomic_exchange(&said_children, true))
			fprintf(stderr, "cmc: %s: %s: every state reads the whole heap window\n", path,
				strerror(errno));
		return true;
	}
	ssize_t r = read(fd, &c, 1);
	close(fd);
	return r != 0;
}

/* Page i of cur, whose pagemap entry is e, holds what it held in ref. */
static bool clean(const struct proc_pages *cur, const struct proc_pages *ref, size_t i, uint64_t e)
{
	if (i >= ref->n || page_end(ref, i) != page_end(cur, i))
		return false;
	uint64_t was = ref->ent[i];
	if (!(e & PM_PRESENT) || (e & (PM_SWAP | PM_FILE | PM_EXCLUSIVE)) || !(was & PM_PRESENT))
		return false;
	return (e & PM_PFN) == (was & PM_PFN); /* both 0 where frames are hidden */
}

static uint64_t hash_page(const uint8_t *b, size_t len)
{
	return XXH3_64bits(b, len);
}

/* Pages [i, j) of p, read from the target and hashed (j > i). */
static int hash_run(struct proc_target *t, struct proc_pages *p, size_t i, size_t j,
		    struct proc_buf *bounce)
{
	while (i < j) {
		size_t k = i;
		while (k < j && page_end(p, k) - page_start(p, i) <= RUN_MAX)
			k++;
		uint64_t a = page_start(p, i), len = page_end(p, k - 1) - a;
		if (bounce->size < len) {
			free(bounce->p);
			bounce->p = eng_xmalloc(RUN_MAX);
			bounce->size = RUN_MAX;
		}
		if (read_at(t->mem_fd, bounce->p, (size_t)len, a) < 0)
			return -1;
		for (size_t m = i; m < k; m++)
			p->hash[m] = hash_page(bounce->p + (page_start(p, m) - a),
					       (size_t)(page_end(p, m) - page_start(p, m)));
		atomic_fetch_add(&n_hashed, k - i);
		i = k;
	}
	return 0;
}

/* Every page of p taken from a cache, read again: a difference is a bug
 * in what pages.h says is clean, and fails loudly. */
static void cross_check(struct proc_target *t, const struct proc_pages *p, const bool *reused)
{
	uint8_t buf[PROC_PAGE];
	for (size_t i = 0; i < p->n; i++) {
		if (!reused[i])
			continue;
		uint64_t a = page_start(p, i), len = page_end(p, i) - a;
		if (read_at(t->mem_fd, buf, (size_t)len, a) < 0)
			continue; /* gone since: the observation reports that */
		uint64_t h = hash_page(buf, (size_t)len);
		CMC_VALID(h == p->hash[i],
			  "heap page %zu at 0x%llx of pid %d: the hash taken from its snapshot's cache "
			  "(%016llx) is not that of its bytes (%016llx): the page changed, yet its "
			  "pagemap entry said clean", i, (unsigned long long)a, (int)t->pid,
			  (unsigned long long)p->hash[i], (unsigned long long)h);
	}
}

/* The pagemap entries of p's pages into p->ent; false when pagemap cannot
 * be read (said once). */
static bool read_pagemap(struct proc_target *t, struct proc_pages *p)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/pagemap", (int)t->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = -1;
	if (fd >= 0) {
		rc = read_at(fd, p->ent, p->n * sizeof *p->ent,
			     page_base(p) / PROC_PAGE * sizeof *p->ent);
		close(fd);
	}
	if (rc == 0 && no_pfn_hook())
		for (size_t i = 0; i < p->n; i++)
			p->ent[i] &= ~PM_PFN;
	if (rc < 0) {
		memset(p->ent, 0, p->n * sizeof *p->ent);
		if (!atomic_exchange(&said_no_pagemap, true))
			fprintf(stderr, "cmc: %s unreadable (%s): every state reads the whole heap "
				"window\n", path, fd < 0 ? strerror(errno) : "short read");
		return false;
	}
	return true;
}

/* Pages [i, j) of the prefix, read straight into where they go (dst is
 * the window's first byte there); with kept, their bytes kept too. */
static int read_prefix(struct proc_target *t, struct proc_pages *p, size_t i, size_t j,
		       uint8_t *dst, bool kept)
{
	uint64_t a = page_start(p, i), len = page_end(p, j - 1) - a;
	if (read_at(t->mem_fd, dst + (a - p->lo), (size_t)len, a) < 0)
		return -1;
	for (size_t m = i; m < j; m++) {
		const uint8_t *b = dst + (page_start(p, m) - p->lo);
		size_t n = (size_t)(page_end(p, m) - page_start(p, m));
		p->hash[m] = hash_page(b, n);
		if (kept)
			p->kept[m] = proc_bytes_new(b, n);
	}
	atomic_fetch_add(&n_hashed, j - i);
	return 0;
}

struct proc_pages *proc_pages_hash(struct proc_target *t, uint64_t lo, uint64_t hi,
				   const struct proc_pages *ref, struct proc_buf *pre_buf,
				   uint64_t pre, struct proc_buf *bounce, bool cache)
{
	struct proc_pages *p = eng_xcalloc(1, sizeof *p);
	p->refs = 1;
	p->lo = lo;
	p->hi = hi > lo ? hi : lo;
	p->n = p->hi == p->lo ? 0 : (size_t)((p->hi - page_base(p) + PROC_PAGE - 1) / PROC_PAGE);
	p->hash = eng_xmalloc((p->n ? p->n : 1) * sizeof *p->hash);
	p->ent = eng_xcalloc(p->n ? p->n : 1, sizeof *p->ent);
	/* pages [0, first) lie wholly in the prefix; page `first` may start in it */
	size_t first = 0;
	while (first < p->n && page_end(p, first) <= lo + pre)
		first++;
	uint8_t *dst = pre ? proc_buf_room(pre_buf, (size_t)pre) : NULL;
	if (cache) {
		p->nkept = first;
		p->kept = eng_xcalloc(first ? first : 1, sizeof *p->kept);
	}
	bool use_ref = cache && p->n > PAGES_READ_WHOLE && read_pagemap(t, p) && ref && ref->lo == lo &&
		       !has_children(t->pid);
	bool stale = stale_hook(), check = checking();
	bool *reused = use_ref && check ? eng_xcalloc(p->n, sizeof *reused) : NULL;
	size_t nreused = 0;
#define CLEAN(m) (use_ref && clean(p, ref, (m), p->ent[m]) && \
		  ((m) >= first || ((m) < ref->nkept && ref->kept[m])))
	for (size_t i = 0; i < p->n;) {
		if (CLEAN(i)) {
			p->hash[i] = ref->hash[i];
			if (stale && nreused == 0)
				p->hash[i] ^= 1;
			if (i < first) {
				memcpy(dst + (page_start(p, i) - lo), ref->kept[i]->p, ref->kept[i]->len);
				p->kept[i] = proc_bytes_ref(ref->kept[i]);
			}
			if (reused)
				reused[i] = true;
			nreused++;
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < p->n && (j < first) == (i < first) && !CLEAN(j))
			j++;
		if ((i < first ? read_prefix(t, p, i, j, dst, cache)
			       : hash_run(t, p, i, j, bounce)) < 0)
			goto unreadable;
		i = j;
	}
#undef CLEAN
	/* the prefix's end within page `first`: read, whatever the page's state */
	if (first < p->n && page_start(p, first) < lo + pre &&
	    read_at(t->mem_fd, dst + (page_start(p, first) - lo),
		    (size_t)(lo + pre - page_start(p, first)), page_start(p, first)) < 0)
		goto unreadable;
	pre_buf->len += (size_t)pre;
	atomic_fetch_add(&n_reused, nreused);
	atomic_fetch_add(nreused ? &n_incremental : &n_full, 1);
	if (reused)
		cross_check(t, p, reused);
	free(reused);
	return p;
unreadable:
	free(reused);
	proc_pages_unref(p);
	return NULL;
}
