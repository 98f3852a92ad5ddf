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
 * That is the ordinary admission, which process mode uses (a state takes
 * milliseconds to expand there, and admission is cheap beside it).  A
 * model's state costs less to expand than to admit, so for frontends with
 * nothing to forget the part of admission that costs — finding and
 * numbering the new states — runs on every thread too: "bulk admission",
 * below, with the measurements that shaped it (tests/bench/cores.sh: no
 * atomic or dependent access per successor between cores).
 *
 * A model whose listeners want no transitions (no on_transition, no
 * on_edges: a search without a store) goes to level.c instead, where
 * every thread also finds and numbers what it owns; search.c chooses.
 *
 * The slot rule is written above struct eng_pool (pool_is_valid()).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "check.h"
#include "search_int.h"
#include "labels.h"
#include "util.h"

#define CHUNK_MIN 4
#define CHUNK_MAX 4096
#define NONE32 UINT32_MAX
#define GRAB 8 /* slots a worker takes at once: one lookup batch */
/* Bulk: at most this many slots at once (still looked up GRAB at a time).
 * The grab is an atomic add on a line every worker takes: an exchange
 * between cores that costs about half a state's expansion.  Processes
 * never run in bulk, so a grab of models' states stays short. */
#define BULK_GRAB 64
/* Winners whose records the bulk admission starts loading ahead: they
 * were written on another core. */
#define ADMIT_AHEAD 4

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
	uint32_t ent;           /* bulk: its place among its worker's unfound
				 * successors; after the win round its entry
				 * in its owner's chunk table; a winner's id
				 * once placed */
	const char *label;      /* interned in the worker's table */
	uint32_t state_len;
	uint8_t has_state, terminal, has_ext;
	uint8_t win;            /* bulk: the successor that adds its state */
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
	unsigned w;             /* bulk: the worker that expanded it */
	uint32_t win_at, win_n; /* bulk: its winners in that worker's list */
	uint32_t cut_tail;      /* bulk: duplicates squeeze() dropped after
				 * its last record */
};

/* Bulk admission (bulk_step()): the slots [a, b) one worker expanded at
 * once, the states they add, and the first id those take (base, counted
 * from the set's size before the chunk). */
struct grp {
	size_t a, b;
	uint64_t wins, base;
};

/* A successor that adds its state: its record, the duplicates counted
 * just before it (in its slot), and check()'s verdicts on it. */
struct win {
	size_t off;
	uint32_t dups_before;
	uint32_t v_at, v_n;
	uint32_t u;             /* its place among the worker's unfound */
};

/* An unfound successor as its owner sees it (bulk): a fixed-size entry,
 * so that the owner reads another worker's list as a stream, never
 * walking that worker's records (each record's size says where the next
 * one starts: one dependent miss after another). */
struct uent {
	eng_fp fp;
	uint32_t slot;          /* in the chunk */
	uint32_t u;             /* its place among its worker's unfound */
};

/* A worker's unfound successors for one owner, in slot order. */
struct ulist {
	struct uent *e;
	size_t n, cap;
};

/* An entry of an owner's chunk table: a state the chunk reaches that the
 * visited set did not hold (lo 0: free), and its id once numbered. */
struct cent {
	uint64_t lo, hi;
	uint32_t id;
};

/* A winner as its owner found it: its entry, its worker and its place
 * among that worker's unfound (where the worker leaves its id). */
struct owin {
	uint32_t e;
	unsigned w;
	uint32_t u;
};

/*
 * Thread q's share of a bulk chunk's numbering: the fingerprints of the
 * visited set's subtables q, q + n, ... (its parts; owner_of()).  Only
 * thread q writes it (the claim and index rounds); the others read tab
 * and res after a barrier.  No atomics: a state is only ever claimed, and
 * its subtable only ever written, by its owner.
 * Invariant (after the claim round): tab holds each state of q's parts
 * that the chunk's unfound successors reach, once, at a free-marked
 * (lo 0) table of tab_cap entries, a power of two, at most half full;
 * won lists one winner per entry, in admission order (slot, then record),
 * the first successor to reach it; res[ubase + u] of each of q's parts'
 * unfound successors (u: its place among its worker's) is its entry << 1
 * | (1 when it won); add counts the winners by subtable.
 */
struct __attribute__((aligned(64))) owner {
	struct cent *tab;
	size_t tab_cap, tab_room;
	uint32_t *res;
	size_t res_room;
	struct owin *won;
	size_t nwon, won_room;
	uint64_t add[FPSET_SUBS];
};

/*
 * A worker's scratch: successors are serialised here first, on memory only
 * this core touches, looked up, and only the records the admitting thread
 * needs are copied into the slot.  Writing straight into slots made every
 * record cross cores twice (the slots were last read by the admitter).
 */
struct __attribute__((aligned(64))) wbuf { /* each on cache lines of its own */
	unsigned char *buf;
	size_t len, cap;
	/* bulk: the chunk's groups, winners and verdicts, this worker's */
	struct grp *g;
	size_t ng, gcap;
	struct win *win;
	size_t nwin, wcap;
	eng_verdict *v;
	size_t nv, vcap;
	uint64_t unfound;       /* successors the set did not hold */
	uint64_t ubase;         /* bulk: the unfound of the workers before */
	struct ulist *ul;       /* bulk: per owner, the unfound of its parts */
	uint32_t *uid;          /* bulk: by place among the unfound, a
				 * winner's id (place round) */
	size_t uid_cap;
	bool odd;               /* a successor bulk admission does not take */
};

/* A chunk: the states taken from the queue, and their successors. */
struct cset {
	struct slot *slots;
	size_t n, cap;
	atomic_size_t next;     /* the first slot no thread has taken yet */
	struct wbuf *scr;       /* per thread: where it serialises them */
	bool raw;               /* bulk: expanded, its records still in scr,
				 * not yet numbered */
};

/*
 * Invariant (pool_is_valid()): between steps no worker runs (!ahead);
 * slots [admit_next, n) of set[cur] and, when have_next, all of
 * set[cur ^ 1] are expanded (every slot taken: next >= n) and not yet
 * admitted, in that order: their ids rise, as the queue handed them out,
 * and they precede everything in the queue.  Each such slot's records fill
 * its buffer exactly, each a multiple of 16 bytes, no more of them than
 * the successors it produced, and a lookup's answer (pre) is an id the
 * visited set has handed out.  Its buffer is the slot's own, except in a
 * raw chunk (bulk: set[cur ^ 1] only, expanded and not yet numbered),
 * whose records are still in the scratch of the worker that made them.
 */
struct eng_pool {
	eng_search *s;
	unsigned n;             /* threads, this one included */
	pthread_t *th;
	eng_frontend **fe;      /* per thread; fe[0] is the search's */
	eng_barrier go, done;
	struct cset set[2];
	unsigned cur;           /* set[cur] is being admitted, from admit_next */
	size_t admit_next, chunk;
	bool have_next;         /* set[cur ^ 1] is expanded, after set[cur] */
	bool ahead;             /* the workers are expanding set[cur ^ 1] now */
	struct cset *work;      /* the chunk a go..done round expands */
	bool quit;
	bool drop_dups;         /* no listener wants transitions */
	/* per thread; the search's listeners see these copies, so they live
	 * as long as the search (the pool is freed with it) */
	eng_labels **labels;
	/* bulk admission: no worker runs ahead, and each chunk is numbered
	 * in parallel before its one-thread admission (bulk_step()) */
	bool bulk;
	int phase;              /* what a go..done round does (enum phase) */
	struct owner *own;      /* per thread: its parts of the chunk */
	unsigned char owner[FPSET_SUBS]; /* each subtable's: i % n */
	uint64_t unfound;       /* the chunk's unfound successors */
	uint64_t count0;        /* the set's size before the chunk */
	uint64_t keep_from;     /* an expansion's lookups: ids from here on
				 * may still be taken back (squeeze()) */
	uint32_t *par;          /* parents of the chunk's new states, by id */
	size_t par_cap;
};

enum phase { PH_EXPAND, PH_CLAIM, PH_WIN, PH_PLACE, PH_INDEX };

struct xctx {
	struct eng_pool *p;
	struct wbuf *sl;
	eng_labels *labels;
	uint32_t depth; /* of the successors */
	uint32_t nsucc; /* the expanded slot's count */
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
	c->nsucc++;
	/* the set is read-only while workers run (lookup()) */
	const eng_opts *o = &c->p->s->o;
	if (x->wanted && x->state &&
	    (x->terminal || (o->max_depth && c->depth >= o->max_depth) ||
	     fpset_get(c->p->s->set, x->fp) != NONE32))
		*x->wanted = false;
	struct xrec r = {x->fp,	   0,	 NONE32, 0, NONE32, eng_labels_intern(c->labels, x->label),
			 NONE32, x->state != NULL, x->terminal, 0, 0};
	if (x->fp.lo == 0 && x->state) /* the chunk table's free mark */
		sl->odd = true;
	put(sl, &r, sizeof r);
	if (x->state)
		r.state_len = put_bytes(sl, x->state, x->state_len);
	if (x->property || x->violation || x->obs) {
		sl->odd = true;
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
			bool bytes = c->p->s->obs_bytes;
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

/* The thread that numbers fp's state: the owner of its subtable. */
static unsigned owner_of(const struct eng_pool *p, eng_fp fp)
{
	return p->owner[fpset_sub(fp)];
}

static void ul_push(struct ulist *l, eng_fp fp, size_t slot, uint32_t u)
{
	if (l->n == l->cap) {
		l->cap = l->cap * 2 + 256;
		l->e = eng_xrealloc(l->e, l->cap * sizeof *l->e);
	}
	l->e[l->n++] = (struct uent){fp, (uint32_t)slot, u};
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
					else if ((r->pre = fpset_get(set, r->fp)) == NONE32) {
						r->ent = (uint32_t)w->unfound++;
						if (p->bulk)
							ul_push(&w->ul[owner_of(p, r->fp)], r->fp, i, r->ent);
					}
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
	while (rd < end) {
		struct xrec *r = (struct xrec *)(w->buf + rd);
		size_t size = r->size;
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

/*
 * Bulk, without transition listeners: drop the successors the set already
 * held for good (ids below keep_from: no stop can take them back) from
 * slots [a, b) right after their lookup, counting them beside the next
 * record as compact() does, so a chunk holds only what may be new.  The
 * slots are this worker's, one after the other in its scratch.
 */
static void squeeze(const struct eng_pool *p, struct cset *cs, struct wbuf *scr, size_t a, size_t b)
{
	size_t wr = cs->slots[a].scr_off;
	for (size_t i = a; i < b; i++) {
		struct slot *sl = &cs->slots[i];
		size_t rd = sl->scr_off, end = sl->scr_off + sl->scr_len;
		uint32_t dups = 0;
		sl->scr_off = wr;
		while (rd < end) {
			struct xrec *r = (struct xrec *)(scr->buf + rd);
			size_t size = r->size;
			if (r->has_state && !r->has_ext && r->pre != NONE32 && r->pre < p->keep_from) {
				dups++;
			} else {
				r->dups_before = dups;
				dups = 0;
				if (wr != rd)
					memmove(scr->buf + wr, r, size);
				wr += size;
			}
			rd += size;
		}
		sl->scr_len = wr - sl->scr_off;
		sl->cut_tail = dups;
	}
	scr->len = wr;
}

/* Expand slots [a, b) of a grab that ends at end, on worker w, and look
 * their successors up. */
static void expand_batch(struct eng_pool *p, unsigned w, size_t a, size_t b, size_t end)
{
	struct cset *cs = p->work;
	struct wbuf *scr = &cs->scr[w];
	for (size_t i = a; i < b; i++) {
		struct slot *sl = &cs->slots[i];
		/* the queue's states were copied here by the search's thread
		 * (fill()): load the next one's while this one expands, and
		 * its slot the step before */
		if (i + 2 < end)
			__builtin_prefetch(&cs->slots[i + 2]);
		if (i + 1 < end)
			__builtin_prefetch(cs->slots[i + 1].in);
		sl->cut_tail = 0;
		struct xctx c = {p, scr, p->labels[w], sl->depth + 1, 0};
		sl->w = w;
		sl->scr_off = scr->len;
		sl->rc = p->fe[w]->ops->next(p->fe[w], sl->in, sl->in_len, x_cb, &c);
		sl->nsucc = c.nsucc;
		sl->scr_len = scr->len - sl->scr_off;
	}
	lookup(p, scr, a, b);
	if (p->bulk && p->drop_dups)
		squeeze(p, cs, scr, a, b);
}

static void expand_slots(struct eng_pool *p, unsigned w)
{
	struct cset *cs = p->work;
	struct wbuf *scr = &cs->scr[w];
	for (;;) {
		/* Guided: a share of what is left, so the chunk's last slots
		 * are spread over the workers (a process state takes
		 * milliseconds to expand: eight of them in one grab left the
		 * other workers idle at the chunk's end). */
		size_t seen = atomic_load(&cs->next), g = p->bulk ? BULK_GRAB : GRAB;
		if (seen < cs->n && (cs->n - seen) / (2 * p->n) < g)
			g = (cs->n - seen) / (2 * p->n);
		if (g < 1)
			g = 1;
		size_t a = atomic_fetch_add(&cs->next, g);
		if (a >= cs->n)
			return;
		size_t b = a + g < cs->n ? a + g : cs->n;
		if (!p->bulk) /* bulk: the records stay here for the chunk */
			scr->len = 0;
		for (size_t c0 = a; c0 < b; c0 += GRAB) /* one lookup batch each */
			expand_batch(p, w, c0, c0 + GRAB < b ? c0 + GRAB : b, b);
		if (p->bulk) {
			if (scr->ng == scr->gcap) {
				scr->gcap = scr->gcap * 2 + 16;
				scr->g = eng_xrealloc(scr->g, scr->gcap * sizeof *scr->g);
			}
			scr->g[scr->ng++] = (struct grp){a, b, 0, 0};
			continue;
		}
		for (size_t i = a; i < b; i++)
			compact(p, scr, &cs->slots[i]);
	}
}

static void claim_slots(struct eng_pool *p, unsigned w);
static void free_verdicts(struct eng_pool *p, struct cset *cs);
static void win_slots(struct eng_pool *p, unsigned w);
static void place_slots(struct eng_pool *p, unsigned w);
static void index_slots(struct eng_pool *p, unsigned w);

/* A go..done round's share of one thread. */
static void run_phase(struct eng_pool *p, unsigned w)
{
	switch (p->phase) {
	case PH_EXPAND:
		expand_slots(p, w);
		break;
	case PH_CLAIM:
		claim_slots(p, w);
		break;
	case PH_WIN:
		win_slots(p, w);
		break;
	case PH_PLACE:
		place_slots(p, w);
		break;
	default:
		index_slots(p, w);
		break;
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
		eng_barrier_wait(&p->go);
		if (p->quit)
			return NULL;
		run_phase(p, w);
		eng_barrier_wait(&p->done);
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
	eng_barrier_init(&p->go, p->n);
	eng_barrier_init(&p->done, p->n);
	p->th = eng_xcalloc(p->n, sizeof *p->th);
	for (unsigned w = 1; w < p->n; w++) {
		struct worker_arg *a = eng_xmalloc(sizeof *a);
		a->p = p;
		a->w = w;
		if (pthread_create(&p->th[w], NULL, worker, a) != 0)
			eng_die("cannot start a worker thread");
	}
	p->chunk = CHUNK_MIN * p->n;
	for (int k = 0; k < 2; k++) {
		if (posix_memalign((void **)&p->set[k].scr, 64, p->n * sizeof *p->set[k].scr))
			eng_die("out of memory");
		memset(p->set[k].scr, 0, p->n * sizeof *p->set[k].scr);
		for (unsigned w = 0; w < p->n; w++)
			p->set[k].scr[w].ul = eng_xcalloc(p->n, sizeof *p->set[k].scr[w].ul);
	}
	for (unsigned t = 0; t < FPSET_SUBS; t++)
		p->owner[t] = (unsigned char)(t % p->n);
	if (posix_memalign((void **)&p->own, 64, p->n * sizeof *p->own))
		eng_die("out of memory");
	memset(p->own, 0, p->n * sizeof *p->own);
	p->labels = eng_xcalloc(p->n, sizeof *p->labels);
	for (unsigned w = 0; w < p->n; w++)
		p->labels[w] = eng_labels_new();
	p->drop_dups = true;
	p->bulk = !s->fe->ops->forget;

	for (size_t i = 0; i < s->nls; i++) {
		const eng_listener *l = &s->ls[i];
		if (l->on_transition || l->on_edges)
			p->drop_dups = false;
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
	eng_barrier_wait(&p->go);
	for (unsigned w = 1; w < p->n; w++)
		pthread_join(p->th[w], NULL);
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
	for (int k = 0; k < 2; k++) {
		struct cset *cs = &p->set[k];
		free_verdicts(p, cs);
		for (unsigned w = 0; w < p->n; w++) {
			free(cs->scr[w].buf);
			free(cs->scr[w].g);
			free(cs->scr[w].win);
			free(cs->scr[w].v);
			free(cs->scr[w].uid);
			for (unsigned q = 0; q < p->n; q++)
				free(cs->scr[w].ul[q].e);
			free(cs->scr[w].ul);
		}
		free(cs->scr);
	}
	for (unsigned w = 0; w < p->n; w++) {
		free(p->own[w].tab);
		free(p->own[w].res);
		free(p->own[w].won);
	}
	free(p->own);
	free(p->par);
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
		const unsigned char *buf = sl->buf;
		size_t len = sl->len;
		if (cs->raw) { /* still in the worker's scratch */
			CMC_VALID(sl->w < p->n && sl->scr_off + sl->scr_len <= cs->scr[sl->w].len,
				  "pool slots: slot %zu's records lie outside worker %u's %zu bytes", i, sl->w,
				  sl->w < p->n ? cs->scr[sl->w].len : 0);
			buf = cs->scr[sl->w].buf + sl->scr_off;
			len = sl->scr_len;
		} else {
			CMC_VALID(sl->len <= sl->cap, "pool slots: slot %zu holds %zu bytes in %zu", i, sl->len,
				  sl->cap);
		}
		uint32_t recs = 0;
		for (size_t off = 0; off < len;) {
			struct xrec r;
			CMC_VALID(len - off >= sizeof r, "pool slots: slot %zu ends inside a record at %zu", i, off);
			memcpy(&r, buf + off, sizeof r);
			CMC_VALID(r.size >= sizeof r && r.size % 16 == 0 && r.size <= len - off,
				  "pool slots: slot %zu has a record of %u bytes at %zu of %zu", i, r.size, off, len);
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
	CMC_VALID(!p->set[p->cur].raw && (p->bulk || !p->set[p->cur ^ 1].raw) &&
			  (p->have_next || !p->set[p->cur ^ 1].raw),
		  "pool: a chunk left unnumbered that is not the next one of a bulk search");
	CMC_VALID(p->cur < 2, "pool: chunk %u of two", p->cur);
	CMC_VALID(p->chunk >= 1, "pool: a chunk of %zu states", p->chunk);
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
		if (r.has_state && r.pre == NONE32 && s->pool->ahead && fpset_will_grow(s->set, r.fp))
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
	free_verdicts(s->pool, cs);
	for (unsigned w = 0; w < s->pool->n; w++) {
		struct wbuf *scr = &cs->scr[w];
		scr->len = scr->ng = scr->nwin = 0;
		scr->unfound = 0;
		for (unsigned q = 0; q < s->pool->n; q++)
			scr->ul[q].n = 0;
		scr->odd = false;
	}
	cs->raw = false;
}

/* What a chunk's expansion holds: its slots' serialised successors. */
static size_t chunk_bytes(const struct cset *cs)
{
	size_t b = 0;
	for (size_t i = 0; i < cs->n; i++)
		b += cs->slots[i].len + cs->slots[i].scr_len;
	return b;
}

/* The chunk grows while a round is quick and shrinks while it is slow,
 * and while the chunk just expanded (cs) holds more than CHUNK_BYTES: a
 * process's successors carry their observations (a reply or a raw window
 * of a megabyte each), and two chunks are held at once.  (Quick rounds of
 * 1 MiB replies grew the chunk to the whole frontier: t6600's peak RSS
 * was 164 MB on --jobs 2 against 48 MB on one.) */
#define CHUNK_BYTES ((size_t)16 << 20)
static void adapt(struct eng_pool *p, double dt, const struct cset *cs)
{
	size_t bytes = chunk_bytes(cs);
	if (bytes > CHUNK_BYTES) {
		if (p->chunk / 2 >= p->n) /* down to a state a worker */
			p->chunk /= 2;
	} else if (dt < 0.02 && p->chunk < CHUNK_MAX && bytes <= CHUNK_BYTES / 2) {
		p->chunk *= 2;
	} else if (dt > 0.2 && p->chunk > CHUNK_MIN * p->n) {
		p->chunk /= 2;
	}
}

/* The expansion running ahead, finished with this thread's help. */
static void sync_ahead(struct eng_pool *p)
{
	if (!p->ahead)
		return;
	expand_slots(p, 0);
	eng_barrier_wait(&p->done);
	p->ahead = false;
	p->have_next = true;
	p->work->raw = p->bulk;
}


/* ---- bulk admission ------------------------------------------------------
 *
 * For frontends whose successors are plain (models: no observation, no
 * verdict on the transition, nothing to forget), the part of admission
 * that costs — numbering the states no one has seen — runs on every
 * thread, and only what must be in order (the queue, the listeners, the
 * counts, the violations) stays on one.
 *
 * Communication-avoiding: on the machines this runs on, a cache line
 * handed from one core to another and read at once costs about half of
 * a model state's whole expansion (tests/bench/cores.sh), and an atomic
 * read-modify-write on a line another core touched costs that much too;
 * lines read as streams, or as independent loads, cost little.  So no
 * step below does an atomic operation per successor, and what crosses
 * cores is read as a stream or loaded ahead.  Each thread q owns the
 * visited set's subtables (fpset.h) q, q + n, ... (owner_of()), and with
 * them every state whose fingerprint falls there.  After the expansion,
 * which looked every successor up in the set and left each worker's
 * unfound ones in a list per owner (struct uent):
 *
 *   claim  each owner merges the workers' lists for it by slot (admission
 *          order) and enters each state in a table of its own (struct
 *          owner): the first successor to get there wins, the one a
 *          one-thread search would have admitted first; every successor
 *          learns its entry and whether it won (res);
 *   win    each worker marks its winners slot by slot, runs check() on
 *          them, and counts them per group;
 *   (one thread: a prefix sum over the groups in slot order gives each
 *          group its first id; the set makes room: fpset_reserve())
 *   place  each worker gives its winners their ids, in order from their
 *          group's first, and writes their records (fpset_place());
 *   index  each owner enters its winners in its own subtables with plain
 *          stores (fpset_index()) and their ids in its table, for the
 *          successors that lost;
 *   (one thread: fpset_commit() hands the ids out with their parents;
 *          then the chunk is admitted slot by slot with every answer
 *          known (bulk_admit()), while the other threads expand the next
 *          chunk: the set does not change during an admission, so their
 *          lookups can run beside it)
 *
 * So every id, count and listener call is the one-thread search's.  An
 * admission that stops part-way (a violation, a stop request) takes back
 * the ids it did not reach (fpset_truncate()) and turns the slots after it,
 * and the chunk expanded meanwhile, into the ordinary form (to_ordinary())
 * for the ordinary admission to finish.  A chunk with a successor bulk
 * admission does not take (an observation, a verdict on the transition, a
 * fingerprint whose low half is 0), or that would pass the state bound or
 * the set's limits, is admitted the ordinary way, whole.
 */

static struct xrec *rec_at(const struct cset *cs, unsigned w, size_t off)
{
	return (struct xrec *)(cs->scr[w].buf + off);
}

/* Entries whose table slot the claim round starts loading ahead. */
#define CLAIM_AHEAD 8

static size_t ctab_hash(eng_fp fp, size_t mask)
{
	return (size_t)(fp.hi >> 8) & mask;
}

/*
 * The claim round, on thread q: every unfound successor of q's parts, in
 * admission order (the workers' lists for q merged by slot; each list is
 * in slot order, and within a slot in record order), takes or finds its
 * state's entry in q's own table.  The first to take it wins: the one a
 * one-thread search would have admitted first.
 */
static void claim_slots(struct eng_pool *p, unsigned q)
{
	const struct cset *cs = p->work;
	struct owner *o = &p->own[q];
	uint64_t mine = 0;
	for (unsigned w = 0; w < p->n; w++)
		mine += cs->scr[w].ul[q].n;
	memset(o->add, 0, sizeof o->add);
	o->nwon = 0;
	if (p->unfound > o->res_room) {
		free(o->res);
		o->res_room = p->unfound;
		o->res = eng_xmalloc(o->res_room * sizeof *o->res);
	}
	if (!mine)
		return;
	size_t cap = 64;
	while (cap < 2 * mine)
		cap *= 2;
	if (cap > o->tab_room) {
		free(o->tab);
		o->tab = eng_xmalloc(cap * sizeof *o->tab);
		o->tab_room = cap;
	}
	memset(o->tab, 0, cap * sizeof *o->tab);
	o->tab_cap = cap;
	if (mine > o->won_room) {
		free(o->won);
		o->won_room = mine;
		o->won = eng_xmalloc(o->won_room * sizeof *o->won);
	}
	size_t mask = cap - 1;
	size_t at[p->n];
	memset(at, 0, sizeof at);
	for (;;) {
		/* the list whose next entry comes first, and where the next
		 * of any other list starts: take the first one's run before it */
		unsigned best = p->n;
		uint32_t bs = UINT32_MAX, until = UINT32_MAX;
		for (unsigned w = 0; w < p->n; w++) {
			const struct ulist *l = &cs->scr[w].ul[q];
			if (at[w] == l->n)
				continue;
			uint32_t sl = l->e[at[w]].slot;
			if (sl < bs) {
				until = bs;
				bs = sl;
				best = w;
			} else if (sl < until) {
				until = sl;
			}
		}
		if (best == p->n)
			break;
		const struct ulist *l = &cs->scr[best].ul[q];
		uint64_t ubase = cs->scr[best].ubase;
		for (size_t k = at[best]; k < l->n && l->e[k].slot < until; k++, at[best]++) {
			if (k + CLAIM_AHEAD < l->n)
				__builtin_prefetch(&o->tab[ctab_hash(l->e[k + CLAIM_AHEAD].fp, mask)]);
			const struct uent *u = &l->e[k];
			size_t e = ctab_hash(u->fp, mask);
			while (o->tab[e].lo && (o->tab[e].lo != u->fp.lo || o->tab[e].hi != u->fp.hi))
				e = (e + 1) & mask;
			uint32_t won = 0;
			if (!o->tab[e].lo) {
				o->tab[e] = (struct cent){u->fp.lo, u->fp.hi, NONE32};
				o->won[o->nwon++] = (struct owin){(uint32_t)e, best, u->u};
				o->add[fpset_sub(u->fp)]++;
				won = 1;
			}
			o->res[ubase + u->u] = (uint32_t)e << 1 | won;
		}
	}
}

static void collect(void *ctx, const char *property, const char *message)
{
	struct wbuf *scr = ctx;
	if (scr->nv == scr->vcap) {
		scr->vcap = scr->vcap * 2 + 16;
		scr->v = eng_xrealloc(scr->v, scr->vcap * sizeof *scr->v);
	}
	scr->v[scr->nv++] = (eng_verdict){eng_xstrdup(property ? property : "assert"),
					  eng_xstrdup(message ? message : "")};
}

/* The win round, on each worker over its own slots: learn from the owners
 * which of its successors won, judge the winners (check()), count them
 * per group and the rest as duplicates. */
static void win_slots(struct eng_pool *p, unsigned w)
{
	struct cset *cs = p->work;
	struct wbuf *scr = &cs->scr[w];
	eng_frontend *fe = p->fe[w];
	for (size_t k = 0; k < scr->ng; k++) {
		struct grp *g = &scr->g[k];
		g->wins = 0;
		for (size_t i = g->a; i < g->b; i++) {
			struct slot *sl = &cs->slots[i];
			uint32_t dups = 0;
			sl->win_at = (uint32_t)scr->nwin;
			for (size_t off = sl->scr_off; off < sl->scr_off + sl->scr_len;) {
				struct xrec *r = rec_at(cs, w, off);
				off += r->size;
				dups += r->dups_before;
				r->win = 0;
				uint32_t u = r->ent;
				if (r->has_state && r->pre == NONE32) {
					uint32_t v = p->own[owner_of(p, r->fp)].res[scr->ubase + u];
					r->ent = v >> 1;
					r->win = v & 1;
				}
				if (!r->win) {
					dups++;
					continue;
				}
				if (scr->nwin == scr->wcap) {
					scr->wcap = scr->wcap * 2 + 64;
					scr->win = eng_xrealloc(scr->win, scr->wcap * sizeof *scr->win);
				}
				struct win *x = &scr->win[scr->nwin++];
				x->off = (size_t)((unsigned char *)r - scr->buf);
				x->dups_before = dups;
				x->u = u;
				dups = 0;
				x->v_at = (uint32_t)scr->nv;
				if (fe->ops->check)
					fe->ops->check(fe, r + 1, r->state_len, NULL, collect, scr);
				x->v_n = (uint32_t)(scr->nv - x->v_at);
			}
			sl->win_n = (uint32_t)(scr->nwin - sl->win_at);
			sl->dups_tail = dups + sl->cut_tail;
			g->wins += sl->win_n;
		}
	}
}

/* The place round, on each worker: its winners' ids, in order from their
 * group's first, into their records (ent), the set's records and the
 * parents.  Each writes only its own ids' entries. */
static void place_slots(struct eng_pool *p, unsigned w)
{
	const struct cset *cs = p->work;
	struct wbuf *scr = &cs->scr[w];
	fpset *set = p->s->set;
	if (scr->unfound > scr->uid_cap) {
		free(scr->uid);
		scr->uid_cap = scr->unfound;
		scr->uid = eng_xmalloc(scr->uid_cap * sizeof *scr->uid);
	}
	for (size_t k = 0; k < scr->ng; k++) {
		const struct grp *g = &scr->g[k];
		uint64_t id = p->count0 + g->base;
		for (size_t i = g->a; i < g->b; i++) {
			const struct slot *sl = &cs->slots[i];
			for (uint32_t j = sl->win_at; j < sl->win_at + sl->win_n; j++, id++) {
				struct xrec *r = rec_at(cs, w, scr->win[j].off);
				r->ent = (uint32_t)id;
				scr->uid[scr->win[j].u] = (uint32_t)id;
				fpset_place(set, (uint32_t)id, r->fp);
				p->par[id - p->count0] = sl->id;
			}
		}
	}
}

/* Winners whose records and index slots the index round loads ahead. */
#define INDEX_AHEAD 16

/* The index round, on thread q: its parts' winners into its own subtables
 * (plain stores), their ids into its table for the successors that lost. */
static void index_slots(struct eng_pool *p, unsigned q)
{
	const struct cset *cs = p->work;
	struct owner *o = &p->own[q];
	fpset *set = p->s->set;
	for (size_t j = 0; j < o->nwon; j++) {
		if (j + INDEX_AHEAD < o->nwon) {
			const struct cent *a = &o->tab[o->won[j + INDEX_AHEAD].e];
			fpset_prefetch_slot(set, (eng_fp){a->hi, a->lo});
		}
		const struct owin *x = &o->won[j];
		struct cent *c = &o->tab[x->e];
		c->id = cs->scr[x->w].uid[x->u];
		fpset_index(set, c->id, (eng_fp){c->hi, c->lo});
	}
}

static void free_verdicts(struct eng_pool *p, struct cset *cs)
{
	for (unsigned w = 0; w < p->n; w++) {
		struct wbuf *scr = &cs->scr[w];
		for (size_t i = 0; i < scr->nv; i++) {
			free((char *)scr->v[i].property);
			free((char *)scr->v[i].message);
		}
		scr->nv = 0;
	}
}

/* One go..done round of `ph` over p->work on every thread. */

static void round_of(struct eng_pool *p, int ph)
{
	p->phase = ph;
	eng_barrier_wait(&p->go);
	run_phase(p, 0);
	eng_barrier_wait(&p->done);
	p->phase = PH_EXPAND;
}

/* Slot sl of cs, in a buffer of its own as the ordinary admission takes
 * it: every record, with only the set's answers below `known` (a state
 * numbered since is found again by fpset_put()). */
static void to_ordinary(const struct cset *cs, struct slot *sl, uint64_t known)
{
	const struct wbuf *scr = &cs->scr[sl->w];
	if (sl->scr_len > sl->cap) {
		sl->cap = sl->scr_len;
		sl->buf = eng_xrealloc(sl->buf, sl->cap);
	}
	if (sl->scr_len)
		memcpy(sl->buf, scr->buf + sl->scr_off, sl->scr_len);
	sl->len = sl->scr_len;
	for (size_t off = 0; off < sl->len;) {
		struct xrec *r = (struct xrec *)(sl->buf + off);
		r->win = 0; /* dups_before: squeeze()'s, which the ordinary
			     * admission counts */
		if (r->pre != NONE32 && r->pre >= known)
			r->pre = NONE32;
		off += r->size;
	}
	sl->dups_tail = sl->cut_tail;
}

static void chunk_to_ordinary(struct cset *cs, size_t from, uint64_t known)
{
	for (size_t i = from; i < cs->n; i++)
		to_ordinary(cs, &cs->slots[i], known);
	cs->raw = false;
}

static eng_succ plain_succ(const struct xrec *r)
{
	eng_succ x = {0};
	x.fp = r->fp;
	x.state = r->has_state ? (const void *)(r + 1) : NULL;
	x.state_len = r->has_state ? r->state_len : 0;
	x.label = r->label;
	x.terminal = r->terminal;
	return x;
}

/* Admit one slot of a numbered chunk; false when the search must stop.
 * *fresh: the states admitted so far, counted on. */
static bool bulk_admit(eng_search *s, struct eng_pool *p, const struct cset *cs, struct slot *sl,
		       uint64_t *fresh)
{
	const struct wbuf *scr = &cs->scr[sl->w];
	s->cur_id = sl->id;
	s->cur_depth = sl->depth;
	s->cur_succ = sl->nsucc;
	if (sl->rc < 0) { /* interrupted (eng_search_stop()), as admit_slot() */
		if (!s->asked)
			eng__fail(s, "cannot expand a state");
		s->dropped = true;
		return false;
	}
	bool go = true;
	if (p->drop_dups) { /* only the winners: the rest only count */
		for (uint32_t j = sl->win_at; j < sl->win_at + sl->win_n && go; j++) {
			if (j + ADMIT_AHEAD < scr->nwin) {
				const unsigned char *a = scr->buf + scr->win[j + ADMIT_AHEAD].off;
				__builtin_prefetch(a);
				__builtin_prefetch(a + 64);
			}
			const struct win *x = &scr->win[j];
			const struct xrec *r = rec_at(cs, sl->w, x->off);
			count_dups(s, x->dups_before);
			eng_succ y = plain_succ(r);
			go = eng__admit_placed(s, &y, sl->id, sl->depth + 1, r->ent, true, scr->v + x->v_at,
					       x->v_n);
			++*fresh;
		}
		if (go)
			count_dups(s, sl->dups_tail);
	} else { /* every transition, in order */
		uint32_t j = sl->win_at;
		for (size_t off = sl->scr_off; off < sl->scr_off + sl->scr_len && go;) {
			const struct xrec *r = rec_at(cs, sl->w, off);
			off += r->size;
			eng_succ y = plain_succ(r);
			if (!r->has_state || r->pre != NONE32) {
				go = eng__admit(s, &y, sl->id, sl->depth + 1, r->pre);
			} else if (r->win) {
				const struct win *x = &scr->win[j++];
				go = eng__admit_placed(s, &y, sl->id, sl->depth + 1, r->ent, true,
						       scr->v + x->v_at, x->v_n);
				++*fresh;
			} else {
				uint32_t id = p->own[owner_of(p, r->fp)].tab[r->ent].id;
				go = eng__admit_placed(s, &y, sl->id, sl->depth + 1, id, false, NULL, 0);
			}
		}
		eng__edges_flush(s); /* their labels are in the worker's buffer */
	}
	if (sl->nsucc == 0 && s->o.check_deadlock && !s->fe->deadlock_ok)
		eng__add_pending(s, sl->id, ENG_NO_STATE, NULL, (eng_fp){0, 0}, "deadlock", "no action is enabled");
	eng__flush_pending(s);
	return go && !s->stop && !s->failed;
}

/* The invariant above struct owner, after the claim round (every thread
 * waits at a barrier then).  Used only under CHECK=3. */
static __attribute__((unused)) bool owners_are_valid(const struct eng_pool *p)
{
	const struct cset *cs = p->work;
	for (unsigned q = 0; q < p->n; q++) {
		const struct owner *o = &p->own[q];
		uint64_t mine = 0, added = 0;
		for (unsigned w = 0; w < p->n; w++)
			mine += cs->scr[w].ul[q].n;
		for (unsigned t = 0; t < FPSET_SUBS; t++)
			added += o->add[t];
		CMC_VALID(added == o->nwon && o->nwon <= mine, "owner %u: %zu winners, %llu by subtable, of %llu",
			  q, o->nwon, (unsigned long long)added, (unsigned long long)mine);
		if (!mine)
			continue;
		CMC_VALID(o->tab_cap && !(o->tab_cap & (o->tab_cap - 1)) && 2 * o->nwon <= o->tab_cap,
			  "owner %u: %zu states in a table of %zu", q, o->nwon, o->tab_cap);
		size_t full = 0;
		for (size_t e = 0; e < o->tab_cap; e++)
			if (o->tab[e].lo) {
				eng_fp fp = {o->tab[e].hi, o->tab[e].lo};
				CMC_VALID(owner_of(p, fp) == q, "owner %u: entry %zu is owner %u's state", q, e,
					  owner_of(p, fp));
				full++;
			}
		CMC_VALID(full == o->nwon, "owner %u: %zu entries for %zu winners", q, full, o->nwon);
		for (size_t j = 0; j < o->nwon; j++) {
			const struct owin *x = &o->won[j];
			CMC_VALID(x->e < o->tab_cap && o->tab[x->e].lo && x->w < p->n &&
					  x->u < cs->scr[x->w].unfound &&
					  o->res[cs->scr[x->w].ubase + x->u] == (x->e << 1 | 1),
				  "owner %u: winner %zu does not hold its entry", q, j);
		}
	}
	return true;
}

/* Number cs (claim, win, place, index): how many states it adds, or
 * false when it must be admitted the ordinary way. */
static bool number(eng_search *s, struct eng_pool *p, struct cset *cs, uint64_t *wins)
{
	p->unfound = 0;
	for (unsigned w = 0; w < p->n; w++) {
		if (cs->scr[w].odd)
			return false;
		cs->scr[w].ubase = p->unfound;
		p->unfound += cs->scr[w].unfound;
	}
	p->work = cs;
	p->count0 = fpset_count(s->set);
	if (p->unfound) {
		round_of(p, PH_CLAIM);
		CMC_ASSERT_EXPENSIVE(owners_are_valid(p));
	}
	round_of(p, PH_WIN); /* also counts the duplicates */
	/* each worker's groups are in slot order: merge them */
	size_t at[p->n];
	memset(at, 0, sizeof at);
	*wins = 0;
	for (;;) {
		unsigned best = p->n;
		for (unsigned w = 0; w < p->n; w++)
			if (at[w] < cs->scr[w].ng &&
			    (best == p->n || cs->scr[w].g[at[w]].a < cs->scr[best].g[at[best]].a))
				best = w;
		if (best == p->n)
			break;
		struct grp *g = &cs->scr[best].g[at[best]++];
		g->base = *wins;
		*wins += g->wins;
	}
	uint64_t add[FPSET_SUBS] = {0};
	if (p->unfound)
		for (unsigned q = 0; q < p->n; q++)
			for (unsigned t = 0; t < FPSET_SUBS; t++)
				add[t] += p->own[q].add[t];
	if ((s->o.max_states && p->count0 + *wins > s->o.max_states) || !fpset_reserve(s->set, *wins, add))
		return false;
	if (*wins) {
		if (*wins > p->par_cap) {
			p->par = eng_xrealloc(p->par, *wins * sizeof *p->par);
			p->par_cap = *wins;
		}
		round_of(p, PH_PLACE);
		round_of(p, PH_INDEX);
		if (!fpset_commit(s->set, *wins, p->par)) {
			s->st.out_of_memory = true;
			eng__fail(s, "the visited set lost its parent file");
		}
	}
	return true;
}

static void admit_ordinary(eng_search *s, struct eng_pool *p, struct cset *cs);

/* cs is expanded (raw): number it on every thread, then admit it here
 * while the other threads expand the next chunk (overlap). */
static void bulk_step(eng_search *s, struct eng_pool *p, struct cset *cs, bool overlap)
{
	uint64_t wins = 0;
	if (!number(s, p, cs, &wins)) {
		free_verdicts(p, cs);
		chunk_to_ordinary(cs, 0, fpset_count(s->set));
		admit_ordinary(s, p, cs);
		return;
	}
	cs->raw = false;
	double t0 = eng_now();
	struct cset *nx = &p->set[p->cur ^ 1];
	if (overlap && !s->failed) {
		fill(s, nx, p->chunk);
		if (nx->n) {
			p->work = nx;
			p->keep_from = p->count0; /* this chunk's may be taken back */
			eng_barrier_wait(&p->go);
			p->ahead = true;
		}
	}
	uint64_t fresh = 0;
	while (p->admit_next < cs->n && !s->failed)
		if (!bulk_admit(s, p, cs, &cs->slots[p->admit_next++], &fresh))
			break;
	if (p->ahead) {
		sync_ahead(p);
		adapt(p, eng_now() - t0, nx);
	}
	if (p->admit_next < cs->n || fresh < wins) { /* stopped part-way */
		if (fresh < wins)
			fpset_truncate(s->set, p->count0 + fresh);
		chunk_to_ordinary(cs, p->admit_next, p->count0);
		if (p->have_next) /* its lookups may name ids taken back */
			chunk_to_ordinary(nx, 0, fpset_count(s->set));
	}
	free_verdicts(p, cs);
}

/* Admit cs's slots from admit_next the ordinary way, one thread finding
 * or adding each successor in the set, while (overlap) the others expand
 * the next chunk. */
static void admit_ordinary(eng_search *s, struct eng_pool *p, struct cset *cs)
{
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
			p->keep_from = fpset_count(s->set);
			double t0 = eng_now();
			eng_barrier_wait(&p->go);
			expand_slots(p, 0);
			eng_barrier_wait(&p->done);
			cs->raw = p->bulk;
			adapt(p, eng_now() - t0, cs);
		}
	}
	struct cset *cs = &p->set[p->cur];
	if (cs->raw) {
		bulk_step(s, p, cs, overlap);
		CMC_ASSERT_INTERNAL(pool_is_valid(p));
		return;
	}
	/* In bulk mode the ordinary admission only finishes what a stopped
	 * or refused bulk one left: nothing runs beside it, as a lookup
	 * there would not see what it adds (bulk numbering trusts them). */
	if (p->bulk)
		overlap = false;
	double t0 = eng_now();
	if (overlap && !p->have_next) { /* the next chunk, meanwhile */
		struct cset *nx = &p->set[p->cur ^ 1];
		fill(s, nx, p->chunk);
		if (nx->n) {
			p->work = nx;
			eng_barrier_wait(&p->go);
			p->ahead = true;
		}
	}
	admit_ordinary(s, p, cs);
	if (p->ahead) {
		sync_ahead(p);
		adapt(p, eng_now() - t0, &p->set[p->cur ^ 1]);
	}
	CMC_ASSERT_INTERNAL(pool_is_valid(p));
}
