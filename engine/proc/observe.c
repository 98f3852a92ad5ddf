/*
 * observe.c — turning a quiescent (or ended) target into an
 * observation: the raw fingerprint over the heap window the region header
 * describes plus the chosen segments and symbols, the canonical record, the
 * reply, the exit status or signal, and faults.  Also owns proc_buf and
 * proc_obs, the buffers an observation lives in.
 *
 * Everything read here is untrusted: the region header is validated against
 * its invariants (preload/layout/cmc_region.h) before its offsets are used, memory
 * is read with pread on /proc/PID/mem (a bad address is an error, not a
 * crash), and what is kept is capped (raw-cap; the fingerprint still covers
 * the whole window and ENG_OBS_RAW_OVER reports the cut copy).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "layout/cmc_region.h"
#include "alloc.h"
#include "heapgraph.h"
#include "limits.h"
#include "pages.h"
#include "target.h"
#include "util.h"

/* ---- buffers ---------------------------------------------------------- */

uint8_t *proc_buf_room(struct proc_buf *b, size_t n)
{
	if (b->size - b->len < n) {
		size_t want = b->size ? b->size : 256;
		while (want - b->len < n)
			want *= 2;
		b->p = eng_xrealloc(b->p, want);
		b->size = want;
	}
	return b->p + b->len;
}

void proc_buf_add(struct proc_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	memcpy(proc_buf_room(b, n), p, n);
	b->len += n;
}

void proc_buf_set(struct proc_buf *b, const void *p, size_t n)
{
	b->len = 0;
	proc_buf_add(b, p, n);
}

void proc_buf_free(struct proc_buf *b)
{
	free(b->p);
	*b = (struct proc_buf){0};
}

void proc_obs_reset(struct proc_obs *o)
{
	o->raw.len = o->canon.len = o->reply.len = o->files.len = 0;
	o->e = (eng_obs){0};
	o->fault = PROC_FAULT_NONE;
	o->fault_msg[0] = 0;
	o->quiesce_s = 0;
	o->wait_ms = 0;
	o->alarm_ms = o->alarm_every_ms = 0;
	o->no_region = false;
	o->pages_readonly = false;
	o->hg_msg[0] = 0;
	o->exit_live.seen = false;
}

void proc_obs_free(struct proc_obs *o)
{
	proc_buf_free(&o->raw);
	proc_buf_free(&o->canon);
	proc_buf_free(&o->reply);
	proc_buf_free(&o->files);
	proc_buf_free(&o->win);
	proc_buf_free(&o->bounce);
	proc_hg_free(o->hg);
	o->hg = NULL;
}

void proc_obs_seal(struct proc_obs *o)
{
	o->e.raw_bytes = o->raw.len ? o->raw.p : NULL;
	o->e.raw_len = o->raw.len;
	o->e.canon_rec = (o->e.flags & ENG_OBS_CANON) ? (o->canon.p ? o->canon.p : (const uint8_t *)"") : NULL;
	o->e.canon_len = o->canon.len;
	o->e.reply = o->reply.len ? o->reply.p : NULL;
	o->e.reply_len = o->reply.len;
	o->e.files_sum = o->files.len ? o->files.p : NULL;
	o->e.files_len = o->files.len;
	if (o->fault != PROC_FAULT_NONE) {
		o->e.flags |= ENG_OBS_FAULT;
		o->e.fault = o->fault_msg;
	} else
		o->e.fault = NULL;
}

const char *proc_fault_name(enum proc_fault f)
{
	static const char *const names[] = {
		[PROC_FAULT_NONE] = "none",       [PROC_FAULT_START] = "start",
		[PROC_FAULT_LISTEN] = "listen",   [PROC_FAULT_TIMEOUT] = "timeout",
		[PROC_FAULT_FLOOD] = "flood",     [PROC_FAULT_PROTOCOL] = "protocol",
		[PROC_FAULT_HEAP] = "heap",       [PROC_FAULT_STOPPED] = "stopped",
		[PROC_FAULT_LIMIT] = "limit",     [PROC_FAULT_SIGNAL] = "signal",
	};
	return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "fault";
}

/* ---- raw memory ------------------------------------------------------- */

/* The executable's load base, from /proc/PID/maps: the mapping of file
 * offset 0 of the executable (ASLR is off, but read it, do not assume). */
static bool load_base(struct proc_target *t, const struct proc_image *img)
{
	if (t->base_known || !img->pie)
		return t->base_known = true;
	char path[64], line[4400], exe[4096];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)t->pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	snprintf(path, sizeof path, "/proc/%d/maps", (int)t->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, off;
		int pos = 0;
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*u %n", &lo, &off, &pos) < 2 || !pos)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (off == 0 && strcmp(name, exe) == 0) {
			t->load_base = lo - img->first_vaddr;
			t->base_known = true;
			break;
		}
	}
	fclose(f);
	return t->base_known;
}

struct rawsum {
	XXH3_state_t *h;
	struct proc_obs *obs;
	uint64_t cap, total;
};

/* Hash [addr, addr+len) of the target and keep what fits under the cap:
 * read straight into the kept copy while it has room (the validators and
 * the store read it there), through a bounce buffer past the cap. */
static int hash_range(struct proc_target *t, struct rawsum *rs, uint64_t addr, uint64_t len)
{
	uint8_t buf[65536];
	uint64_t hdr[2] = {addr, len};
	XXH3_128bits_update(rs->h, hdr, sizeof hdr);
	while (len) {
		uint64_t room = rs->total < rs->cap ? rs->cap - rs->total : 0;
		size_t k = len < sizeof buf ? (size_t)len : sizeof buf;
		uint8_t *dst = buf;
		if (room >= len || room >= 1u << 20) { /* whole reads into the copy */
			k = len < (1u << 20) ? (size_t)len : 1u << 20;
			dst = proc_buf_room(&rs->obs->raw, k);
		}
		ssize_t r = pread(t->mem_fd, dst, k, (off_t)addr);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		XXH3_128bits_update(rs->h, dst, (size_t)r);
		if (dst != buf)
			rs->obs->raw.len += (size_t)r;
		else if (room)
			proc_buf_add(&rs->obs->raw, buf, (size_t)r < room ? (size_t)r : (size_t)room);
		rs->total += (uint64_t)r;
		addr += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* Validate the region header (its invariants from cmc_region.h). */
static const char *bad_header(const struct cmc_region_hdr *h, uint64_t base)
{
	if (h->magic != CMC_REGION_MAGIC) return "bad magic";
	if (h->version != CMC_REGION_VERSION) return "unknown version";
	if (h->hdr_size < sizeof *h) return "header too small";
	if (h->base != base) return "base does not match its address";
	if (h->size % 4096) return "size not page aligned";
	if (!(h->hdr_size <= h->data_off && h->data_off <= h->used && h->used <= h->size))
		return "offsets out of order (hdr_size <= data_off <= used <= size)";
	if (h->data_off % 16) return "data_off not 16-aligned";
	return NULL;
}

const char *proc_region_hdr(const struct proc_target *t, struct cmc_region_hdr *h)
{
	ssize_t r = pread(t->mem_fd, h, sizeof *h, (off_t)t->sc->heap_base);
	return r == (ssize_t)sizeof *h ? bad_header(h, t->sc->heap_base) : "not mapped";
}

static void fault(struct proc_obs *obs, enum proc_fault f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fault(struct proc_obs *obs, enum proc_fault f, const char *fmt, ...)
{
	if (obs->fault != PROC_FAULT_NONE)
		return; /* the first fault is the one reported */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(obs->fault_msg, sizeof obs->fault_msg, fmt, ap);
	va_end(ap);
	obs->fault = f;
}

static bool wants_alloc(const struct proc_scenario *sc)
{
	for (size_t i = 0; i < sc->nprops; i++)
		if (sc->props[i].kind == PROC_PROP_ALLOC)
			return true;
	return false;
}

/*
 * The heap window [lo, lo + len) into the raw fingerprint through its page
 * hashes (pages.h), the first raw-cap bytes of it into the kept copy, and
 * the allocator check over it.  Only the kept bytes are read whole, and
 * the whole window only when `property alloc` needs it past them; the
 * rest, only where pages changed since the snapshot this process came
 * from.  The validators run when `property alloc` asks, and otherwise
 * when the window is in the kept copy anyway (the stored status); past
 * that, obs->alloc_msg says the window was not checked.  -1: unreadable.
 */
static int observe_heap(struct proc_target *t, const struct cmc_region_hdr *h, struct rawsum *rs,
			const uint8_t **winp)
{
	struct proc_obs *obs = rs->obs;
	uint64_t lo = t->sc->heap_base + h->data_off, len = h->used - h->data_off;
	bool all = wants_alloc(t->sc) && h->alloc_kind == CMC_ALLOC_POOL && len > rs->cap &&
		   len <= PROC_ALLOC_MAX;
	uint64_t hdr[2] = {lo, len};
	XXH3_128bits_update(rs->h, hdr, sizeof hdr);
	const uint8_t *win = NULL;
	struct proc_pages *pg;
	if (all) {
		obs->win.len = 0;
		pg = proc_pages_hash(t, lo, lo + len, t->pages, &obs->win, len, &obs->bounce,
				     t->pages_cache);
		if (pg) {
			proc_buf_add(&obs->raw, obs->win.p, (size_t)rs->cap);
			win = obs->win.p;
		}
	} else {
		uint64_t pre = len < rs->cap ? len : rs->cap;
		size_t at = obs->raw.len;
		pg = proc_pages_hash(t, lo, lo + len, t->pages, &obs->raw, pre, &obs->bounce,
				     t->pages_cache);
		if (pg && pre == len)
			win = obs->raw.p + at;
	}
	if (!pg)
		return -1;
	XXH3_128bits_update(rs->h, pg->hash, pg->n * sizeof *pg->hash);
	rs->total += len;
	if (!t->pages_cache) {
		proc_pages_unref(pg); /* no snapshot is forked from it */
	} else if (!obs->pages_readonly || !t->pages_own) {
		proc_pages_unref(t->pages);
		t->pages = pg;
		t->pages_own = true;
	} else
		proc_pages_unref(pg);
	proc_alloc_check(t, h, win, wants_alloc(t->sc), obs);
	*winp = win;
	return 0;
}

/* `hash heap-graph`: the state's canonical fingerprint is the heap graph's
 * (heapgraph.h), walked over the window the raw hash left in hand (win,
 * or NULL); where no form can be made, the raw fingerprint stands in
 * (computed by the caller after this: obs->hg_msg is set and e.canon
 * stays zero). */
static void observe_graph(struct proc_target *t, const struct proc_image *img,
			  const struct cmc_region_hdr *h, const uint8_t *win, struct proc_obs *obs)
{
	if (img->nroots && !load_base(t, img)) {
		snprintf(obs->hg_msg, sizeof obs->hg_msg, "heap-graph: cannot find the executable's "
			 "load base in /proc/%d/maps", (int)t->pid);
		return;
	}
	if (proc_hg_observe(t, img, h, win, obs) < 0)
		obs->e.canon = (eng_fp){0, 0};
}

void proc_pages_settle(struct proc_target *t)
{
	struct cmc_region_hdr h;
	if (t->pages_own)
		return; /* observed since it was forked: its cache is its own */
	if (!t->pages || !t->sc->raw_heap || !t->preload_on || t->mem_fd < 0 ||
	    proc_region_hdr(t, &h)) {
		proc_pages_unref(t->pages);
		t->pages = NULL;
		t->pages_own = false;
		return;
	}
	uint64_t lo = t->sc->heap_base + h.data_off;
	struct proc_buf none = {0}, bounce = {0};
	struct proc_pages *pg = proc_pages_hash(t, lo, t->sc->heap_base + h.used, t->pages, &none, 0,
						&bounce, true);
	proc_buf_free(&bounce);
	proc_pages_unref(t->pages);
	t->pages = pg;
	t->pages_own = pg != NULL;
}

static void observe_raw(struct proc_target *t, const struct proc_image *img, struct proc_obs *obs)
{
	const struct proc_scenario *sc = t->sc;
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	struct rawsum rs = {&st, obs, sc->raw_cap, 0};
	if (t->preload_on) {
		/* The region header: raw hashing of the heap needs it, and so
		 * does the allocator check (observe_heap(), or below when raw
		 * does not cover the heap). */
		struct cmc_region_hdr h;
		const char *why = proc_region_hdr(t, &h);
		obs->no_region = why && !strcmp(why, "not mapped");
		if (why && sc->raw_heap) {
			fault(obs, PROC_FAULT_PROTOCOL,
			      "heap region at 0x%llx unreadable: %s (is the target dynamically linked, "
			      "so that the preload loads?)", (unsigned long long)sc->heap_base, why);
			return;
		}
		if (why) {
			snprintf(obs->alloc_msg, sizeof obs->alloc_msg, "heap region unreadable: %s", why);
		} else {
			obs->wait_ms = h.wait_ms;
			obs->alarm_ms = h.alarm_ms;
			obs->alarm_every_ms = h.alarm_every_ms;
			if (h.fault != CMC_FAULT_NONE)
				fault(obs, PROC_FAULT_HEAP, "preload fault %u in the region header", h.fault);
			const uint8_t *win = NULL;
			if (sc->raw_heap && observe_heap(t, &h, &rs, &win) < 0) {
				fault(obs, PROC_FAULT_PROTOCOL, "heap window [0x%llx, 0x%llx) unreadable",
				      (unsigned long long)(sc->heap_base + h.data_off),
				      (unsigned long long)(sc->heap_base + h.used));
				return;
			}
			if (!sc->raw_heap)
				proc_alloc_check(t, &h, NULL, wants_alloc(sc), obs);
			if (proc_ident_graph(sc->ident))
				observe_graph(t, img, &h, win, obs);
		}
	} else if (proc_ident_graph(sc->ident)) {
		snprintf(obs->hg_msg, sizeof obs->hg_msg, "heap-graph: no preload, no heap to walk");
	}
	if (img->nranges && !load_base(t, img)) {
		fault(obs, PROC_FAULT_PROTOCOL, "%s: cannot find the executable's load base in "
		      "/proc/%d/maps", sc->exe, (int)t->pid);
		return;
	}
	for (size_t i = 0; i < img->nranges; i++) {
		uint64_t a = img->ranges[i].addr + (img->pie ? t->load_base : 0);
		if (hash_range(t, &rs, a, img->ranges[i].len) < 0) {
			fault(obs, PROC_FAULT_PROTOCOL, "%s: %s at 0x%llx (%llu bytes) unreadable", sc->exe,
			      img->ranges[i].what, (unsigned long long)a,
			      (unsigned long long)img->ranges[i].len);
			return;
		}
	}
	XXH128_hash_t d = XXH3_128bits_digest(&st);
	obs->e.raw = (eng_fp){d.high64, d.low64};
	if (eng_fp_zero(obs->e.raw))
		obs->e.raw.lo = 1; /* zero means "absent" */
	if (proc_ident_graph(sc->ident) && eng_fp_zero(obs->e.canon)) {
		/* No heap-graph form: the raw identity, marked so it never
		 * equals a form (sound: nothing merges that raw would not). */
		static const char tag[] = "cmc heap-graph: raw";
		obs->e.canon = eng_fp_combine(obs->e.raw, eng_fp_of(tag, sizeof tag));
	}
	if (rs.total > rs.cap)
		obs->e.flags |= ENG_OBS_RAW_OVER;
}

/* What reading and hashing the raw window costs (the heap-graph walk
 * left out), for CMC_PROC_STATS and tests/bench/heapgraph.sh. */
static _Atomic uint64_t raw_n, raw_ns;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void observe_timed(struct proc_target *t, const struct proc_image *img, struct proc_obs *obs)
{
	struct proc_hg_stats a, b;
	proc_hg_totals(&a);
	uint64_t t0 = mono_ns();
	observe_raw(t, img, obs);
	uint64_t dt = mono_ns() - t0;
	proc_hg_totals(&b);
	/* other threads' walks may land in b - a: a figure, not an account */
	uint64_t walk = b.ns - a.ns;
	atomic_fetch_add(&raw_n, 1);
	atomic_fetch_add(&raw_ns, walk < dt ? dt - walk : 0);
}

void proc_observe_stats(uint64_t *n, uint64_t *ns)
{
	*n = atomic_load(&raw_n);
	*ns = atomic_load(&raw_ns);
}

/* ---- the observation --------------------------------------------------- */

/* A CMC_CTL_EXIT_LIVE record from the target: 0 when well formed (decoded
 * into obs->exit_live), -1 when it is not (a protocol fault). */
static int exit_live(const struct proc_buf *c, struct proc_obs *obs)
{
	_Static_assert(PROC_EXIT_LIVE_LIST == CMC_EXIT_LIVE_LIST, "one bound on both sides");
	struct proc_exit_live *x = &obs->exit_live;
	if (c->len < CMC_EXIT_LIVE_FIXED)
		return -1;
	const uint8_t *p = c->p;
	uint32_t n = proc_le32(p + 56);
	if (n > CMC_EXIT_LIVE_LIST || c->len != CMC_EXIT_LIVE_FIXED + n * CMC_EXIT_LIVE_ENTRY)
		return -1;
	*x = (struct proc_exit_live){
		.complete = proc_le32(p + 4) & CMC_EXIT_LIVE_COMPLETE,
		.n_blocks = proc_le64(p + 8), .bytes = proc_le64(p + 16),
		.n_lost = proc_le64(p + 24), .lost_bytes = proc_le64(p + 32),
		.n_libc = proc_le64(p + 40), .libc_bytes = proc_le64(p + 48),
		.n_listed = n,
	};
	if (x->n_lost > x->n_blocks || x->lost_bytes > x->bytes || n > x->n_blocks)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = p + CMC_EXIT_LIVE_FIXED + i * CMC_EXIT_LIVE_ENTRY;
		x->list[i].addr = proc_le64(e);
		x->list[i].size = proc_le64(e + 8);
		x->list[i].lost = proc_le64(e + 16) & CMC_EXIT_LIVE_LOST;
	}
	x->seen = true;
	return 0;
}

void proc_obs_set_end(struct proc_obs *obs, const struct proc_target *t)
{
	obs->e.flags |= t->signaled ? ENG_OBS_SIGNALED : ENG_OBS_EXITED;
	obs->e.exit_status = t->signaled ? 0 : WEXITSTATUS(t->status);
	obs->e.term_signal = t->signaled ? WTERMSIG(t->status) : 0;
}

static void observe_end(struct proc_target *t, struct proc_obs *obs)
{
	proc_obs_set_end(obs, t);
	/* The preload's fault convention: a control record and 112 + code. */
	const struct proc_buf *c = &t->ctl.last;
	uint32_t code = 0;
	if (c->len >= 8 && proc_le32(c->p) == CMC_CTL_FAULT)
		code = proc_le32(c->p + 4);
	else if (!t->signaled && WEXITSTATUS(t->status) > CMC_FAULT_EXIT_BASE &&
		 WEXITSTATUS(t->status) <= CMC_FAULT_EXIT_BASE + (int)CMC_FAULT_MAX)
		code = (uint32_t)(WEXITSTATUS(t->status) - CMC_FAULT_EXIT_BASE);
	if (code) {
		/* The message is target bytes: bounded here, escaped by printers. */
		int mlen = c->len > 8 ? (int)(c->len - 8 < 300 ? c->len - 8 : 300) : 0;
		fault(obs, PROC_FAULT_HEAP, "preload fault %u%s%.*s", code, mlen ? ": " : "", mlen,
		      mlen ? (const char *)c->p + 8 : "");
	} else if (c->len >= 4 && proc_le32(c->p) == CMC_CTL_EXIT_LIVE && !t->signaled &&
		   t->sc->exit_live && exit_live(c, obs) < 0) {
		fault(obs, PROC_FAULT_PROTOCOL, "malformed exit report on the control fd (%zu bytes)",
		      c->len);
	}
}

/* The preload's CMC_CTL_LIMIT record from this operation, if any: the
 * address-space limit refused the target a mapping.  First, so that it is
 * the fault reported even when the target then crashed or gave up. */
static void observe_limit(struct proc_target *t, struct proc_obs *obs)
{
	const struct proc_chan *c = &t->ctl;
	if (!c->sticky_seen[PROC_STICKY_LIMIT])
		return;
	const struct proc_buf *b = &c->sticky[PROC_STICKY_LIMIT];
	const uint8_t *p = b->p;
	if (b->len != CMC_CTL_LIMIT_LEN || proc_le32(p + 4) != CMC_LIMIT_AS) {
		fault(obs, PROC_FAULT_PROTOCOL, "malformed limit report on the control fd (%zu bytes)",
		      b->len);
		return;
	}
	/* The record is the target's word: believed only when it describes
	 * what cmc configured.  A limit below `limit as` is one the target
	 * set itself (setrlimit may lower it): its own business, no fault.
	 * Anything else (no `limit as`, a limit above it, a request that fit)
	 * is not what the preload sends. */
	uint64_t limit = proc_le64(p + 8), req = proc_le64(p + 16), mapped = proc_le64(p + 24);
	uint64_t as = t->sc->limit_as;
	if (as && limit < as)
		return;
	if (!as || limit != as || req == 0 || mapped > limit || req <= limit - mapped) {
		fault(obs, PROC_FAULT_PROTOCOL, "limit report on the control fd that does not match "
		      "the configured `limit as` (%llu): limit %llu, requested %llu, mapped %llu",
		      (unsigned long long)as, (unsigned long long)limit, (unsigned long long)req,
		      (unsigned long long)mapped);
		return;
	}
	fault(obs, PROC_FAULT_LIMIT, "the address-space limit of %llu bytes (limit as) refused the "
	      "target a mapping of %llu bytes (%llu already mapped)", (unsigned long long)limit,
	      (unsigned long long)req, (unsigned long long)mapped);
}

void proc_observe(struct proc_target *t, const struct proc_image *img, enum proc_wait w,
		  struct proc_obs *obs)
{
	observe_limit(t, obs);
	proc_buf_set(&obs->reply, t->reply.p, t->reply.len);
	if (t->canon.complete) {
		obs->e.flags |= ENG_OBS_CANON;
		proc_buf_set(&obs->canon, t->canon.last.p, t->canon.last.len);
		/* Under heap-graph the record is kept (plugins read it) but the
		 * canonical fingerprint is the walk's (observe_graph). */
		if (!proc_ident_graph(t->sc->ident))
			obs->e.canon = eng_fp_of(obs->canon.p ? obs->canon.p : (const uint8_t *)"",
						 obs->canon.len);
	}
	if (t->snap_fault[0])
		fault(obs, PROC_FAULT_PROTOCOL, "the target sent %s on the snapshot socket (fd %d, "
		      "cmc_region.h section 5)", t->snap_fault, CMC_SNAP_FD_DEFAULT);
	switch (w) {
	case PROC_QUIESCENT:
		/* Quiescent means every write has landed and was drained: a
		 * record still in progress is truncated, not late. */
		if (t->canon.hdr_got)
			fault(obs, PROC_FAULT_PROTOCOL, "truncated record on the canonical fd: %s",
			      t->canon.hdr_got < 8 ? "partial header" : "payload shorter than its length");
		observe_timed(t, img, obs);
		proc_files_observe(t, obs);
		break;
	case PROC_GONE:
		observe_end(t, obs);
		proc_files_observe(t, obs); /* what it left on disk, as it ended */
		break;
	case PROC_TIMEOUT:
		fault(obs, PROC_FAULT_TIMEOUT, "target not quiescent after %u ms (hung, or waiting on "
		      "something other than its input)", t->sc->timeout_ms);
		break;
	case PROC_FLOOD:
		fault(obs, PROC_FAULT_FLOOD, "target wrote more than %llu bytes for one operation "
		      "(reply-cap)", (unsigned long long)t->reply_cap);
		break;
	case PROC_BADCHAN:
		fault(obs, PROC_FAULT_PROTOCOL, "malformed record on the %s fd (bad magic or length)",
		      t->canon.bad ? "canonical" : "control");
		break;
	case PROC_STOPPED:
		fault(obs, PROC_FAULT_STOPPED, "target stopped (state T)");
		break;
	case PROC_INTERRUPTED:
		fault(obs, PROC_FAULT_START, "interrupted");
		break;
	}
	if (t->peer_closed)
		obs->e.flags |= ENG_OBS_CLOSED;
	proc_jail_observe(t->jail, t->sc, obs);
	proc_signal_take(t, obs);
	proc_obs_seal(obs);
}

int proc_threads(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

const char *proc_anon_fd(pid_t pid, const char *const *kinds, size_t n, char fd[16])
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	const char *found = NULL;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		char lp[64 + sizeof e->d_name], target[64];
		if (e->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof lp, "%s/%s", path, e->d_name);
		ssize_t k = readlink(lp, target, sizeof target - 1);
		if (k <= 12 || strncmp(target, "anon_inode:[", 12) != 0)
			continue;
		target[k] = 0;
		for (size_t i = 0; i < n && !found; i++) {
			size_t kl = strlen(kinds[i]);
			if (!strncmp(target + 12, kinds[i], kl) && target[12 + kl] == ']') {
				snprintf(fd, 16, "%.12s", e->d_name);
				found = kinds[i];
			}
		}
	}
	closedir(d);
	return found;
}

const char *proc_real_timer(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/timers", (int)pid);
	FILE *f = fopen(path, "r");
	if (f) {
		char line[128];
		bool any = fgets(line, sizeof line, f) != NULL;
		fclose(f);
		if (any)
			return "a POSIX timer";
	}
	static const char *const timerfd[] = {"timerfd"};
	char fd[16];
	return proc_anon_fd(pid, timerfd, 1, fd) ? "a timerfd" : NULL;
}
