/*
 * level.c — breadth-first search of a model on several threads, each
 * thread finding and numbering the states it owns, with the one-thread
 * search's results.
 *
 * The frontier is taken a segment at a time from the queue's head: up to
 * seg states, their ids rising, read where the queue holds them.  Thread
 * k owns the visited set's subtables k, k + n, ... (fpset.h) and so every
 * state whose fingerprint falls there; only it looks those up or adds
 * them.  A segment goes through these rounds, every thread taking part:
 *
 *   expand  the threads take the segment's states GRAB at a time and
 *           expand them.  A successor this thread owns is looked up at
 *           once and, when absent, added as a pending state
 *           (fpset_pend_put()), and its invariants are judged then
 *           (check_new(): its bytes are in the cache); one another
 *           thread owns goes to that thread's inbox (struct obox),
 *           written as a stream.
 *   inbox   each thread looks up what the others sent it, the same way.
 *           Every transition that reaches a pending state lowers its key
 *           to its own when smaller.  A transition's key is its place in
 *           the one-thread search's order: its source's place in the
 *           segment, then its own among the source's successors (struct
 *           lent).  So a pending state's key ends as that of the
 *           transition one thread would have admitted it by, and the
 *           order of the keys is the order of the ids.
 *   sort    each thread orders its pending states by key;
 *   rank    each thread counts, for each of its states, the others' with
 *           smaller keys (a merge of sorted lists, read as streams): its
 *           id;
 *   own     each thread enters its states' ids in its own subtables;
 *   place   the threads split the ids into ranges and, merging the
 *           threads' sorted lists, write the records and parents;
 *   push    the same ranges: the queue's entries (room reserved by one
 *           thread between the two).
 *
 * Then one thread commits the ids (fpset_pend_commit()) and tells the
 * listeners, in id order.  So every id, count, parent, trace and
 * on_state() call is the one-thread search's.  Each round writes only
 * memory its thread owns or a range of its own: on the machines this runs
 * on a line written by one core and then by another costs a third of a
 * state's whole expansion (tests/bench/cores.sh), while lines read in
 * order cost little.
 *
 * Anything but the plain case (a successor with an observation or a
 * verdict, a state without successors where deadlock is checked, a
 * violated invariant, a state bound, a set near its limits) aborts the
 * segment: its pending states are taken out of the set again
 * (fpset_pend_abort()) and the segment is searched again on this thread
 * by the one-thread search's own code (eng__expand_now()), one state at a
 * time off the queue's head, which reports whatever it was; a stop there
 * leaves the rest in the queue.  Aborts that only lacked room (the
 * index's) retry the segment with more.
 *
 * Listeners that want every transition (on_transition, on_edges) are not
 * served here: parallel.c does that (search.c chooses), as it does for
 * everything when CMC_NO_LEVEL is set (to compare the two).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "barrier.h"
#include "check.h"
#include "search_int.h"
#include "util.h"

#define SEG_MIN 256
#define SEG_MAX 16384
#define GRAB 32          /* states a thread takes at once */
#define LBATCH 128       /* successors looked up together */
#define ECAP (1u << 22)  /* pending entries a segment may make, all threads */

/*
 * A pending state: one the segment reached that the set did not hold, and
 * the thread that owns it.  fp is written before the state is published
 * in the set (the slot's release), so a lookup that finds the slot finds
 * fp.  key is the smallest key of the transitions that reached it:
 * source << 32 | successor << 1 | terminal (the transition's terminal
 * flag rides in the lowest bit, which never decides between two
 * transitions), and label that transition's.  where is its slot.  Only
 * its owner writes it.
 */
struct lent {
	eng_fp fp;
	uint64_t key;
	uint64_t where;
	const char *label;
};

/* A pending state as its owner keeps it: its entry, its bytes in the
 * owner's buffer, and its id once ranked. */
struct lnew {
	uint32_t e;
	uint32_t len;
	size_t off;
	uint32_t id;
};

/* A successor waiting for its lookup. */
struct lbat {
	eng_fp fp;
	uint64_t key;
	const char *label;
	const unsigned char *p; /* its bytes in an inbox, or NULL: */
	size_t off;             /* in the batch's arena */
	uint32_t len;
};

/* A successor on its way to its owner: this header, then its bytes,
 * padded to 8 (the header's alignment; the bytes are copied out, never
 * read in place).  Every other successor crosses to the other core this
 * way: 64 bytes for a 20-byte state, where a 16-byte layout took 80. */
struct orec {
	eng_fp fp;
	uint64_t key;
	const char *label;
	uint32_t len, pad;
};
#define OREC_PAD(n) (((size_t)(n) + 7) & ~(size_t)7)
_Static_assert(sizeof(struct orec) % 8 == 0, "orec keeps the stream 8-aligned");

/* What one thread sends another: orecs, back to back. */
struct obox {
	unsigned char *buf;
	size_t len, cap;
};

/*
 * One thread's part.  Written by that thread only; the others read its
 * lists (nw, srt, out) after a barrier.
 * Invariant (after the sort round): srt lists nw's indices by rising key,
 * each once; after the rank round, nw[srt[i]].id rises with i.
 */
struct __attribute__((aligned(64))) lwork {
	unsigned k;             /* it owns subtables k, k + n, ... */
	eng_frontend *fe;
	eng_labels *labels;
	struct obox *out;       /* by owner: successors it found for them */
	unsigned char *buf;     /* its pending states' bytes */
	size_t len, cap;
	struct lnew *nw;
	size_t nnew, nw_cap;
	uint32_t *srt;          /* nw by key */
	uint32_t *cnt;          /* sort round: by source */
	size_t srt_cap, cnt_cap;
	uint32_t e_next, e_end; /* its part of the entries */
	uint64_t added[FPSET_SUBS], room;
	uint64_t trans;
	uint64_t add[FPSET_SUBS]; /* own round: by subtable */
	bool deep;              /* a state the depth bound leaves unexpanded */
	uint32_t depth;         /* the deepest state it placed */
	/* place round: its range's states by depth, ascending (a segment's
	 * sources span two depths at most, so its new states do too) */
	uint32_t dd[2];
	uint64_t dc[2];
	unsigned nd;
	size_t qbytes, qn;      /* place round: what of its range is queued */
	size_t qoff;            /* push round: where its entries begin */
	unsigned char *st;      /* a source's bytes, 16-byte aligned */
	size_t st_cap;
	struct lbat bat[LBATCH];
	size_t nbat;
	unsigned char *arena;
	size_t arena_len, arena_cap;
	uint32_t src;           /* the expansion under way */
	uint32_t nsucc;
};

/* Why a segment was aborted: something only the one-thread code does, no
 * room left in the index, no pending entry left. */
enum { AB_NONE, AB_ODD, AB_ROOM, AB_FULL };

enum { PH_GROW, PH_FILL, PH_EXPAND, PH_INBOX, PH_SORT, PH_RANK, PH_OWN, PH_PLACE, PH_PUSH };

/*
 * Invariant (eng__level_is_valid()): between segments no thread runs and
 * the set holds no pending state; the segment's sources are the queue's
 * first nsrc entries only while a segment is under way.
 */
struct eng_level {
	eng_search *s;
	unsigned n;
	pthread_t *th;
	eng_barrier go, done;
	bool quit;
	int phase;
	struct lwork *w;
	struct lent *ent;       /* ECAP entries, mapped without reserve */
	const unsigned char **src; /* the segment's sources: queue entries */
	size_t nsrc, src_cap;
	size_t seg;
	uint64_t count0, room, m;
	uint64_t ncap;          /* grow round: the index's new capacity */
	uint32_t *par;          /* by rank: the parent */
	size_t par_cap;
	unsigned char *qbase;   /* push round: the queue's room */
	eng_state_info *info;   /* push round: for on_state(), by rank */
	size_t info_cap;
	bool tell;              /* a listener wants on_state() */
	bool count;             /* a listener wants on_depth() */
	unsigned backoff, skip; /* segments left to the one-thread code */
	struct { const char *from, *to; } lcache[64];
	/* written by every thread during a round: lines of their own */
	_Alignas(64) atomic_size_t next; /* the first source no thread took */
	_Alignas(64) _Atomic int abort;
};

static unsigned owner_of(const struct eng_level *L, eng_fp fp) { return fpset_sub(fp) % L->n; }

static void set_abort(struct eng_level *L, int why)
{
	int none = AB_NONE;
	atomic_compare_exchange_strong(&L->abort, &none, why);
}

static bool aborted(struct eng_level *L) { return atomic_load_explicit(&L->abort, memory_order_relaxed) != AB_NONE; }

static void *grow(void *p, size_t *cap, size_t need, size_t each)
{
	if (need <= *cap)
		return p;
	*cap = need * 2 + 64;
	return eng_xrealloc(p, *cap * each);
}

/* ---- the expand and inbox rounds ----------------------------------------- */

static size_t arena_put(struct lwork *w, const void *p, size_t n)
{
	return eng_append16(&w->arena, &w->arena_len, &w->arena_cap, p, n);
}

static void keep_bytes(struct lwork *w, uint32_t e, const void *p, uint32_t n)
{
	size_t off = eng_append16(&w->buf, &w->len, &w->cap, p, n);
	w->nw = grow(w->nw, &w->nw_cap, w->nnew + 1, sizeof *w->nw);
	w->nw[w->nnew++] = (struct lnew){e, n, off, 0};
}

static void on_bad(void *ctx, const char *property, const char *message)
{
	(void)property;
	(void)message;
	*(bool *)ctx = true;
}

/* The invariants of the state just kept, while its bytes are in the
 * cache: one violated aborts the segment, and the one-thread code finds
 * and reports it.  True when it did. */
static bool check_new(struct eng_level *L, struct lwork *w)
{
	if (!L->s->fe->ops->check)
		return false;
	const struct lnew *nw = &w->nw[w->nnew - 1];
	bool bad = false;
	w->fe->ops->check(w->fe, w->buf + nw->off, nw->len, NULL, on_bad, &bad);
	if (bad)
		set_abort(L, AB_ODD);
	return bad;
}

/* Look the batch up: add what the set lacks, lower the keys of what is
 * pending. */
static void flush(struct eng_level *L, struct lwork *w)
{
	fpset *set = L->s->set;
	/* A pipeline: the slot of the successor 2 * DIST ahead is fetched,
	 * the record the slot DIST ahead names, and this one is put. */
	enum { DIST = 16 };
	for (size_t i = 0; i < 2 * DIST && i < w->nbat; i++)
		fpset_prefetch_slot(set, w->bat[i].fp);
	for (size_t i = 0; i < DIST && i < w->nbat; i++)
		fpset_pend_prefetch(set, w->bat[i].fp);
	for (size_t i = 0; i < w->nbat && !aborted(L); i++) {
		if (i + 2 * DIST < w->nbat)
			fpset_prefetch_slot(set, w->bat[i + 2 * DIST].fp);
		if (i + DIST < w->nbat)
			fpset_pend_prefetch(set, w->bat[i + DIST].fp);
		const struct lbat *b = &w->bat[i];
		unsigned t = fpset_sub(b->fp);
		if (w->e_next == w->e_end) {
			set_abort(L, AB_FULL);
			break;
		}
		if (w->added[t] >= w->room) {
			set_abort(L, AB_ROOM);
			break;
		}
		struct lent *e = &L->ent[w->e_next];
		e->fp = b->fp;
		e->key = b->key;
		e->label = b->label;
		uint32_t pid = (uint32_t)(L->count0 + w->e_next);
		uint64_t where;
		uint32_t id = fpset_pend_put(set, b->fp, pid, &where);
		if (id == pid) { /* new */
			e->where = where;
			w->added[t]++;
			keep_bytes(w, w->e_next++, b->p ? b->p : w->arena + b->off, b->len);
			if (check_new(L, w))
				break;
		} else if (id >= L->count0) { /* pending: the smaller key wins */
			struct lent *o = &L->ent[id - L->count0];
			if (b->key < o->key) {
				o->key = b->key;
				o->label = b->label;
			}
		}
	}
	w->nbat = 0;
	w->arena_len = 0;
}

static bool succ_cb(void *ctx, const eng_succ *x)
{
	struct eng_level *L = ((void **)ctx)[0];
	struct lwork *w = ((void **)ctx)[1];
	if (x->obs || x->property || x->violation || !x->state || x->wanted || eng_fp_zero(x->fp) ||
	    x->state_len > UINT32_MAX) {
		set_abort(L, AB_ODD);
		return false;
	}
	uint64_t key = (uint64_t)w->src << 32 | (uint64_t)w->nsucc << 1 | (x->terminal ? 1 : 0);
	const char *label = L->tell ? eng_labels_intern(w->labels, x->label) : NULL;
	w->nsucc++;
	unsigned o = owner_of(L, x->fp);
	if (o != w->k) { /* its owner looks it up (inbox round) */
		struct obox *ob = &w->out[o];
		size_t need = sizeof(struct orec) + OREC_PAD(x->state_len);
		if (ob->len + need > ob->cap) {
			ob->cap = (ob->len + need) * 2 + 4096;
			ob->buf = eng_xrealloc(ob->buf, ob->cap);
		}
		struct orec *r = (struct orec *)(ob->buf + ob->len);
		*r = (struct orec){x->fp, key, label, (uint32_t)x->state_len, 0};
		memcpy(r + 1, x->state, x->state_len);
		ob->len += need;
		return !aborted(L);
	}
	struct lbat *b = &w->bat[w->nbat++];
	*b = (struct lbat){x->fp, key, label, NULL, arena_put(w, x->state, x->state_len),
			   (uint32_t)x->state_len};
	if (w->nbat == LBATCH)
		flush(L, w);
	return !aborted(L);
}

static void expand_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	const eng_search *s = L->s;
	bool deadlock = s->o.check_deadlock && !s->fe->deadlock_ok;
	void *c[2] = {L, w};
	for (;;) {
		size_t a = atomic_fetch_add_explicit(&L->next, GRAB, memory_order_relaxed);
		if (a >= L->nsrc || aborted(L))
			break;
		size_t b = a + GRAB < L->nsrc ? a + GRAB : L->nsrc;
		for (size_t i = a; i < b; i++) {
			eng_qentry e;
			eng_queue_entry(L->src[i], &e);
			w->st = grow(w->st, &w->st_cap, e.len + 1, 1); /* states are C structs: aligned */
			memcpy(w->st, e.state, e.len);
			w->src = (uint32_t)i;
			w->nsucc = 0;
			if (w->nbat > LBATCH - 32)
				flush(L, w);
			int rc = w->fe->ops->next(w->fe, w->st, e.len, succ_cb, c);
			w->trans += w->nsucc;
			if (rc < 0 || (deadlock && w->nsucc == 0))
				set_abort(L, AB_ODD);
			if (aborted(L))
				return;
		}
		flush(L, w);
	}
	flush(L, w);
}

static void inbox_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	for (unsigned f = 0; f < L->n; f++) {
		const struct obox *ob = &L->w[f].out[k];
		for (size_t off = 0; off < ob->len && !aborted(L);) {
			const struct orec *r = (const struct orec *)(ob->buf + off);
			w->bat[w->nbat++] = (struct lbat){r->fp, r->key, r->label, (const unsigned char *)(r + 1),
							 0, r->len};
			off += sizeof *r + OREC_PAD(r->len);
			if (w->nbat == LBATCH)
				flush(L, w);
		}
	}
	flush(L, w);
}

/* ---- numbering ---------------------------------------------------------- */

static uint64_t key_of(const struct eng_level *L, const struct lwork *w, uint32_t i)
{
	return L->ent[w->nw[i].e].key;
}

/* Its pending states by key: by source (a counting sort), then within a
 * source by successor (a few, nearly in order). */
static void sort_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	size_t ns = L->nsrc;
	w->cnt = grow(w->cnt, &w->cnt_cap, ns + 1, sizeof *w->cnt);
	w->srt = grow(w->srt, &w->srt_cap, w->nnew, sizeof *w->srt);
	memset(w->cnt, 0, (ns + 1) * sizeof *w->cnt);
	for (size_t i = 0; i < w->nnew; i++)
		w->cnt[(key_of(L, w, (uint32_t)i) >> 32) + 1]++;
	for (size_t i = 1; i <= ns; i++)
		w->cnt[i] += w->cnt[i - 1];
	for (size_t i = 0; i < w->nnew; i++)
		w->srt[w->cnt[key_of(L, w, (uint32_t)i) >> 32]++] = (uint32_t)i;
	for (size_t r = 1; r < w->nnew; r++) {
		uint32_t t = w->srt[r];
		uint64_t kt = key_of(L, w, t);
		size_t q = r;
		for (; q > 0 && key_of(L, w, w->srt[q - 1]) > kt; q--)
			w->srt[q] = w->srt[q - 1];
		w->srt[q] = t;
	}
}

/* Each of its states' id: its place among its own, plus the others'
 * states with smaller keys. */
static void rank_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	size_t at[L->n];
	memset(at, 0, sizeof at);
	for (size_t i = 0; i < w->nnew; i++) {
		uint64_t key = key_of(L, w, w->srt[i]);
		uint64_t r = i;
		for (unsigned o = 0; o < L->n; o++) {
			if (o == k)
				continue;
			const struct lwork *ow = &L->w[o];
			while (at[o] < ow->nnew && key_of(L, ow, ow->srt[at[o]]) < key)
				at[o]++;
			r += at[o];
		}
		w->nw[w->srt[i]].id = (uint32_t)(L->count0 + r);
	}
}

static void own_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	const eng_search *s = L->s;
	memset(w->add, 0, sizeof w->add);
	for (size_t i = 0; i < w->nnew; i++) {
		const struct lnew *nw = &w->nw[i];
		const struct lent *e = &L->ent[nw->e];
		fpset_pend_settle(s->set, e->where, nw->id, e->fp);
		w->add[fpset_sub(e->fp)]++;
	}
}

/* Thread k's range of ids [a, b) (as ranks from count0), and where each
 * thread's sorted list enters it. */
static void range_of(const struct eng_level *L, unsigned k, uint64_t *a, uint64_t *b, size_t *at)
{
	*a = L->m * k / L->n;
	*b = L->m * (k + 1) / L->n;
	for (unsigned o = 0; o < L->n; o++) {
		const struct lwork *ow = &L->w[o];
		size_t lo = 0, hi = ow->nnew;
		while (lo < hi) { /* the first with id >= count0 + a */
			size_t mid = (lo + hi) / 2;
			if (ow->nw[ow->srt[mid]].id < L->count0 + *a)
				lo = mid + 1;
			else
				hi = mid;
		}
		at[o] = lo;
	}
}

/* The thread and list index holding rank r (the merge's next). */
static const struct lnew *next_of(const struct eng_level *L, uint64_t r, size_t *at, unsigned *who)
{
	for (unsigned o = 0; o < L->n; o++) {
		const struct lwork *ow = &L->w[o];
		if (at[o] < ow->nnew && ow->nw[ow->srt[at[o]]].id == L->count0 + r) {
			*who = o;
			return &ow->nw[ow->srt[at[o]++]];
		}
	}
	eng_die("level: rank %llu is nobody's", (unsigned long long)r);
}

/* Whether a new state goes to the queue: not terminal (its key's lowest
 * bit), not at the depth bound.  The place and push rounds must agree. */
static bool queued(const eng_search *s, uint64_t key, uint32_t depth)
{
	return !(key & 1) && !(s->o.max_depth && depth >= s->o.max_depth);
}

static void place_round(struct eng_level *L, unsigned k)
{
	struct lwork *w = &L->w[k];
	const eng_search *s = L->s;
	uint64_t a, b;
	size_t at[L->n];
	range_of(L, k, &a, &b, at);
	w->qbytes = w->qn = 0;
	w->depth = 0;
	w->deep = false;
	w->nd = 0;
	for (uint64_t r = a; r < b; r++) {
		unsigned o;
		const struct lnew *nw = next_of(L, r, at, &o);
		const struct lent *e = &L->ent[nw->e];
		eng_qentry src;
		eng_queue_entry(L->src[e->key >> 32], &src);
		uint32_t depth = src.depth + 1;
		fpset_place(s->set, nw->id, e->fp);
		L->par[r] = src.id;
		if (depth > w->depth)
			w->depth = depth;
		if (!w->nd || w->dd[w->nd - 1] != depth) {
			CMC_ASSERT(w->nd < 2 && (!w->nd || w->dd[0] < depth));
			w->dd[w->nd] = depth;
			w->dc[w->nd++] = 0;
		}
		w->dc[w->nd - 1]++;
		if (s->o.max_depth && depth >= s->o.max_depth)
			w->deep = true; /* as the one-thread search: terminal or not */
		if (queued(s, e->key, depth)) {
			w->qbytes += eng_queue_entry_size(nw->len);
			w->qn++;
		}
	}
}

static void push_round(struct eng_level *L, unsigned k)
{
	const struct lwork *w = &L->w[k];
	const eng_search *s = L->s;
	uint64_t a, b;
	size_t at[L->n];
	range_of(L, k, &a, &b, at);
	unsigned char *p = L->qbase + w->qoff;
	for (uint64_t r = a; r < b; r++) {
		unsigned o;
		const struct lnew *nw = next_of(L, r, at, &o);
		const struct lent *e = &L->ent[nw->e];
		const unsigned char *st = L->w[o].buf + nw->off;
		eng_qentry src;
		eng_queue_entry(L->src[e->key >> 32], &src);
		uint32_t depth = src.depth + 1;
		if (L->tell)
			L->info[r] = (eng_state_info){nw->id, src.id, e->label, depth, e->fp, st, nw->len, NULL, false};
		if (queued(s, e->key, depth))
			p += eng_queue_put_at(p, nw->id, depth, st, nw->len);
	}
	/* the place round counted exactly these bytes */
	CMC_ASSERT(p == L->qbase + w->qoff + w->qbytes);
}

static void run_phase(struct eng_level *L, unsigned k)
{
	switch (L->phase) {
	case PH_GROW:
		fpset_regrow(L->s->set, L->ncap, k, L->n);
		break;
	case PH_FILL:
		fpset_regrow_fill(L->s->set, L->ncap, k, L->n);
		break;
	case PH_EXPAND:
		expand_round(L, k);
		break;
	case PH_INBOX:
		inbox_round(L, k);
		break;
	case PH_SORT:
		sort_round(L, k);
		break;
	case PH_RANK:
		rank_round(L, k);
		break;
	case PH_OWN:
		own_round(L, k);
		break;
	case PH_PLACE:
		place_round(L, k);
		break;
	default:
		push_round(L, k);
		break;
	}
}

static void round_of(struct eng_level *L, int ph)
{
	L->phase = ph;
	eng_barrier_wait(&L->go);
	run_phase(L, 0);
	eng_barrier_wait(&L->done);
}

struct warg {
	struct eng_level *L;
	unsigned k;
};

static void *worker(void *arg)
{
	struct warg *a = arg;
	struct eng_level *L = a->L;
	unsigned k = a->k;
	free(a);
	for (;;) {
		eng_barrier_wait(&L->go);
		if (L->quit)
			return NULL;
		run_phase(L, k);
		eng_barrier_wait(&L->done);
	}
}

/* ---- set-up ------------------------------------------------------------- */

bool eng__level_usable(const eng_search *s)
{
	if (s->o.jobs < 2 || s->o.order != ENG_BFS || !s->fe->ops->clone || s->fe->ops->forget ||
	    getenv("CMC_NO_LEVEL"))
		return false;
	for (size_t i = 0; i < s->nls; i++)
		if (s->ls[i].on_transition || s->ls[i].on_edges)
			return false;
	return true;
}

int eng__level_start(eng_search *s)
{
	struct eng_level *L = eng_xcalloc(1, sizeof *L);
	L->s = s;
	L->n = s->o.jobs;
	void *m = mmap(NULL, (size_t)ECAP * sizeof *L->ent, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		free(L);
		return -1;
	}
	L->ent = m;
	if (posix_memalign((void **)&L->w, 64, L->n * sizeof *L->w))
		eng_die("out of memory");
	memset(L->w, 0, L->n * sizeof *L->w);
	L->w[0].fe = s->fe;
	for (unsigned k = 1; k < L->n; k++)
		if (!(L->w[k].fe = s->fe->ops->clone(s->fe))) {
			while (--k > 0)
				if (L->w[k].fe != s->fe)
					L->w[k].fe->ops->destroy(L->w[k].fe);
			munmap(L->ent, (size_t)ECAP * sizeof *L->ent);
			free(L->w);
			free(L);
			return -1;
		}
	for (unsigned k = 0; k < L->n; k++) {
		L->w[k].k = k;
		L->w[k].labels = eng_labels_new();
		L->w[k].out = eng_xcalloc(L->n, sizeof *L->w[k].out);
	}
	for (size_t i = 0; i < s->nls; i++) {
		if (s->ls[i].on_state)
			L->tell = true;
		if (s->ls[i].on_depth)
			L->count = true;
	}
	eng_barrier_init(&L->go, L->n);
	eng_barrier_init(&L->done, L->n);
	L->th = eng_xcalloc(L->n, sizeof *L->th);
	for (unsigned k = 1; k < L->n; k++) {
		struct warg *a = eng_xmalloc(sizeof *a);
		a->L = L;
		a->k = k;
		if (pthread_create(&L->th[k], NULL, worker, a) != 0)
			eng_die("cannot start a worker thread");
	}
	L->seg = SEG_MIN;
	L->room = 1024;
	s->level = L;
	return 0;
}

void eng__level_free(eng_search *s)
{
	struct eng_level *L = s->level;
	if (!L)
		return;
	L->quit = true;
	eng_barrier_wait(&L->go);
	for (unsigned k = 1; k < L->n; k++)
		pthread_join(L->th[k], NULL);
	for (unsigned k = 0; k < L->n; k++) {
		struct lwork *w = &L->w[k];
		if (k && w->fe != s->fe)
			w->fe->ops->destroy(w->fe);
		eng_labels_free(w->labels);
		for (unsigned o = 0; o < L->n; o++)
			free(w->out[o].buf);
		free(w->out);
		free(w->buf);
		free(w->nw);
		free(w->srt);
		free(w->cnt);
		free(w->st);
		free(w->arena);
	}
	munmap(L->ent, (size_t)ECAP * sizeof *L->ent);
	free(L->w);
	free(L->th);
	free(L->src);
	free(L->par);
	free(L->info);
	free(L);
	s->level = NULL;
}

bool eng__level_is_valid(const eng_search *s)
{
	const struct eng_level *L = s->level;
	if (!L)
		return true;
	CMC_VALID(L->nsrc == 0, "level: a segment of %zu states is still under way", L->nsrc);
	CMC_VALID(L->seg >= SEG_MIN && L->seg <= SEG_MAX, "level: segments of %zu states", L->seg);
	return true;
}

/* ---- one segment -------------------------------------------------------- */

/* The segment's sources on this thread, with the one-thread search's code,
 * each taken off the queue as it is expanded, until one stops the search:
 * the rest stay in the queue. */
static void fall_back(struct eng_level *L)
{
	eng_search *s = L->s;
	struct lwork *w = &L->w[0];
	for (size_t i = 0; i < L->nsrc && !s->stop; i++) {
		eng_qentry e;
		eng_queue_entry(L->src[i], &e);
		w->st = grow(w->st, &w->st_cap, e.len + 1, 1);
		memcpy(w->st, e.state, e.len);
		eng_queue_drop(s->q, 1);
		eng__expand_now(s, e.id, e.depth, w->st, e.len);
	}
	L->nsrc = 0;
}

/* A worker's label, as the search's table holds it (the listeners' copy). */
static const char *search_label(struct eng_level *L, const char *lab)
{
	if (!lab)
		return NULL;
	unsigned h = (unsigned)(((uintptr_t)lab * 0x9e3779b97f4a7c15ull) >> 58);
	if (L->lcache[h].from != lab) {
		L->lcache[h].from = lab;
		L->lcache[h].to = eng_labels_intern(L->s->labels, lab);
	}
	return L->lcache[h].to;
}

static void reset_work(struct eng_level *L)
{
	for (unsigned k = 0; k < L->n; k++) {
		struct lwork *w = &L->w[k];
		w->len = w->nnew = w->nbat = w->arena_len = 0;
		/* each thread its own part of the entries, the same each
		 * segment: lines it wrote last time are still its own */
		w->e_next = (uint32_t)((uint64_t)ECAP * k / L->n);
		w->e_end = (uint32_t)((uint64_t)ECAP * (k + 1) / L->n);
		w->trans = 0;
		memset(w->added, 0, sizeof w->added);
		for (unsigned o = 0; o < L->n; o++)
			w->out[o].len = 0;
	}
	atomic_store(&L->next, 0);
	atomic_store(&L->abort, AB_NONE);
}

/* Grow the index, on every thread, to what the segment may need. */
static bool make_room(struct eng_level *L)
{
	fpset *set = L->s->set;
	L->ncap = fpset_pend_cap(set, L->room);
	if (!L->ncap)
		return false;
	if (L->ncap != fpset_pend_cap(set, 0)) {
		round_of(L, PH_GROW);
		round_of(L, PH_FILL);
		fpset_regrow_done(set, L->ncap);
	}
	return fpset_pend_begin(set, L->room, L->ent, sizeof *L->ent);
}

/* on_depth(): the segment's new states by depth, the threads' ranges in
 * id order (depths never decrease along it), a call per depth. */
static void tell_depths(struct eng_level *L)
{
	eng_search *s = L->s;
	uint32_t d = 0;
	uint64_t c = 0;
	for (unsigned k = 0; k <= L->n; k++) {
		const struct lwork *w = k < L->n ? &L->w[k] : NULL;
		for (unsigned j = 0; j < (w ? w->nd : 1); j++) {
			if (w && w->dd[j] == d) {
				c += w->dc[j];
				continue;
			}
			CMC_ASSERT(!w || !c || w->dd[j] > d);
			for (size_t i = 0; c && i < s->nls; i++)
				if (s->ls[i].on_depth)
					s->ls[i].on_depth(s->ls[i].ctx, d, c);
			if (w) {
				d = w->dd[j];
				c = w->dc[j];
			}
		}
	}
}

/* Queue the numbered states and tell the listeners, in id order. */
static void admit_all(struct eng_level *L)
{
	eng_search *s = L->s;
	size_t bytes = 0, n = 0;
	for (unsigned k = 0; k < L->n; k++) {
		struct lwork *w = &L->w[k];
		w->qoff = bytes;
		bytes += w->qbytes;
		n += w->qn;
		if (w->depth > s->st.depth)
			s->st.depth = w->depth;
		if (w->deep)
			s->st.bounded = true;
	}
	if (L->tell)
		L->info = grow(L->info, &L->info_cap, L->m, sizeof *L->info);
	/* the segment's sources leave the queue first: the room may be
	 * taken from their block once they are gone */
	eng_queue_drop(s->q, L->nsrc);
	L->nsrc = 0;
	L->qbase = n ? eng_queue_reserve(s->q, bytes) : NULL;
	if (n || L->tell)
		round_of(L, PH_PUSH);
	eng_queue_commit(s->q, bytes, n);
	if (L->count)
		tell_depths(L);
	if (!L->tell)
		return;
	for (size_t r = 0; r < L->m; r++) {
		eng_state_info *info = &L->info[r];
		info->label = search_label(L, info->label);
		for (size_t i = 0; i < s->nls; i++)
			if (s->ls[i].on_state)
				s->ls[i].on_state(s->ls[i].ctx, info);
	}
}

/* Search the segment on every thread; AB_NONE when done. */
static int try_segment(struct eng_level *L)
{
	eng_search *s = L->s;
	fpset *set = s->set;
	L->count0 = fpset_count(set);
	if (L->count0 + ECAP >= FPSET_MAX_STATES || (s->o.max_states && L->count0 >= s->o.max_states))
		return AB_ODD;
	if (!make_room(L))
		return AB_ODD;
	reset_work(L);
	uint64_t room = fpset_pend_room(set, 1); /* each subtable has one owner */
	for (unsigned k = 0; k < L->n; k++)
		L->w[k].room = room;
	round_of(L, PH_EXPAND);
	if (!aborted(L))
		round_of(L, PH_INBOX);
	int why = atomic_load(&L->abort);
	uint64_t add[FPSET_SUBS] = {0};
	L->m = 0;
	for (unsigned k = 0; k < L->n; k++) {
		L->m += L->w[k].nnew;
		for (unsigned t = 0; t < FPSET_SUBS; t++)
			add[t] += L->w[k].added[t];
	}
	if (why == AB_NONE && s->o.max_states && L->count0 + L->m > s->o.max_states)
		why = AB_ODD;
	if (why == AB_NONE && !fpset_pend_chunks(set, L->m, add))
		why = AB_ODD;
	if (why != AB_NONE) {
		fpset_pend_abort(set);
		if (why == AB_ROOM)
			L->room = L->room * 2 > room * 2 ? L->room * 2 : room * 2;
		return why;
	}
	L->par = grow(L->par, &L->par_cap, L->m, sizeof *L->par);
	round_of(L, PH_SORT);
	round_of(L, PH_RANK);
	round_of(L, PH_OWN);
	round_of(L, PH_PLACE);
	uint64_t total[FPSET_SUBS] = {0}, trans = 0, most = 0;
	for (unsigned k = 0; k < L->n; k++) {
		for (unsigned t = 0; t < FPSET_SUBS; t++)
			total[t] += L->w[k].add[t];
		trans += L->w[k].trans;
	}
	if (!fpset_pend_commit(set, L->m, L->par, total)) {
		s->st.out_of_memory = true;
		eng__fail(s, "out of memory for the visited set");
	}
	s->st.generated += trans;
	s->st.transitions += trans;
	admit_all(L);
	/* room for the next segment: at most twice this one */
	for (unsigned t = 0; t < FPSET_SUBS; t++)
		most = total[t] > most ? total[t] : most;
	L->room = 2 * most > 1024 ? 2 * most : 1024;
	return AB_NONE;
}

void eng__level_step(eng_search *s)
{
	struct eng_level *L = s->level;
	CMC_ASSERT_INTERNAL(eng__level_is_valid(s));
	L->src = grow(L->src, &L->src_cap, L->seg, sizeof *L->src);
	L->nsrc = eng_queue_peek(s->q, L->seg, L->src);
	if (L->skip) {
		L->skip--;
		fall_back(L);
		return;
	}
	double t0 = eng_now();
	int why;
	while ((why = try_segment(L)) == AB_ROOM)
		;
	if (why == AB_FULL) { /* too many successors for one segment */
		if (L->seg > SEG_MIN)
			L->seg /= 2;
		fall_back(L);
		return;
	}
	if (why == AB_ODD) {
		/* a violation, a deadlock, a bound: the one-thread code says
		 * which; for a while after, segments go that way directly */
		L->skip = L->backoff;
		L->backoff = L->backoff ? (L->backoff < 64 ? 2 * L->backoff : 64) : 1;
		fall_back(L);
		return;
	}
	double dt = eng_now() - t0;
	if (dt < 0.01 && L->seg < SEG_MAX)
		L->seg *= 2;
	else if (dt > 0.05 && L->seg > SEG_MIN)
		L->seg /= 2;
}
