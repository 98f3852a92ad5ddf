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
 * The chunk grows while its expansions are quick (models) and stays small
 * while they are slow (processes), so a stop request is answered promptly.
 * A chunk whose admission stopped early (a violation) keeps its remaining
 * slots for the next run() call, so continuing never loses a state.
 *
 * Invariant: between steps, slots [admit_next, nslots) of the current chunk
 * are expanded and not yet admitted; they precede everything in the queue.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"
#include "util.h"

#define CHUNK_MIN 4
#define CHUNK_MAX 4096
#define NONE32 UINT32_MAX

/* One serialised successor; its variable parts follow it in the slot. */
struct __attribute__((aligned(16))) xrec {
	eng_fp fp;
	uint32_t size;          /* whole record, padded to 16 */
	uint32_t pre;           /* id found in the parallel phase, or NONE32 */
	uint32_t label_len, state_len, prop_len, viol_len; /* NONE32: NULL */
	uint8_t has_state, terminal, has_obs;
	eng_fp raw, canon;
	unsigned flags;
	int exit_status, term_signal;
	uint32_t alloc_failed, alloc_checked;
	uint32_t raw_len, canon_len, reply_len, fault_len; /* NONE32: NULL */
};

struct slot {
	uint32_t id, depth;
	unsigned char *in;      /* the state's bytes, copied from the queue */
	size_t in_len, in_cap;
	unsigned char *buf;     /* its successors, serialised */
	size_t len, cap;
	uint32_t nsucc;
	int rc;
};

struct eng_pool {
	eng_search *s;
	unsigned n;             /* threads, this one included */
	pthread_t *th;
	eng_frontend **fe;      /* per thread; fe[0] is the search's */
	pthread_barrier_t go, done;
	struct slot *slots;
	size_t nslots, slots_cap, admit_next, chunk;
	atomic_size_t next;
	bool quit;
};

struct xctx {
	struct eng_pool *p;
	struct slot *sl;
};

static void put(struct slot *sl, const void *p, size_t n)
{
	if (sl->len + n > sl->cap) {
		sl->cap = (sl->len + n) * 2 + 256;
		sl->buf = eng_xrealloc(sl->buf, sl->cap);
	}
	if (n)
		memcpy(sl->buf + sl->len, p, n);
	sl->len += n;
}

static uint32_t put_str(struct slot *sl, const char *s)
{
	if (!s)
		return NONE32;
	size_t n = strlen(s);
	put(sl, s, n + 1);
	return (uint32_t)n;
}

static uint32_t put_bytes(struct slot *sl, const void *p, size_t n)
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
	struct slot *sl = c->sl;
	size_t at = sl->len;
	struct xrec r;
	memset(&r, 0, sizeof r);
	put(sl, &r, sizeof r);
	r.fp = x->fp;
	r.pre = x->state ? fpset_get(c->p->s->set, x->fp) : NONE32;
	/* the state first: it lands 16-byte aligned, as frontends expect */
	r.has_state = x->state != NULL;
	r.state_len = x->state ? put_bytes(sl, x->state, x->state_len) : NONE32;
	r.label_len = put_str(sl, x->label);
	r.prop_len = put_str(sl, x->property);
	r.viol_len = put_str(sl, x->violation);
	r.terminal = x->terminal;
	if (x->obs) {
		const eng_obs *o = x->obs;
		r.has_obs = 1;
		r.raw = o->raw;
		r.canon = o->canon;
		r.flags = o->flags;
		r.exit_status = o->exit_status;
		r.term_signal = o->term_signal;
		r.alloc_failed = o->alloc_failed;
		r.alloc_checked = o->alloc_checked;
		r.raw_len = put_bytes(sl, o->raw_bytes, o->raw_len);
		r.canon_len = put_bytes(sl, o->canon_rec, o->canon_len);
		r.reply_len = put_bytes(sl, o->reply, o->reply_len);
		r.fault_len = put_str(sl, o->fault);
	}
	size_t pad = (16 - (sl->len - at) % 16) % 16;
	static const unsigned char zeros[16];
	put(sl, zeros, pad);
	r.size = (uint32_t)(sl->len - at);
	memcpy(sl->buf + at, &r, sizeof r);
	sl->nsucc++;
	return true;
}

static void expand_slots(struct eng_pool *p, unsigned w)
{
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->nslots)
			return;
		struct slot *sl = &p->slots[i];
		struct xctx c = {p, sl};
		sl->len = 0;
		sl->nsucc = 0;
		sl->rc = p->fe[w]->ops->next(p->fe[w], sl->in, sl->in_len, x_cb, &c);
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
	for (size_t i = 0; i < p->slots_cap; i++) {
		free(p->slots[i].in);
		free(p->slots[i].buf);
	}
	free(p->slots);
	free(p->fe);
	free(p->th);
	free(p);
	s->pool = NULL;
}

bool eng__pool_pending(const eng_search *s)
{
	return s->pool && s->pool->admit_next < s->pool->nslots;
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

/* Admit slot i's successors in order; false when the search must stop. */
static bool admit_slot(eng_search *s, struct slot *sl)
{
	s->cur_id = sl->id;
	s->cur_depth = sl->depth;
	s->cur_succ = sl->nsucc;
	if (sl->rc < 0) {
		eng__fail(s, "cannot expand a state");
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
		x.label = str_at(&v, r.label_len);
		x.property = str_at(&v, r.prop_len);
		x.violation = str_at(&v, r.viol_len);
		x.terminal = r.terminal;
		if (r.has_obs) {
			o.raw = r.raw;
			o.canon = r.canon;
			o.flags = r.flags;
			o.exit_status = r.exit_status;
			o.term_signal = r.term_signal;
			o.alloc_failed = r.alloc_failed;
			o.alloc_checked = r.alloc_checked;
			o.raw_bytes = bytes_at(&v, r.raw_len);
			o.raw_len = r.raw_len == NONE32 ? 0 : r.raw_len;
			o.canon_rec = bytes_at(&v, r.canon_len);
			o.canon_len = r.canon_len == NONE32 ? 0 : r.canon_len;
			o.reply = bytes_at(&v, r.reply_len);
			o.reply_len = r.reply_len == NONE32 ? 0 : r.reply_len;
			o.fault = str_at(&v, r.fault_len);
			x.obs = &o;
		}
		go = eng__admit(s, &x, sl->id, sl->depth + 1, r.pre);
		q += r.size;
	}
	if (sl->nsucc == 0 && s->o.check_deadlock && !s->fe->deadlock_ok)
		eng__add_pending(s, sl->id, ENG_NO_STATE, NULL, "deadlock", "no action is enabled");
	eng__flush_pending(s);
	return !s->stop && !s->failed;
}

void eng__pool_step(eng_search *s)
{
	struct eng_pool *p = s->pool;
	if (p->admit_next >= p->nslots) { /* take and expand a new chunk */
		size_t want = p->chunk;
		if (want > p->slots_cap) {
			p->slots = eng_xrealloc(p->slots, want * sizeof *p->slots);
			memset(p->slots + p->slots_cap, 0, (want - p->slots_cap) * sizeof *p->slots);
			p->slots_cap = want;
		}
		size_t n = 0;
		eng_qentry e;
		while (n < want && eng_queue_pop(s->q, &e)) {
			struct slot *sl = &p->slots[n++];
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
		p->nslots = n;
		p->admit_next = 0;
		atomic_store(&p->next, 0);
		double t0 = eng_now();
		pthread_barrier_wait(&p->go);
		expand_slots(p, 0);
		pthread_barrier_wait(&p->done);
		double dt = eng_now() - t0;
		if (dt < 0.02 && p->chunk < CHUNK_MAX)
			p->chunk *= 2;
		else if (dt > 0.2 && p->chunk > CHUNK_MIN * p->n)
			p->chunk /= 2;
	}
	while (p->admit_next < p->nslots) {
		struct slot *sl = &p->slots[p->admit_next++];
		if (!admit_slot(s, sl))
			break;
	}
}
