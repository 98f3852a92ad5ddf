/*
 * replay_trace.c — re-executing a trace of labels from an initial state and
 * judging every state it reaches as the search does (search.c, eng__admit:
 * the violation a successor carries, then the frontend's check(); deadlock
 * as expand() finds it).  It is how `cmc replay` and the workbench prove a
 * counterexample against the live target, and how a nondeterministic target
 * is caught: each reached fingerprint is compared with the recorded one.
 *
 * Owns nothing past a call: what a frontend hands out is copied while its
 * callback runs (observations are valid only then), judged after the
 * frontend returned, handed to the caller's step function, and freed.
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "util.h"

/* A successor kept past the frontend's callback: its bytes, observation
 * and the violation it carried. */
struct kept {
	bool have;
	eng_fp fp;
	void *state;
	size_t len;
	bool terminal;
	bool has_obs;
	eng_obs obs;        /* its pointers are the copies below */
	char *property, *violation;
};

static void kept_free(struct kept *k)
{
	free(k->state);
	if (k->has_obs) {
		free((void *)k->obs.raw_bytes);
		free((void *)k->obs.canon_rec);
		free((void *)k->obs.reply);
		free((void *)k->obs.files_sum);
		free((void *)k->obs.fault);
	}
	free(k->property);
	free(k->violation);
	memset(k, 0, sizeof *k);
}

static void *dup_or_null(const void *p, size_t n) { return p && n ? eng_xmemdup(p, n) : NULL; }

static void kept_set(struct kept *k, const eng_succ *x)
{
	kept_free(k);
	k->have = true;
	k->fp = x->fp;
	k->state = x->state ? eng_xmemdup(x->state, x->state_len ? x->state_len : 1) : NULL;
	k->len = x->state_len;
	k->terminal = x->terminal;
	if (x->obs) {
		k->has_obs = true;
		k->obs = *x->obs;
		k->obs.raw_bytes = dup_or_null(x->obs->raw_bytes, x->obs->raw_len);
		k->obs.canon_rec = dup_or_null(x->obs->canon_rec, x->obs->canon_len);
		k->obs.reply = dup_or_null(x->obs->reply, x->obs->reply_len);
		k->obs.files_sum = dup_or_null(x->obs->files_sum, x->obs->files_len);
		if (!k->obs.files_sum)
			k->obs.files_len = 0;
		k->obs.fault = x->obs->fault ? eng_xstrdup(x->obs->fault) : NULL;
		if (!k->obs.raw_bytes)
			k->obs.raw_len = 0;
		if (!k->obs.canon_rec)
			k->obs.canon_len = 0;
		if (!k->obs.reply)
			k->obs.reply_len = 0;
	}
	if (x->violation || x->property) {
		k->property = eng_xstrdup(x->property ? x->property : "assert");
		k->violation = eng_xstrdup(x->violation ? x->violation : "");
	}
}

/* One step's choice among the successors the frontend offers. */
struct pick {
	const char *label;  /* NULL: initial states */
	eng_fp want;        /* zero: any */
	long index;         /* initial states: the Nth, or -1 */
	long seen;          /* initial states offered so far */
	struct kept st;     /* the successor with a state taken */
	bool exact;         /* st has the wanted fingerprint (or the index) */
	struct kept fail;   /* the first one with this label that failed (no state) */
};

/* Prefer the successor whose fingerprint is the recorded one (a
 * nondeterministic action may offer several), else the first. */
static bool pick_cb(void *ctx, const eng_succ *x)
{
	struct pick *p = ctx;
	if (p->label && (!x->label || strcmp(x->label, p->label) != 0))
		return true;
	if (!x->state) {
		if (!p->fail.have && (x->violation || x->property))
			kept_set(&p->fail, x);
		return true;
	}
	long n = p->seen++;
	if (!p->label && p->index >= 0) {
		if (n != p->index)
			return true;
		kept_set(&p->st, x);
		p->exact = true;
		return false;
	}
	bool exact = eng_fp_zero(p->want) || eng_fp_eq(p->want, x->fp);
	if (p->st.have && (p->exact || !exact))
		return true;
	kept_set(&p->st, x);
	p->exact = exact;
	/* An exact match ends the search; without a recorded fingerprint, a
	 * failing successor with the label may still come and is preferred. */
	return !(exact && !eng_fp_zero(p->want));
}

/* The properties failing at one step, in the order the search reports
 * them: the successor's own violation, then the frontend's check(). */
struct judged {
	size_t n, cap;
	char **property, **message;
};

static void judged_add(void *ctx, const char *property, const char *message)
{
	struct judged *j = ctx;
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 4;
		j->property = eng_xrealloc(j->property, j->cap * sizeof *j->property);
		j->message = eng_xrealloc(j->message, j->cap * sizeof *j->message);
	}
	j->property[j->n] = eng_xstrdup(property ? property : "assert");
	j->message[j->n] = eng_xstrdup(message ? message : "");
	j->n++;
}

static void judged_free(struct judged *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->property[i]);
		free(j->message[i]);
	}
	free(j->property);
	free(j->message);
	memset(j, 0, sizeof *j);
}

static bool count_cb(void *ctx, const eng_succ *x)
{
	(*(size_t *)ctx)++;
	return false; /* one is enough: the state is not a deadlock */
}

static const char *fe_error(eng_frontend *fe)
{
	const char *e = fe->ops->last_error ? fe->ops->last_error(fe) : NULL;
	return e && *e ? e : "the frontend failed";
}

void eng_replay_opts_default(eng_replay_opts *o)
{
	memset(o, 0, sizeof *o);
	o->init_index = -1;
	o->check_deadlock = true;
}

static void diverge(eng_replay_result *r, size_t step, eng_step_outcome how, eng_fp want,
		    eng_fp got)
{
	if (r->diverged != SIZE_MAX)
		return;
	r->diverged = step;
	r->how = how;
	r->expected = want;
	r->actual = got;
}

int eng_replay(eng_frontend *fe, const eng_trace *t, const eng_replay_opts *o,
	       eng_replay_result *r)
{
	eng_replay_opts dflt;
	if (!o) {
		eng_replay_opts_default(&dflt);
		o = &dflt;
	}
	memset(r, 0, sizeof *r);
	r->diverged = SIZE_MAX;
	r->violated = SIZE_MAX;
	struct kept cur = {0};
	int rc = 0;
	for (size_t i = 0; i <= t->len; i++) {
		const char *label = i ? t->labels[i - 1] : NULL;
		eng_fp want = i ? (t->fps ? t->fps[i - 1] : (eng_fp){0, 0}) : t->init_fp;
		struct pick p = {label, want, i ? -1 : o->init_index, 0, {0}, false, {0}};
		int frc;
		if (!i)
			frc = fe->ops->initial(fe, pick_cb, &p);
		else if (fe->ops->apply)
			frc = fe->ops->apply(fe, cur.state, cur.len, label, pick_cb, &p);
		else
			frc = fe->ops->next(fe, cur.state, cur.len, pick_cb, &p);

		eng_replay_step s = {i, label, ENG_STEP_UNRECORDED, want, NULL, 0, NULL, NULL, false};
		struct kept *got = NULL;
		if (frc < 0) {
			s.outcome = ENG_STEP_ERROR;
			r->error = true;
			diverge(r, i, ENG_STEP_ERROR, want, (eng_fp){0, 0});
			if (i)
				snprintf(r->why, sizeof r->why, "step %zu (%s): %s", i, label, fe_error(fe));
			else
				snprintf(r->why, sizeof r->why, "initial state: %s", fe_error(fe));
			rc = -1;
		} else if (p.st.have && ((p.exact && !eng_fp_zero(want)) || !p.fail.have)) {
			got = &p.st; /* the trace goes on through a state */
		} else if (p.fail.have) {
			got = &p.fail; /* the action itself failed */
		} else {
			s.outcome = ENG_STEP_NOT_TAKEN;
			diverge(r, i, ENG_STEP_NOT_TAKEN, want, (eng_fp){0, 0});
			if (i)
				snprintf(r->why, sizeof r->why, "step %zu (%s): the action is not enabled", i, label);
			else if (o->init_index >= 0)
				snprintf(r->why, sizeof r->why, "there is no initial state %ld (%ld in all)",
					 o->init_index, p.seen);
			else
				snprintf(r->why, sizeof r->why, "there is no initial state");
		}

		struct judged j = {0};
		eng_succ x = {0};
		if (got) {
			x.label = label;
			x.state = got->state;
			x.state_len = got->len;
			x.fp = got->fp;
			x.obs = got->has_obs ? &got->obs : NULL;
			x.property = got->property;
			x.violation = got->violation;
			x.terminal = got->terminal;
			s.succ = &x;
			if (i)
				r->taken++;
			if (eng_fp_zero(want)) {
				s.outcome = ENG_STEP_UNRECORDED;
			} else if (got->state && eng_fp_eq(want, got->fp)) {
				s.outcome = ENG_STEP_MATCHED;
			} else {
				s.outcome = ENG_STEP_DIVERGED;
				diverge(r, i, ENG_STEP_DIVERGED, want, got->fp);
				if (i)
					snprintf(r->why, sizeof r->why, "step %zu (%s): reached a state other "
						 "than the recorded one", i, label);
				else
					snprintf(r->why, sizeof r->why, "no initial state is the recorded one");
			}
			if (got->property)
				judged_add(&j, got->property, got->violation);
			if (got->state && fe->ops->check)
				fe->ops->check(fe, got->state, got->len, x.obs, judged_add, &j);
			s.fault = x.obs && (x.obs->flags & (ENG_OBS_SIGNALED | ENG_OBS_FAULT));
			/* After the last step: a deadlock, as the search finds it. */
			if (i == t->len && !j.n && got->state && !got->terminal && o->check_deadlock &&
			    !fe->deadlock_ok) {
				size_t n = 0;
				if (fe->ops->next(fe, got->state, got->len, count_cb, &n) < 0) {
					r->error = true;
					diverge(r, i, ENG_STEP_ERROR, want, (eng_fp){0, 0});
					snprintf(r->why, sizeof r->why, "looking for a deadlock after step %zu: %s",
						 i, fe_error(fe));
					rc = -1;
				} else if (n == 0) {
					judged_add(&j, "deadlock", "no action is enabled");
				}
			}
		}
		s.nviolated = j.n;
		s.property = (const char *const *)j.property;
		s.message = (const char *const *)j.message;
		if (j.n && r->violated == SIZE_MAX) {
			size_t k = 0;
			for (size_t m = 0; o->expect && m < j.n; m++)
				if (strcmp(j.property[m], o->expect) == 0) {
					k = m;
					break;
				}
			r->violated = i;
			snprintf(r->property, sizeof r->property, "%s", j.property[k]);
			snprintf(r->message, sizeof r->message, "%s", j.message[k]);
			r->fault = s.fault;
		}
		if (o->fn)
			o->fn(o->ctx, &s);
		judged_free(&j);
		bool go_on = got && got == &p.st && rc == 0 && r->violated == SIZE_MAX;
		kept_free(&cur);
		if (go_on) {
			cur = p.st; /* moved */
			memset(&p.st, 0, sizeof p.st);
		}
		kept_free(&p.st);
		kept_free(&p.fail);
		if (!go_on)
			break;
	}
	kept_free(&cur);
	return rc;
}
