/*
 * replay.c — re-executing a trace of labels from an initial state, step by
 * step, comparing each reached fingerprint with the recorded one.  It is how
 * `cmc replay` checks a counterexample against the live target, and how a
 * nondeterministic target is caught: the first step whose fingerprint
 * differs is named.
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "util.h"

struct pick {
	const char *label; /* NULL: initial state */
	eng_fp want;       /* zero: any */
	bool found, exact;
	void *state;
	size_t len;
	eng_replay_fn fn;
	void *ctx;
	size_t step;
};

/* Take the first successor with the label, preferring one whose fingerprint
 * matches the recorded one (a nondeterministic action may offer several). */
static bool pick_cb(void *ctx, const eng_succ *x)
{
	struct pick *p = ctx;
	if (p->label && (!x->label || strcmp(x->label, p->label) != 0))
		return true;
	if (!x->state)
		return true;
	bool exact = eng_fp_zero(p->want) || eng_fp_eq(p->want, x->fp);
	if (p->found && (p->exact || !exact))
		return true;
	free(p->state);
	p->state = eng_xmemdup(x->state, x->state_len);
	p->len = x->state_len;
	p->found = true;
	p->exact = exact;
	if (p->fn)
		p->fn(p->ctx, p->step, p->label, x, exact);
	return !exact;
}

long eng_replay(eng_frontend *fe, const eng_trace *t, eng_replay_fn fn, void *ctx,
		size_t *diverged, char *why, size_t whylen)
{
	*diverged = SIZE_MAX;
	struct pick p = {NULL, t->init_fp, false, false, NULL, 0, NULL, NULL, 0};
	if (fe->ops->initial(fe, pick_cb, &p) < 0 || !p.found) {
		snprintf(why, whylen, "no initial state%s", p.found ? "" : " matches");
		*diverged = 0;
		free(p.state);
		return 0;
	}
	if (!p.exact) {
		snprintf(why, whylen, "initial state differs from the recorded one");
		*diverged = 0;
	}
	long done = 0;
	for (size_t i = 0; i < t->len; i++) {
		struct pick q = {t->labels[i], t->fps ? t->fps[i] : (eng_fp){0, 0},
				 false, false, NULL, 0, fn, ctx, i};
		int rc = fe->ops->next(fe, p.state, p.len, pick_cb, &q);
		free(p.state);
		if (rc < 0 || !q.found) {
			free(q.state);
			if (*diverged == SIZE_MAX) {
				*diverged = i;
				snprintf(why, whylen, "step %zu: action '%s' %s", i + 1, t->labels[i],
					 rc < 0 ? "failed" : "is not enabled");
			}
			return done;
		}
		if (!q.exact && *diverged == SIZE_MAX) {
			*diverged = i;
			snprintf(why, whylen, "step %zu (%s): fingerprint differs from the recorded one",
				 i + 1, t->labels[i]);
		}
		p = q;
		done++;
	}
	free(p.state);
	return done;
}
