/*
 * search.c — the search loop: breadth- or depth-first exploration over a
 * frontend, with bounds, properties, listeners and stepping by hand.
 *
 * Counting follows TLC so numbers compare one to one: distinct counts every
 * state put in the visited set (initial ones included); generated counts the
 * initial states plus every successor a frontend yields, duplicates and
 * self-loops included; depth is the highest BFS level reached, the initial
 * states being level 1.
 *
 * Violations found while a frontend is producing successors are queued and
 * reported after it returns: rebuilding their traces calls the frontend
 * again, which must not happen from inside its own callback.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmc.h"
#include "fpset.h"
#include "queue.h"
#include "search_int.h"
#include "util.h"

void eng_opts_default(eng_opts *o)
{
	memset(o, 0, sizeof *o);
	o->order = ENG_BFS;
	o->check_deadlock = true;
	o->progress_interval = 0.25;
}

eng_search *eng_search_new(eng_frontend *fe, const eng_opts *o)
{
	eng_search *s = eng_xcalloc(1, sizeof *s);
	s->fe = fe;
	if (o)
		s->o = *o;
	else
		eng_opts_default(&s->o);
	if (s->o.progress_interval <= 0)
		s->o.progress_interval = 0.25;
	s->set = fpset_new(s->o.mem_limit);
	if (!s->set)
		eng_die("out of memory creating the visited set");
	s->q = eng_queue_new(s->o.order == ENG_DFS);
	s->labels = eng_labels_new();
	return s;
}

void eng_search_free(eng_search *s)
{
	if (!s)
		return;
	fpset_free(s->set);
	fpset_free(s->raw_set);
	fpset_free(s->canon_set);
	eng_queue_free(s->q);
	for (size_t i = 0; i < s->npend; i++) {
		free(s->pend[i].label);
		free(s->pend[i].property);
		free(s->pend[i].message);
	}
	free(s->pend);
	free(s->arena);
	free(s->edges);
	eng__defer_free(s);
	eng_labels_free(s->labels);
	eng__pool_free(s);
	eng__level_free(s);
	free(s);
}

void eng_search_listen(eng_search *s, const eng_listener *l)
{
	if (s->nls < MAX_LISTENERS)
		s->ls[s->nls++] = *l;
	if (l->on_edges)
		s->want_edges = true;
	if ((l->on_state || l->on_transition || l->on_edges) && !l->no_obs_bytes)
		s->obs_bytes = true;
}

void eng_search_stop(eng_search *s)
{
	s->asked = 1;
	s->stop = 1;
}
const char *eng_search_error(const eng_search *s) { return s->err[0] ? s->err : NULL; }
uint64_t eng_search_count(const eng_search *s) { return fpset_count(s->set); }
eng_fp eng_search_fp(const eng_search *s, uint32_t id) { return fpset_fp(s->set, id); }
uint32_t eng_search_parent(const eng_search *s, uint32_t id) { return fpset_parent(s->set, id); }
uint32_t eng_search_lookup(const eng_search *s, eng_fp fp) { return fpset_get(s->set, fp); }

void eng__fail(eng_search *s, const char *what)
{
	if (!s->failed) {
		const char *fe_err = s->fe->ops->last_error ? s->fe->ops->last_error(s->fe) : NULL;
		snprintf(s->err, sizeof s->err, "%s%s%s", what, fe_err ? ": " : "", fe_err ? fe_err : "");
	}
	s->failed = true;
	s->stop = 1;
}

static void update_stats(eng_search *s)
{
	eng_stats *st = &s->st;
	st->distinct = fpset_count(s->set);
	st->frontier = eng_queue_len(s->q);
	if (st->frontier > st->frontier_max)
		st->frontier_max = st->frontier;
	st->elapsed_s = s->elapsed_before + (s->t0 ? eng_now() - s->t0 : 0);
	st->states_per_s = st->elapsed_s > 0 ? (double)st->distinct / st->elapsed_s : 0;
	st->transitions_per_s = st->elapsed_s > 0 ? (double)st->transitions / st->elapsed_s : 0;
	st->set_bytes = fpset_bytes(s->set);
	st->collision_p = eng_collision_p(st->distinct);
	if (s->raw_set)
		st->raw_distinct = fpset_count(s->raw_set);
	if (s->canon_set)
		st->canon_distinct = fpset_count(s->canon_set);
}

const eng_stats *eng_search_stats(eng_search *s)
{
	update_stats(s);
	return &s->st;
}

void eng__tick(eng_search *s)
{
	if (++s->ticks & 255) /* the clock costs more than an expansion */
		return;
	double now = eng_now();
	if (now < s->next_tick)
		return;
	s->next_tick = now + s->o.progress_interval;
	update_stats(s);
	for (size_t i = 0; i < s->nls; i++)
		if (s->ls[i].on_progress)
			s->ls[i].on_progress(s->ls[i].ctx, &s->st);
}

void eng__add_pending(eng_search *s, uint32_t state, uint32_t parent, const char *label,
		      eng_fp fp, const char *property, const char *message)
{
	if (s->npend == s->pend_cap) {
		s->pend_cap = s->pend_cap ? 2 * s->pend_cap : 8;
		s->pend = eng_xrealloc(s->pend, s->pend_cap * sizeof *s->pend);
	}
	struct pending *p = &s->pend[s->npend++];
	p->state = state;
	p->parent = parent;
	p->label = label ? eng_xstrdup(label) : NULL;
	p->fp = fp;
	p->property = eng_xstrdup(property ? property : "assert");
	p->message = eng_xstrdup(message ? message : "");
}

/* Report queued violations, each with its rebuilt trace. */
void eng__flush_pending(eng_search *s)
{
	size_t report = s->o.keep_going ? s->npend : (s->npend ? 1 : 0);
	for (size_t i = report; i < s->npend; i++) {
		free(s->pend[i].label);
		free(s->pend[i].property);
		free(s->pend[i].message);
	}
	for (size_t i = 0; i < report; i++) {
		struct pending *p = &s->pend[i];
		/* A transition's trace is the one to its source and its own
		 * step, not the one to its target: a target seen before may
		 * have a shorter trace that does not take this transition. */
		bool step = p->parent != ENG_NO_STATE && p->label;
		eng_trace *t = NULL;
		size_t lost_at = 0;
		if (step) {
			t = eng__search_trace(s, p->parent, &lost_at);
		} else if (p->state != ENG_NO_STATE) {
			t = eng__search_trace(s, p->state, &lost_at);
		} else {
			t = eng_xcalloc(1, sizeof *t);
		}
		if (t && step) {
			t->labels = eng_xrealloc(t->labels, (t->len + 1) * sizeof *t->labels);
			t->fps = eng_xrealloc(t->fps, (t->len + 1) * sizeof *t->fps);
			t->labels[t->len] = eng_xstrdup(p->label);
			t->fps[t->len] = p->fp;
			t->len++;
		}
		eng_violation v = {p->property, p->message,
				   p->state != ENG_NO_STATE ? p->state : p->parent, t,
				   step ? p->parent : ENG_NO_STATE, step ? p->label : NULL,
				   step ? p->state : ENG_NO_STATE, lost_at};
		s->st.violations++;
		for (size_t k = 0; k < s->nls; k++)
			if (s->ls[k].on_violation)
				s->ls[k].on_violation(s->ls[k].ctx, &v);
		eng_trace_free(t);
		free(p->label);
		free(p->property);
		free(p->message);
	}
	if (s->npend && !s->o.keep_going)
		s->stop = 1;
	s->npend = 0;
}

/* The transition being judged: from --label--> id (from ENG_NO_STATE: id
 * is an initial state). */
struct check_ctx {
	eng_search *s;
	uint32_t id, from;
	const char *label;
	eng_fp fp;
	bool bad;
};

static void on_bad(void *ctx, const char *property, const char *message)
{
	struct check_ctx *c = ctx;
	c->bad = true;
	eng__add_pending(c->s, c->id, c->from, c->label, c->fp, property, message);
}

static void count_obs(eng_search *s, const eng_obs *obs)
{
	bool fresh;
	if (!obs)
		return;
	if (!eng_fp_zero(obs->raw)) {
		if (!s->raw_set)
			s->raw_set = fpset_new(0);
		if (s->raw_set)
			fpset_put(s->raw_set, obs->raw, ENG_NO_STATE, &fresh);
	}
	if (!eng_fp_zero(obs->canon)) {
		if (!s->canon_set)
			s->canon_set = fpset_new(0);
		if (s->canon_set)
			fpset_put(s->canon_set, obs->canon, ENG_NO_STATE, &fresh);
	}
}

/*
 * Take one state from a frontend: dedup, number, check, queue, tell the
 * listeners.  `from` is ENG_NO_STATE for initial states.  `known` is the
 * state's id when a lookup already found it (parallel.c), else
 * ENG_NO_STATE.
 */
void eng__edges_flush(eng_search *s)
{
	if (!s->nedges)
		return;
	for (size_t i = 0; i < s->nls; i++)
		if (s->ls[i].on_edges)
			s->ls[i].on_edges(s->ls[i].ctx, s->edges_from, s->edges, s->nedges);
	s->nedges = 0;
}

static void edge_add(eng_search *s, uint32_t to, const eng_succ *x, bool fresh)
{
	if (s->nedges == s->edges_cap) {
		s->edges_cap = s->edges_cap ? 2 * s->edges_cap : BATCH;
		s->edges = eng_xrealloc(s->edges, s->edges_cap * sizeof *s->edges);
	}
	s->edges[s->nedges++] = (eng_edge){to, fresh, x->label, x->obs};
}

/*
 * What is judged where (cmc.h, eng_succ and check()): the frontend's own
 * verdict on a successor (x->property, x->violation) is about the
 * transition that produced it (process mode: the reply to this operation,
 * how the target ended after it, a fault, the allocator's status and a
 * plugin's look at the trace, all from this transition's observation), so
 * it is judged on every transition, into a new state or one seen before,
 * and even past the state bound.  check() is a function of the state bytes
 * the fingerprint identifies (a model's invariants), so it is judged once,
 * when the state is new: judging it again would find the same verdict on
 * the same bytes.
 */
/* What every successor counts, before its id is known. */
static void admit_count(eng_search *s, uint32_t from)
{
	/* edges out of another state go first: on_edges() sees them before
	 * the states this expansion discovers */
	if (s->nedges && from != s->edges_from)
		eng__edges_flush(s);
	s->st.generated++;
	if (from != ENG_NO_STATE)
		s->st.transitions++;
}

static bool admit_as(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t id, bool fresh,
		     bool judged, const eng_verdict *v, size_t nv);

bool eng__admit_placed(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t id,
		       bool fresh, const eng_verdict *v, size_t nv)
{
	admit_count(s, from);
	return admit_as(s, x, from, depth, id, fresh, true, v, nv);
}

bool eng__admit(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t known)
{
	admit_count(s, from);

	if (!x->state) { /* an action failed and produced no state */
		if (x->violation || x->property)
			eng__add_pending(s, ENG_NO_STATE, from, x->label, (eng_fp){0, 0},
					 x->property, x->violation);
		return !s->stop && (s->o.keep_going || s->npend == 0);
	}

	bool fresh = false;
	uint32_t id;
	if (known != ENG_NO_STATE) { /* found before: ids are never taken back */
		id = known;
	} else if (s->o.max_states && fpset_count(s->set) >= s->o.max_states) {
		id = fpset_get(s->set, x->fp);
		if (id == ENG_NO_STATE) {
			s->st.bounded = true;
			if (x->wanted)
				*x->wanted = false;
			/* counted as generated, not admitted, but judged */
			if (x->violation || x->property)
				eng__add_pending(s, ENG_NO_STATE, from, x->label, x->fp, x->property,
						 x->violation);
			return s->o.keep_going || s->npend == 0;
		}
	} else {
		id = fpset_put(s->set, x->fp, from, &fresh);
		if (id == ENG_NO_STATE) {
			s->st.out_of_memory = true;
			update_stats(s);
			snprintf(s->err, sizeof s->err,
				 "out of memory for the visited set after %llu distinct states, "
				 "%llu generated (%zu bytes held)",
				 (unsigned long long)s->st.distinct, (unsigned long long)s->st.generated,
				 fpset_bytes(s->set));
			s->failed = true;
			s->stop = 1;
			return false;
		}
	}
	return admit_as(s, x, from, depth, id, fresh, false, NULL, 0);
}

/*
 * The rest of an admission once the state's id is known.  judged: check()
 * already ran on the state (a fresh one), and v[0..nv) is what it said, in
 * its order.
 */
static bool admit_as(eng_search *s, const eng_succ *x, uint32_t from, uint32_t depth, uint32_t id, bool fresh,
		     bool judged, const eng_verdict *v, size_t nv)
{
	s->last_id = id;

	struct check_ctx c = {s, id, from, x->label, x->fp, false};
	if (x->violation || x->property)
		on_bad(&c, x->property, x->violation);
	if (fresh) {
		if (depth > s->st.depth)
			s->st.depth = depth;
		count_obs(s, x->obs);
		if (judged)
			for (size_t i = 0; i < nv; i++)
				on_bad(&c, v[i].property, v[i].message);
		else if (s->fe->ops->check)
			s->fe->ops->check(s->fe, x->state, x->state_len, x->obs, on_bad, &c);
		eng_state_info info = {id,	  from,		 x->label, depth, x->fp,
				       x->state, x->state_len, x->obs,   c.bad};
		for (size_t i = 0; i < s->nls; i++) {
			if (s->ls[i].on_state)
				s->ls[i].on_state(s->ls[i].ctx, &info);
			if (s->ls[i].on_depth)
				s->ls[i].on_depth(s->ls[i].ctx, depth, 1);
		}
		bool expand = !x->terminal;
		if (s->o.max_depth && depth >= s->o.max_depth) {
			expand = false;
			s->st.bounded = true;
		}
		if (expand)
			eng_queue_push(s->q, id, depth, x->state, x->state_len);
		else if (x->wanted)
			*x->wanted = false;
	} else if (x->wanted) {
		*x->wanted = false;
	}
	if (from != ENG_NO_STATE) {
		for (size_t i = 0; i < s->nls; i++)
			if (s->ls[i].on_transition)
				s->ls[i].on_transition(s->ls[i].ctx, from, id, x->label, x->obs, fresh);
		if (s->want_edges) {
			s->edges_from = from;
			edge_add(s, id, x, fresh);
		}
	}
	/* Without --keep-going the search ends at its first violation, as TLC's
	 * does: nothing after it is admitted. */
	return s->o.keep_going || s->npend == 0;
}

static bool init_cb(void *ctx, const eng_succ *x)
{
	eng_search *s = ctx;
	s->cur_succ++;
	eng_succ y = *x;
	y.label = eng_labels_intern(s->labels, x->label);
	return eng__admit(s, &y, ENG_NO_STATE, 1, ENG_NO_STATE);
}

/* States are handed to frontends at 16-byte aligned addresses (a model's
 * state is a C struct). */
static size_t arena_put(eng_search *s, const void *p, size_t n)
{
	return eng_append16(&s->arena, &s->arena_len, &s->arena_cap, p, n);
}

static bool flush_batch(eng_search *s)
{
	size_t n = s->nbatch;
	bool go = true;
	s->nbatch = 0;
	for (size_t i = 0; i < n; i++)
		fpset_prefetch_slot(s->set, s->batch[i].fp);
	for (size_t i = 0; i < n; i++)
		fpset_prefetch_record(s->set, s->batch[i].fp);
	for (size_t i = 0; i < n && go; i++) {
		struct batched *b = &s->batch[i];
		if (b->deadlock) {
			eng__add_pending(s, b->from, ENG_NO_STATE, NULL, (eng_fp){0, 0}, "deadlock",
					 "no action is enabled");
			go = s->o.keep_going;
			continue;
		}
		eng_succ x = {0};
		x.fp = b->fp;
		x.state = s->arena + b->off;
		x.state_len = b->len;
		x.label = b->label;
		x.terminal = b->terminal;
		go = eng__admit(s, &x, b->from, b->depth, ENG_NO_STATE);
	}
	eng__edges_flush(s); /* their labels are in the arena */
	s->arena_len = 0;
	return go;
}

static bool succ_cb(void *ctx, const eng_succ *x)
{
	eng_search *s = ctx;
	if (s->want_label && (!x->label || strcmp(x->label, s->want_label) != 0))
		return true;
	s->cur_succ++;
	if (s->in_expand && (s->deferring || x->obs || x->property || x->violation || !x->state)) {
		if (!s->deferring && !flush_batch(s))
			return false;
		s->deferring = true;
		eng__defer_put(s, x, s->cur_depth + 1);
		return true;
	}
	if (x->obs || x->property || x->violation || !x->state) {
		if (!flush_batch(s))
			return false;
		eng_succ y = *x;
		y.label = eng_labels_intern(s->labels, x->label);
		bool go = eng__admit(s, &y, s->cur_id, s->cur_depth + 1, ENG_NO_STATE);
		eng__edges_flush(s); /* y.obs is the frontend's, valid until we return */
		return go;
	}
	struct batched *b = &s->batch[s->nbatch++];
	b->fp = x->fp;
	b->from = s->cur_id;
	b->depth = s->cur_depth + 1;
	b->len = x->state_len;
	b->off = arena_put(s, x->state, x->state_len);
	b->label = eng_labels_intern(s->labels, x->label);
	b->terminal = x->terminal;
	if (s->nbatch == BATCH)
		return flush_batch(s);
	return !s->stop && (s->o.keep_going || s->npend == 0);
}

int eng_search_init(eng_search *s)
{
	if (s->inited)
		return s->failed ? -1 : 0;
	s->inited = true;
	if (!s->t0)
		s->t0 = eng_now();
	if (s->fe->ops->initial(s->fe, init_cb, s) < 0)
		eng__fail(s, "cannot produce the initial states");
	eng__flush_pending(s);
	update_stats(s);
	return s->failed ? -1 : 0;
}

/*
 * Expand one state whose bytes are known.  Its plain successors may still
 * wait in the batch when this returns: the caller flushes the batch, then
 * the pending violations.
 */
static int expand(eng_search *s, uint32_t id, uint32_t depth, const void *state, size_t len)
{
	s->cur_id = id;
	s->cur_depth = depth;
	s->cur_succ = 0;
	s->in_expand = true;
	s->deferring = false;
	int rc = s->fe->ops->next(s->fe, state, len, succ_cb, s);
	s->in_expand = false;
	if (rc < 0) {
		/* nothing of it was admitted (defer.c): left whole */
		eng__defer_drop(s);
		if (!s->asked)
			eng__fail(s, "cannot expand a state");
		s->dropped = true;
		return -1;
	}
	if (s->deferring && !eng__defer_admit(s, id, depth + 1))
		return (int)s->cur_succ; /* a violation: flush_pending() stops */
	if (s->cur_succ == 0 && s->o.check_deadlock && !s->fe->deadlock_ok) {
		if (s->nbatch == BATCH)
			flush_batch(s);
		struct batched *b = &s->batch[s->nbatch++];
		memset(b, 0, sizeof *b);
		b->from = id;
		b->deadlock = true;
	}
	return (int)s->cur_succ;
}

static void settle(eng_search *s)
{
	flush_batch(s);
	eng__flush_pending(s);
}

void eng__expand_now(eng_search *s, uint32_t id, uint32_t depth, const void *state, size_t len)
{
	expand(s, id, depth, state, len);
	settle(s);
	eng__tick(s);
}

/* One thread, until the frontier is empty, the search stops, or `until`
 * (a time; 0: none) has passed. */
static void run_one(eng_search *s, double until)
{
	eng_qentry e;
	unsigned n = 0;
	while (!s->stop && eng_queue_pop(s->q, &e)) {
		expand(s, e.id, e.depth, e.state, e.len);
		/* Breadth-first, a group of states is expanded before their
		 * successors are looked up together (see BATCH).  Depth-first
		 * must settle each state before popping the next. */
		for (int g = 1; g < GROUP && s->o.order == ENG_BFS && !s->stop && !s->npend &&
				s->nbatch < BATCH - 32 && eng_queue_pop(s->q, &e); g++)
			expand(s, e.id, e.depth, e.state, e.len);
		settle(s);
		uint64_t f = eng_queue_len(s->q);
		if (f > s->st.frontier_max)
			s->st.frontier_max = f;
		eng__tick(s);
		if (until && !(++n & 63) && eng_now() >= until)
			return;
	}
}

/* Worker threads (parallel.c), likewise; a chunk under way is admitted
 * whole before it returns, so the other mode can take over. */
static void run_pool(eng_search *s, double until)
{
	while (!s->stop && (eng__pool_pending(s) || eng_queue_len(s->q))) {
		eng__pool_step(s, !until || eng_now() < until);
		uint64_t f = eng_queue_len(s->q);
		if (f > s->st.frontier_max)
			s->st.frontier_max = f;
		s->ticks |= 255; /* a chunk is long enough to look at the clock */
		eng__tick(s);
		if (until && !eng__pool_pending(s) && eng_now() >= until)
			return;
	}
}

/* Models on threads (level.c), likewise; a segment under way is searched
 * whole before it returns, or its rest left in the queue. */
static void run_level(eng_search *s, double until)
{
	while (!s->stop && eng_queue_len(s->q)) {
		eng__level_step(s);
		uint64_t f = eng_queue_len(s->q);
		if (f > s->st.frontier_max)
			s->st.frontier_max = f;
		s->ticks |= 255;
		eng__tick(s);
		if (until && eng_now() >= until)
			return;
	}
}

/*
 * With --jobs left at its default, whether threads pay depends on the
 * frontend and the machine: a model's state costs less to expand than to
 * hand between cores, and a process target competes with cmc's own threads
 * for the cores.  So measure: run each mode for a moment, keep the one that
 * generated more states per second.  The two modes admit states in the same
 * order, so switching never changes a result.
 */
#define PROBE_S 0.3

static bool pool_wins(eng_search *s)
{
	double t = eng_now();
	uint64_t g = s->st.generated;
	if (s->level)
		run_level(s, t + PROBE_S);
	else
		run_pool(s, t + PROBE_S);
	double t2 = eng_now();
	double par = (double)(s->st.generated - g) / (t2 - t > 0 ? t2 - t : 1e-9);
	g = s->st.generated;
	run_one(s, t2 + PROBE_S);
	double t3 = eng_now();
	double one = (double)(s->st.generated - g) / (t3 - t2 > 0 ? t3 - t2 : 1e-9);
	return par > one;
}

int eng_search_run(eng_search *s)
{
	s->stop = 0;
	s->asked = 0;
	s->t0 = eng_now();
	s->next_tick = s->t0 + s->o.progress_interval;
	if (eng_search_init(s) < 0)
		goto out;
	if (s->o.jobs > 1 && s->o.order == ENG_BFS && !s->one_job && !s->pool && !s->level &&
	    eng__level_usable(s))
		eng__level_start(s);
	if (s->o.jobs > 1 && s->o.order == ENG_BFS && !s->one_job &&
	    (s->level || s->pool || eng__pool_start(s) == 0)) {
		if (s->o.jobs_auto && !s->probed) {
			s->probed = true;
			s->one_job = !pool_wins(s);
		}
		if (!s->one_job && s->level)
			run_level(s, 0);
		else if (!s->one_job)
			run_pool(s, 0);
	}
	run_one(s, 0);
out:
	s->st.stopped = s->stop && !s->failed && !s->st.violations;
	s->elapsed_before += eng_now() - s->t0;
	s->t0 = 0;
	update_stats(s);
	s->st.complete = !s->failed && !s->dropped && eng_queue_len(s->q) == 0 && !eng__pool_pending(s) &&
			 !s->st.bounded &&
			 (s->o.keep_going || s->st.violations == 0);
	if (s->st.violations && !s->o.keep_going)
		s->st.complete = false;
	CMC_ASSERT_EXPENSIVE(eng_search_is_valid(s)); /* the end of a run: no worker runs */
	for (size_t i = 0; i < s->nls; i++)
		if (s->ls[i].on_done)
			s->ls[i].on_done(s->ls[i].ctx, &s->st);
	return s->failed ? -1 : 0;
}

/*
 * The search between runs: its visited sets, its frontier and the pool's
 * slots each by their own validator, the buffers within their room, and
 * the figures last reported match the structures they count.
 */
bool eng_search_is_valid(const eng_search *s)
{
	fpset_is_valid(s->set);
	if (s->raw_set)
		fpset_is_valid(s->raw_set);
	if (s->canon_set)
		fpset_is_valid(s->canon_set);
	eng_queue_is_valid(s->q);
	eng__pool_is_valid(s);
	eng__level_is_valid(s);
	CMC_VALID(s->nls <= MAX_LISTENERS && s->nbatch <= BATCH && s->npend <= s->pend_cap &&
			  s->ndefer <= s->defer_cap && s->nedges <= s->edges_cap &&
			  s->arena_len <= s->arena_cap,
		  "search buffers: one holds more than its room");
	CMC_VALID(s->st.distinct == fpset_count(s->set) && s->st.frontier == eng_queue_len(s->q),
		  "search figures: %llu distinct and %llu waiting reported, the set holds %llu and the "
		  "queue %llu",
		  (unsigned long long)s->st.distinct, (unsigned long long)s->st.frontier,
		  (unsigned long long)fpset_count(s->set), (unsigned long long)eng_queue_len(s->q));
	return true;
}

static uint32_t depth_of(const eng_search *s, uint32_t id)
{
	uint32_t d = 1;
	for (uint32_t p = fpset_parent(s->set, id); p != ENG_NO_STATE; p = fpset_parent(s->set, p))
		d++;
	return d;
}

int eng_search_expand(eng_search *s, uint32_t id)
{
	if (eng_search_init(s) < 0 || id >= fpset_count(s->set))
		return -1;
	size_t len;
	void *st = eng_search_state(s, id, &len);
	if (!st)
		return -1;
	s->stop = 0;
	int n = expand(s, id, depth_of(s, id), st, len);
	settle(s);
	free(st);
	update_stats(s);
	return n;
}

int eng_search_apply(eng_search *s, uint32_t id, const char *label, uint32_t *out)
{
	if (eng_search_init(s) < 0 || id >= fpset_count(s->set))
		return -1;
	size_t len;
	void *st = eng_search_state(s, id, &len);
	if (!st)
		return -1;
	s->stop = 0;
	s->cur_id = id;
	s->cur_depth = depth_of(s, id);
	s->cur_succ = 0;
	s->last_id = ENG_NO_STATE;
	int rc;
	if (s->fe->ops->apply) {
		rc = s->fe->ops->apply(s->fe, st, len, label, succ_cb, s);
	} else {
		s->want_label = label;
		rc = s->fe->ops->next(s->fe, st, len, succ_cb, s);
		s->want_label = NULL;
	}
	free(st);
	if (rc < 0)
		eng__fail(s, "cannot apply the action");
	settle(s);
	update_stats(s);
	if (rc < 0 || s->cur_succ == 0)
		return -1;
	if (out)
		*out = s->last_id;
	return (int)s->cur_succ;
}

int eng_search_focus(eng_search *s, uint32_t id)
{
	if (eng_search_init(s) < 0 || id >= fpset_count(s->set))
		return -1;
	size_t len;
	void *st = eng_search_state(s, id, &len);
	if (!st)
		return -1;
	eng_queue_clear(s->q);
	eng_queue_push(s->q, id, depth_of(s, id), st, len);
	free(st);
	return 0;
}

eng_frontend *eng_search_frontend(eng_search *s) { return s->fe; }

/* ---- restoring a saved search (see cmc.h) ------------------------------ */

uint32_t eng_search_restore_state(eng_search *s, eng_fp fp, uint32_t parent, uint32_t depth,
				  eng_fp raw, eng_fp canon)
{
	s->inited = true; /* the initial states are among the restored ones */
	bool fresh;
	uint32_t id = fpset_put(s->set, fp, parent, &fresh);
	if (id == ENG_NO_STATE)
		return id;
	if (depth > s->st.depth)
		s->st.depth = depth;
	eng_obs o = {0};
	o.raw = raw;
	o.canon = canon;
	count_obs(s, &o);
	return id;
}

void eng_search_restore_frontier(eng_search *s, uint32_t id, uint32_t depth, const void *state,
				 size_t len)
{
	s->inited = true;
	eng_queue_push(s->q, id, depth, state, len);
}

void eng_search_restore_stats(eng_search *s, uint64_t generated, uint64_t transitions,
			      uint64_t violations, double elapsed_s)
{
	s->st.generated = generated;
	s->st.transitions = transitions;
	s->st.violations = violations;
	s->elapsed_before = elapsed_s;
}
