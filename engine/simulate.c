/*
 * simulate.c — random walks over a frontend, for state spaces too large to
 * exhaust.  Walk w draws its choices from a generator seeded with (seed, w),
 * so the same seed gives the same walks whatever else happens.  Every
 * successor produced along a walk is checked, not only the one taken.
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "fpset.h"
#include "util.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The caller's stop flag is set (eng_sim_opts.stop). */
static bool asked_to_stop(const eng_sim_opts *o)
{
	return o->stop && *o->stop;
}

struct cand {
	char *label;
	void *state;
	size_t len;
	eng_fp fp;
	bool terminal;
	char *property, *message; /* first violated property, if any */
};

struct sim {
	eng_frontend *fe;
	struct cand *c;
	size_t n, cap;
	fpset *seen;
	eng_stats *st;
	const eng_sim_opts *o;
	const eng_listener *ls;
	size_t nls;
	struct cand *cur; /* candidate being checked */
};

static void sim_bad(void *ctx, const char *property, const char *message)
{
	struct sim *m = ctx;
	if (!m->cur->property) {
		m->cur->property = eng_xstrdup(property ? property : "assert");
		m->cur->message = eng_xstrdup(message ? message : "");
	}
}

static bool sim_cb(void *ctx, const eng_succ *x)
{
	struct sim *m = ctx;
	m->st->generated++;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->c = eng_xrealloc(m->c, m->cap * sizeof *m->c);
	}
	struct cand *c = &m->c[m->n++];
	memset(c, 0, sizeof *c);
	c->label = eng_xstrdup(x->label ? x->label : "?");
	c->fp = x->fp;
	c->terminal = x->terminal;
	if (x->state) {
		c->state = eng_xmemdup(x->state, x->state_len);
		c->len = x->state_len;
	}
	m->cur = c;
	if (x->property || x->violation)
		sim_bad(m, x->property, x->violation);
	if (x->state && m->fe->ops->check)
		m->fe->ops->check(m->fe, x->state, x->state_len, x->obs, sim_bad, m);
	if (x->state) {
		bool fresh;
		fpset_put(m->seen, x->fp, ENG_NO_STATE, &fresh);
	}
	return true;
}

static void clear(struct sim *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->c[i].label);
		free(m->c[i].state);
		free(m->c[i].property);
		free(m->c[i].message);
	}
	m->n = 0;
}

static void report(struct sim *m, eng_trace *walk, const struct cand *c, bool append)
{
	eng_trace t = *walk;
	char *lab[1];
	if (append) { /* the walk so far plus the violating step */
		t.labels = eng_xmalloc((walk->len + 1) * sizeof *t.labels);
		t.fps = eng_xmalloc((walk->len + 1) * sizeof *t.fps);
		if (walk->len) {
			memcpy(t.labels, walk->labels, walk->len * sizeof *t.labels);
			memcpy(t.fps, walk->fps, walk->len * sizeof *t.fps);
		}
		lab[0] = c->label;
		t.labels[walk->len] = lab[0];
		t.fps[walk->len] = c->fp;
		t.len = walk->len + 1;
	}
	eng_violation v = {c->property, c->message, ENG_NO_STATE, &t, ENG_NO_STATE, NULL, ENG_NO_STATE, 0};
	m->st->violations++;
	for (size_t i = 0; i < m->nls; i++)
		if (m->ls[i].on_violation)
			m->ls[i].on_violation(m->ls[i].ctx, &v);
	if (append) {
		free(t.labels);
		free(t.fps);
	}
}

int eng_simulate(eng_frontend *fe, const eng_sim_opts *o, const eng_listener *ls, size_t nls,
		 eng_stats *st)
{
	struct sim m = {fe, NULL, 0, 0, fpset_new(0), st, o, ls, nls, NULL};
	memset(st, 0, sizeof *st);
	double t0 = eng_now(), next_tick = t0 + 0.25;
	int rc = 0;
	bool stop = false;
	eng_trace walk = {0};
	size_t walk_cap = 0;

	for (uint64_t w = 0; w < o->walks && !stop && !asked_to_stop(o); w++) {
		uint64_t rng = o->seed * 0x100000001b3ULL + w;
		for (size_t i = 0; i < walk.len; i++)
			free(walk.labels[i]);
		walk.len = 0;
		clear(&m);
		if (fe->ops->initial(fe, sim_cb, &m) < 0) {
			rc = -1;
			break;
		}
		if (m.n == 0)
			break;
		for (size_t i = 0; i < m.n; i++)
			if (m.c[i].property) {
				report(&m, &walk, &m.c[i], false);
				stop = !o->keep_going;
			}
		struct cand cur = m.c[splitmix(&rng) % m.n];
		walk.init_fp = cur.fp;
		void *state = eng_xmemdup(cur.state, cur.len);
		size_t len = cur.len;
		bool terminal = cur.terminal;
		uint32_t steps = 1;
		while (!stop && !asked_to_stop(o) && !terminal && steps < (o->depth ? o->depth : 100)) {
			clear(&m);
			if (fe->ops->next(fe, state, len, sim_cb, &m) < 0) {
				rc = -1;
				stop = true;
				break;
			}
			for (size_t i = 0; i < m.n; i++)
				if (m.c[i].property) {
					report(&m, &walk, &m.c[i], true);
					if (!o->keep_going)
						stop = true;
				}
			if (stop)
				break;
			if (m.n == 0) {
				if (!fe->deadlock_ok) {
					struct cand d = {0};
					d.property = "deadlock";
					d.message = "no action is enabled";
					report(&m, &walk, &d, false);
					if (!o->keep_going)
						stop = true;
				}
				break;
			}
			size_t pick = splitmix(&rng) % m.n;
			while (!m.c[pick].state) /* action failures carry no state */
				pick = (pick + 1) % m.n;
			struct cand *c = &m.c[pick];
			if (walk.len == walk_cap) {
				walk_cap = walk_cap ? 2 * walk_cap : 32;
				walk.labels = eng_xrealloc(walk.labels, walk_cap * sizeof *walk.labels);
				walk.fps = eng_xrealloc(walk.fps, walk_cap * sizeof *walk.fps);
			}
			walk.labels[walk.len] = eng_xstrdup(c->label);
			walk.fps[walk.len] = c->fp;
			walk.len++;
			free(state);
			state = eng_xmemdup(c->state, c->len);
			len = c->len;
			terminal = c->terminal;
			st->transitions++;
			steps++;
		}
		free(state);
		if (steps > st->depth)
			st->depth = steps;
		double now = eng_now();
		if (now >= next_tick) {
			next_tick = now + 0.25;
			st->distinct = fpset_count(m.seen);
			st->elapsed_s = now - t0;
			st->states_per_s = st->elapsed_s > 0 ? st->distinct / st->elapsed_s : 0;
			st->transitions_per_s = st->elapsed_s > 0 ? st->transitions / st->elapsed_s : 0;
			for (size_t i = 0; i < nls; i++)
				if (ls[i].on_progress)
					ls[i].on_progress(ls[i].ctx, st);
		}
	}
	clear(&m);
	free(m.c);
	for (size_t i = 0; i < walk.len; i++)
		free(walk.labels[i]);
	free(walk.labels);
	free(walk.fps);
	st->distinct = fpset_count(m.seen);
	st->elapsed_s = eng_now() - t0;
	st->states_per_s = st->elapsed_s > 0 ? st->distinct / st->elapsed_s : 0;
	st->transitions_per_s = st->elapsed_s > 0 ? st->transitions / st->elapsed_s : 0;
	st->set_bytes = fpset_bytes(m.seen);
	st->collision_p = eng_collision_p(st->distinct);
	st->complete = rc == 0 && !stop;
	st->stopped = asked_to_stop(o);
	if (st->stopped)
		st->complete = false;
	fpset_free(m.seen);
	for (size_t i = 0; i < nls; i++)
		if (ls[i].on_done)
			ls[i].on_done(ls[i].ctx, st);
	return rc;
}
