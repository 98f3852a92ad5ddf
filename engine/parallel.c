/*
 * parallel.c — breadth-first search on several threads with results that
 * do not depend on how many.
 *
 * The frontier is taken a chunk at a time, in queue order.  Workers expand
 * the chunk's states concurrently, each through its own frontend (clone()),
 * and serialise every successor into the slot of the state it came from,
 * looking its fingerprint up in the visited set on the way: the set is only
 * read during this phase, so the lookups run in parallel and most duplicates
 * are settled there.  Then one thread admits the successors slot by slot, in
 * chunk order, exactly as a one-thread search would have: the same ids, the
 * same counts, the same listener calls in the same order, the same first
 * violation.  Only successors not found in the parallel phase are looked up
 * again (an earlier successor of the same chunk may have added them).
 *
 * Pipelined: while one thread admits a chunk, the others already expand
 * the next one (the states after it in the queue: which states a chunk
 * holds never depends on the admission before it, as the queue is FIFO).
 * The admitting thread joins that expansion when it is done.  So the
 * admission, which is serial, no longer leaves every other core idle.
 * During the overlap the workers read the visited set while the admitting
 * thread adds to it: fpset.c publishes each slot after its record, and
 * never moves records or the chunk table; only a rebuild of its index
 * would pull the ground from under a reader, so before an insert that
 * would grow the index the admitting thread first waits for the workers
 * (sync_ahead()).  A lookup that misses a state added meanwhile only
 * leaves it to the admission to find, as for any duplicate within a chunk.
 *
 * The chunk grows while its expansions are quick (models) and stays small
 * while they are slow (processes), so a stop request is answered promptly.
 * A chunk whose admission stopped early (a violation) keeps its remaining
 * slots, and the next chunk its expanded ones, for the next run() call, so
 * continuing never loses a state.
 *
 * The slot rule is written above struct eng_pool (pool_is_valid()).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "search_int.h"
#include "labels.h"
#include "util.h"

#define CHUNK_MIN 4
#define CHUNK_MAX 4096
#define NONE32 UINT32_MAX
#define GRAB 8 /* slots a worker takes at once: one lookup batch */

/*
 * One serialised successor.  The state's bytes follow the header (16-byte
 * aligned, as frontends expect); when has_ext, a struct
 * xext and its strings and observation bytes follow.  Plain successors (a
 * model's) are header + state + label, about one cache line: the records
 * cross from a worker's core to the admitting one, and that traffic is what
 * parallel search pays.
 */
struct __attribute__((aligned(16))) xrec {
	eng_fp fp;
	uint32_t size;          /* whole record, padded to 16 */
	uint32_t pre;           /* id found by lookup(), or NONE32 */
	uint32_t dups_before;   /* duplicates compact() dropped just before it */
	const char *label;      /* interned in the worker's table */
	uint32_t state_len;
	uint8_t has_state, terminal, has_ext;
};

struct xext {
	uint32_t prop_len, viol_len;                   /* NONE32: NULL */
	uint8_t has_obs;
	eng_fp raw, canon, files;
	unsigned flags;
	int exit_status, term_signal;
	uint32_t alloc_failed, alloc_checked;
	uint32_t raw_len, canon_len, reply_len, fault_len; /* NONE32: NULL */
	uint32_t files_len;                            /* NONE32: NULL */
};

struct slot {
	uint32_t id, depth;
	unsigned char *in;      /* the state's bytes, copied from the queue */
	size_t in_len, in_cap;
	unsigned char *buf;     /* its successors, serialised */
	size_t len, cap;
	uint32_t nsucc;         /* successors produced (deadlock: none) */
	uint32_t dups_tail;     /* duplicates dropped after the last record */
	int rc;
	size_t scr_off, scr_len; /* its records in the worker's scratch */
};

/*
 * A worker's scratch: successors are serialised here first, on memory only
 * this core touches, looked up, and only the records the admitting thread
 * needs are copied into the slot.  Writing straight into slots made every
 * record cross cores twice (the slots were last read by the admitter).
 */
struct wbuf {
	unsigned char *buf;
	size_t len, cap;
};

/* A chunk: the states taken from the queue, and their successors. */
struct cset {
	struct slot *slots;
	size_t n, cap;
	atomic_size_t next;     /* the first slot no thread has taken yet */
};

/*
 * Invariant (pool_is_valid()): between steps no worker runs (!ahead);
 * slots [admit_next, n) of set[cur] and, when have_next, all of
 * set[cur ^ 1] are expanded (every slot taken: next >= n) and not yet
 * admitted, in that order: their ids rise, as the queue handed them out,
 * and they precede everything in the queue.  Each such slot's records fill
 * its buffer exactly, each a multiple of 16 bytes, no more of them than
 * the successors it produced, and a lookup's answer (pre) is an id the
 * visited set has handed out.
 */
struct eng_pool {
	eng_search *s;
	unsigned n;             /* threads, this one included */
	pthread_t *th;
	eng_frontend **fe;      /* per thread; fe[0] is the search's */
	pthread_barrier_t go, done;
	struct cset set[2];
	unsigned cur;           /* set[cur] is being admitted, from admit_next */
	size_t admit_next, chunk;
	bool have_next;         /* set[cur ^ 1] is expanded, after set[cur] */
	bool ahead;             /* the workers are expanding set[cur ^ 1] now */
	struct cset *work;      /* the chunk a go..done round expands */
	bool quit;
	bool drop_dups;         /* no listener wants transitions */
	bool obs_bytes;         /* some listener reads observations' bytes */
	struct wbuf *scratch;   /* per thread */
	/* per thread; the search's listeners see these copies, so they live
	 * as long as the search (the pool is freed with it) */
	eng_labels **labels;
};

struct xctx {
	struct eng_pool *p;
	struct wbuf *sl;
	eng_labels *labels;
	uint32_t depth; /* of the successors */
};

static void put(struct wbuf *sl, const void *p, size_t n)
{
	if (sl->len + n > sl->cap) {
		sl->cap = (sl->len + n) * 2 + 256;
		sl->buf = eng_xrealloc(sl->buf, sl->cap);
	}
	if (n)
		memcpy(sl->buf + sl->len, p, n);
	sl->len += n;
}

static uint32_t put_str(struct wbuf *sl, const char *s)
{
	if (!s)
		return NONE32;
	size_t n = strlen(s);
	put(sl, s, n + 1);
	return (uint32_t)n;
}

static uint32_t put_bytes(struct wbuf *sl, const void *p, size_t n)
{
	if (!p)
		return NONE32;
	put(sl, p, n);
	return (uint32_t)n;
}

/* Runs on a worker: serialise one successor into its state's slot. */
static bool x_cb(void *ctx, const eng_succ *x)
{
	struct xctx *c = ctx;
	struct wbuf *sl = c->sl;
	size_t at = sl->len;
	/* the set is read-only while workers run (lookup()) */
	const eng_opts *o = &c->p->s->o;
	if (x->wanted && x->state &&
	    (x->terminal || (o->max_depth && c->depth >= o->max_depth) ||
	     fpset_get(c->p->s->set, x->fp) != NONE32))
		*x->wanted = false;
	struct xrec r = {x->fp,	     0,	       NONE32, 0, eng_labels_intern(c->labels, x->label),
			 NONE32, x->state != NULL, x->terminal, 0};
	put(sl, &r, sizeof r);
	if (x->state)
		r.state_len = put_bytes(sl, x->state, x->state_len);
	if (x->property || x->violation || x->obs) {
		struct xext e;
		memset(&e, 0, sizeof e);
		size_t eat = sl->len;
		r.has_ext = 1;
		put(sl, &e, sizeof e);
		e.prop_len = put_str(sl, x->property);
		e.viol_len = put_str(sl, x->violation);
		if (x->obs) {
			const eng_obs *o = x->obs;
			e.has_obs = 1;
			e.raw = o->raw;
			e.canon = o->canon;
			e.files = o->files;
			e.flags = o->flags;
			e.exit_status = o->exit_status;
			e.term_signal = o->term_signal;
			e.alloc_failed = o->alloc_failed;
			e.alloc_checked = o->alloc_checked;
			bool bytes = c->p->obs_bytes;
			e.raw_len = put_bytes(sl, bytes ? o->raw_bytes : NULL, o->raw_len);
			e.canon_len = put_bytes(sl, bytes ? o->canon_rec : NULL, o->canon_len);
			e.reply_len = put_bytes(sl, bytes ? o->reply : NULL, o->reply_len);
			e.fault_len = put_str(sl, bytes ? o->fault : NULL);
			e.files_len = put_bytes(sl, bytes ? o->files_sum : NULL, o->files_len);
		}
		memcpy(sl->buf + eat, &e, sizeof e);
	}
	size_t pad = (16 - (sl->len - at) % 16) % 16;
	static const unsigned char zeros[16];
	put(sl, zeros, pad);
	r.size = (uint32_t)(sl->len - at);
	memcpy(sl->buf + at, &r, sizeof r);
	return true;
}

/*
 * Look up every successor of slots [a, b) in the visited set, in three
 * passes so the cache misses overlap: start loading each index slot, then
 * each record a slot points at, then compare.  The set is read-only while
 * workers run.
 */
static void lookup(struct eng_pool *p, struct wbuf *w, size_t a, size_t b)
{
	const fpset *set = p->s->set;
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = a; i < b; i++) {
			struct slot *sl = &p->work->slots[i];
			for (size_t off = sl->scr_off; off < sl->scr_off + sl->scr_len;) {
				struct xrec *r = (struct xrec *)(w->buf + off);
				if (r->has_state) {
					if (pass == 0)
						fpset_prefetch_slot(set, r->fp);
					else if (pass == 1)
						fpset_prefetch_record(set, r->fp);
					else
						r->pre = fpset_get(set, r->fp);
				}
				off += r->size;
			}
		}
}

/*
 * Without transition listeners a duplicate only counts: drop it here, on
 * the worker's core, and leave the count beside the next record so the
 * admitting thread counts generated states exactly where a one-thread
 * search would (which matters when it stops at a violation).
 */
static void compact(struct eng_pool *p, struct wbuf *w, struct slot *sl)
{
	size_t rd = sl->scr_off, end = sl->scr_off + sl->scr_len;
	uint32_t dups = 0;
	sl->len = 0;
	sl->nsucc = 0;
	while (rd < end) {
		struct xrec *r = (struct xrec *)(w->buf + rd);
		size_t size = r->size;
		sl->nsucc++;
		if (p->drop_dups && r->has_state && !r->has_ext && r->pre != NONE32) {
			dups++;
		} else {
			r->dups_before = dups;
			dups = 0;
			if (sl->len + size > sl->cap) {
				sl->cap = (sl->len + size) * 2 + 256;
				sl->buf = eng_xrealloc(sl->buf, sl->cap);
			}
			memcpy(sl->buf + sl->len, r, size);
			sl->len += size;
		}
		rd += size;
	}
	sl->dups_tail = dups;
}

static void expand_slots(struct eng_pool *p, unsigned w)
{
	struct wbuf *scr = &p->scratch[w];
	struct cset *cs = p->work;
	for (;;) {
		/* Guided: a share of what is left, so the chunk's last slots
		 * are spread over the workers (a process state takes
		 * milliseconds to expand: eight of them in one grab left the
		 * other workers idle at the chunk's end). */
		size_t seen = atomic_load(&cs->next), g = GRAB;
		if (seen < cs->n && (cs->n - seen) / (2 * p->n) < g)
			g = (cs->n - seen) / (2 * p->n);
		if (g < 1)
			g = 1;
		size_t a = atomic_fetch_add(&cs->next, g);
		if (a >= cs->n)
			return;
		size_t b = a + g < cs->n ? a + g : cs->n;
		scr->len = 0;
		for (size_t i = a; i < b; i++) {
			struct slot *sl = &cs->slots[i];
			struct xctx c = {p, scr, p->labels[w], sl->depth + 1};
			sl->scr_off = scr->len;
			sl->rc = p->fe[w]->ops->next(p->fe[w], sl->in, sl->in_len, x_cb, &c);
			sl->scr_len = scr->len - sl->scr_off;
		}
		lookup(p, scr, a, b);
		for (size_t i = a; i < b; i++)
			compact(p, scr, &cs->slots[i]);
	}
}

struct worker_arg {
	struct eng_pool *p;
	unsigned w;
};

static void *worker(void *arg)
{
	struct worker_arg *a = arg;
	struct eng_pool *p = a->p;
	unsigned w = a->w;
	free(a);
	for (;;) {
		pthread_barrier_wait(&p->go);
		if (p->quit)
			return NULL;
		expand_slots(p, w);
		pthread_barrier_wait(&p->done);
	}
}

int eng__pool_start(eng_search *s)
{
	if (!s->fe->ops->clone)
		return -1;
	struct eng_pool *p = eng_xcalloc(1, sizeof *p);
	p->s = s;
	p->n = s->o.jobs;
	p->fe = eng_xcalloc(p->n, sizeof *p->fe);
	p->fe[0] = s->fe;
	for (unsigned w = 1; w < p->n; w++) {
		p->fe[w] = s->fe->ops->clone(s->fe);
		if (!p->fe[w]) {
			for (unsigned k = 1; k < w; k++)
				if (p->fe[k] != s->fe)
					p->fe[k]->ops->destroy(p->fe[k]);
			free(p->fe);
			free(p);
			return -1;
		}
	}
	pthread_barrier_init(&p->go, NULL, p->n);
	pthread_barrier_init(&p->done, NULL, p->n);
	p->th = eng_xcalloc(p->n, sizeof *p->th);
	for (unsigned w = 1; w < p->n; w++) {
		struct worker_arg *a = eng_xmalloc(sizeof *a);
		a->p = p;
		a->w = w;
		if (pthread_create(&p->th[w], NULL, worker, a) != 0)
			eng_die("cannot start a worker thread");
	}
	p->chunk = CHUNK_MIN * p->n;
	p->scratch = eng_xcalloc(p->n, sizeof *p->scratch);
	p->labels = eng_xcalloc(p->n, sizeof *p->labels);
	for (unsigned w = 0; w < p->n; w++)
		p->labels[w] = eng_labels_new();
	p->drop_dups = true;
	for (size_t i = 0; i < s->nls; i++) {
		const eng_listener *l = &s->ls[i];
		if (l->on_transition || l->on_edges)
			p->drop_dups = false;
		if ((l->on_state || l->on_transition || l->on_edges) && !l->no_obs_bytes)
			p->obs_bytes = true;
	}
	s->pool = p;
	return 0;
}

void eng__pool_free(eng_search *s)
{
	struct eng_pool *p = s->pool;
	if (!p)
		return;
	p->quit = true;
	pthread_barrier_wait(&p->go);
	for (unsigned w = 1; w < p->n; w++)
		pthread_join(p->th[w], NULL);
	pthread_barrier_destroy(&p->go);
	pthread_barrier_destroy(&p->done);
	for (unsigned w = 1; w < p->n; w++)
		if (p->fe[w] != s->fe)
			p->fe[w]->ops->destroy(p->fe[w]);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < p->set[k].cap; i++) {
			free(p->set[k].slots[i].in);
			free(p->set[k].slots[i].buf);
		}
		free(p->set[k].slots);
	}
	for (unsigned w = 0; w < p->n; w++)
		free(p->scratch[w].buf);
	free(p->scratch);
	for (unsigned w = 0; w < p->n; w++)
		eng_labels_free(p->labels[w]);
	free(p->labels);
	free(p->fe);
	free(p->th);
	free(p);
	s->pool = NULL;
}

bool eng__pool_pending(const eng_search *s)
{
	const struct eng_pool *p = s->pool;
	return p && (p->admit_next < p->set[p->cur].n || p->have_next);
}

static const char *str_at(const unsigned char **q, uint32_t len)
{
	if (len == NONE32)
		return NULL;
	const char *r = (const char *)*q;
	*q += len + 1;
	return r;
}

static const void *bytes_at(const unsigned char **q, uint32_t len)
{
	if (len == NONE32)
		return NULL;
	const void *r = *q;
	*q += len;
	return r;
}

static void count_dups(eng_search *s, uint32_t n)
{
	s->st.generated += n;
	s->st.transitions += n;
}

static void sync_ahead(struct eng_pool *p);

/* The expanded, not yet admitted slots [from, cs->n) of cs; *last: the id
 * of the slot before them (NONE32: none), then of their last. */
static void pending_check(const struct eng_pool *p, const struct cset *cs, size_t from,
			  uint32_t *last)
{
	uint64_t count = fpset_count(p->s->set);
	CMC_VALID(cs->n <= cs->cap && from <= cs->n, "pool slots: %zu to admit from %zu of %zu (room for %zu)",
		  cs->n - from, from, cs->n, cs->cap);
	CMC_VALID(from == cs->n || atomic_load(&cs->next) >= cs->n,
		  "pool slots: slot %zu of %zu was never taken by a worker", atomic_load(&cs->next), cs->n);
	for (size_t i = from; i < cs->n; i++) {
		const struct slot *sl = &cs->slots[i];
		CMC_VALID(*last == NONE32 || sl->id > *last,
			  "pool slots: slot %zu (state %u) comes after state %u: not in queue order", i, sl->id,
			  *last);
		CMC_VALID(sl->id < count, "pool slots: slot %zu holds state %u, the set has %llu", i, sl->id,
			  (unsigned long long)count);
		*last = sl->id;
		CMC_VALID(sl->len <= sl->cap, "pool slots: slot %zu holds %zu bytes in %zu", i, sl->len, sl->cap);
		uint32_t recs = 0;
		for (size_t off = 0; off < sl->len;) {
			struct xrec r;
			CMC_VALID(sl->len - off >= sizeof r, "pool slots: slot %zu ends inside a record at %zu", i, off);
			memcpy(&r, sl->buf + off, sizeof r);
			CMC_VALID(r.size >= sizeof r && r.size % 16 == 0 && r.size <= sl->len - off,
				  "pool slots: slot %zu has a record of %u bytes at %zu of %zu", i, r.size, off,
				  sl->len);
			CMC_VALID(r.pre == NONE32 || r.pre < count,
				  "pool slots: slot %zu's successor was looked up as state %u, the set has %llu", i,
				  r.pre, (unsigned long long)count);
			off += r.size;
			recs++;
		}
		CMC_VALID(recs <= sl->nsucc, "pool slots: slot %zu holds %u records of %u successors", i, recs,
			  sl->nsucc);
	}
}

/* The invariant above struct eng_pool; on the search's thread, between
 * steps (no worker runs then). */
static bool pool_is_valid(const struct eng_pool *p)
{
	CMC_VALID(!p->ahead, "pool: a worker still runs between steps");
	CMC_VALID(p->cur < 2, "pool: chunk %u of two", p->cur);
	CMC_VALID(p->chunk >= CHUNK_MIN, "pool: a chunk of %zu states", p->chunk);
	uint32_t last = NONE32;
	pending_check(p, &p->set[p->cur], p->admit_next, &last);
	if (p->have_next)
		pending_check(p, &p->set[p->cur ^ 1], 0, &last);
	return true;
}

bool eng__pool_is_valid(const eng_search *s)
{
	return !s->pool || pool_is_valid(s->pool);
}

/* Admit a slot's successors in order; false when the search must stop. */
static bool admit_slot(eng_search *s, struct slot *sl)
{
	s->cur_id = sl->id;
	s->cur_depth = sl->depth;
	s->cur_succ = sl->nsucc;
	if (sl->rc < 0) {
		/* interrupted (eng_search_stop()): a stop, left whole for later */
		if (!s->asked)
			eng__fail(s, "cannot expand a state");
		s->dropped = true;
		return false;
	}
	const unsigned char *q = sl->buf, *end = sl->buf + sl->len;
	bool go = true;
	while (q < end && go) {
		struct xrec r;
		memcpy(&r, q, sizeof r);
		const unsigned char *v = q + sizeof r;
		eng_succ x = {0};
		eng_obs o = {0};
		x.fp = r.fp;
		x.state = r.has_state ? bytes_at(&v, r.state_len) : NULL;
		x.state_len = r.has_state ? r.state_len : 0;
		x.label = r.label;
		x.terminal = r.terminal;
		if (r.has_ext) {
			struct xext e;
			memcpy(&e, v, sizeof e);
			v += sizeof e;
			x.property = str_at(&v, e.prop_len);
			x.violation = str_at(&v, e.viol_len);
			if (e.has_obs) {
				o.raw = e.raw;
				o.canon = e.canon;
				o.files = e.files;
				o.flags = e.flags;
				o.exit_status = e.exit_status;
				o.term_signal = e.term_signal;
				o.alloc_failed = e.alloc_failed;
				o.alloc_checked = e.alloc_checked;
				o.raw_bytes = bytes_at(&v, e.raw_len);
				o.raw_len = e.raw_len == NONE32 ? 0 : e.raw_len;
				o.canon_rec = bytes_at(&v, e.canon_len);
				o.canon_len = e.canon_len == NONE32 ? 0 : e.canon_len;
				o.reply = bytes_at(&v, e.reply_len);
				o.reply_len = e.reply_len == NONE32 ? 0 : e.reply_len;
				o.fault = str_at(&v, e.fault_len);
				o.files_sum = bytes_at(&v, e.files_len);
				o.files_len = e.files_len == NONE32 ? 0 : e.files_len;
				x.obs = &o;
			}
		}
		count_dups(s, r.dups_before);
		/* A successor the worker could not know to be unwanted (a
		 * duplicate of an earlier one in this chunk): the frontend
		 * may let go of it once admission says so. */
		bool wanted = true;
		if (r.has_state && r.pre == NONE32 && s->fe->ops->forget)
			x.wanted = &wanted;
		if (r.has_state && r.pre == NONE32 && s->pool->ahead && fpset_will_grow(s->set))
			sync_ahead(s->pool);
		go = eng__admit(s, &x, sl->id, sl->depth + 1, r.pre);
		if (!wanted)
			s->fe->ops->forget(s->fe, x.state, x.state_len);
		if (x.obs)
			eng__edges_flush(s); /* o is this iteration's */
		q += r.size;
	}
	eng__edges_flush(s); /* their labels are in the slot's buffer */
	if (go)
		count_dups(s, sl->dups_tail);
	if (sl->nsucc == 0 && s->o.check_deadlock && !s->fe->deadlock_ok)
		eng__add_pending(s, sl->id, ENG_NO_STATE, NULL, (eng_fp){0, 0}, "deadlock", "no action is enabled");
	eng__flush_pending(s);
	return !s->stop && !s->failed;
}

/* Take up to `want` states from the queue into cs. */
static void fill(eng_search *s, struct cset *cs, size_t want)
{
	if (want > cs->cap) {
		cs->slots = eng_xrealloc(cs->slots, want * sizeof *cs->slots);
		memset(cs->slots + cs->cap, 0, (want - cs->cap) * sizeof *cs->slots);
		cs->cap = want;
	}
	size_t n = 0;
	eng_qentry e;
	while (n < want && eng_queue_pop(s->q, &e)) {
		struct slot *sl = &cs->slots[n++];
		sl->id = e.id;
		sl->depth = e.depth;
		if (e.len > sl->in_cap) {
			sl->in = eng_xrealloc(sl->in, e.len);
			sl->in_cap = e.len;
		}
		if (e.len)
			memcpy(sl->in, e.state, e.len);
		sl->in_len = e.len;
	}
	cs->n = n;
	atomic_store(&cs->next, 0);
}

/* The chunk grows while a round is quick and shrinks while it is slow. */
static void adapt(struct eng_pool *p, double dt)
{
	if (dt < 0.02 && p->chunk < CHUNK_MAX)
		p->chunk *= 2;
	else if (dt > 0.2 && p->chunk > CHUNK_MIN * p->n)
		p->chunk /= 2;
}

/* The expansion running ahead, finished with this thread's help. */
static void sync_ahead(struct eng_pool *p)
{
	if (!p->ahead)
		return;
	expand_slots(p, 0);
	pthread_barrier_wait(&p->done);
	p->ahead = false;
	p->have_next = true;
}

void eng__pool_step(eng_search *s, bool overlap)
{
	struct eng_pool *p = s->pool;
	CMC_ASSERT_INTERNAL(pool_is_valid(p));
	if (p->admit_next >= p->set[p->cur].n) {
		p->admit_next = 0;
		if (p->have_next) { /* expanded during the last admission */
			p->cur ^= 1;
			p->have_next = false;
		} else { /* take and expand a new chunk */
			struct cset *cs = &p->set[p->cur];
			fill(s, cs, p->chunk);
			p->work = cs;
			double t0 = eng_now();
			pthread_barrier_wait(&p->go);
			expand_slots(p, 0);
			pthread_barrier_wait(&p->done);
			adapt(p, eng_now() - t0);
		}
	}
	struct cset *cs = &p->set[p->cur];
	double t0 = eng_now();
	if (overlap && !p->have_next) { /* the next chunk, meanwhile */
		struct cset *nx = &p->set[p->cur ^ 1];
		fill(s, nx, p->chunk);
		if (nx->n) {
			p->work = nx;
			pthread_barrier_wait(&p->go);
			p->ahead = true;
		}
	}
	while (p->admit_next < cs->n) {
		/* successors still unknown will be inserted: start loading
		 * where they go, a few slots ahead */
		size_t ahead = p->admit_next + GRAB;
		if (ahead < cs->n) {
			struct slot *sl = &cs->slots[ahead];
			for (size_t off = 0; off < sl->len;) {
				struct xrec *r = (struct xrec *)(sl->buf + off);
				if (r->has_state && r->pre == NONE32)
					fpset_prefetch_slot(s->set, r->fp);
				off += r->size;
			}
		}
		struct slot *sl = &cs->slots[p->admit_next++];
		if (!admit_slot(s, sl))
			break;
	}
	if (p->ahead) {
		sync_ahead(p);
		adapt(p, eng_now() - t0);
	}
	CMC_ASSERT_INTERNAL(pool_is_valid(p));
}
