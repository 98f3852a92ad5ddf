/*
 * t0-judge.c — what the search judges where (cmc.h, eng_succ and check()):
 * a frontend's verdict on a successor is judged on every transition, also
 * into a state seen before; check() once per state.  A frontend of two
 * states: from either, "good" and "bad" lead to state 1, and "bad" carries
 * a violation (as a process target's bad reply does); state 1 breaks the
 * invariant check() reports.  Listed in either order, searched on one job
 * or two, the same violations come, each naming its transition.
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "tap.h"

struct fake {
	eng_frontend fe;
	bool bad_first;      /* emit "bad" before "good" */
	unsigned checks;     /* check() calls */
};

static bool emit(eng_succ_fn fn, void *ctx, const char *label, bool bad)
{
	static const unsigned char one = 1;
	eng_succ x = {0};
	x.label = label;
	x.state = &one;
	x.state_len = 1;
	x.fp = eng_fp_of(&one, 1);
	if (bad) {
		x.property = "reply";
		x.violation = "bad step";
	}
	return fn(ctx, &x);
}

static int f_initial(eng_frontend *fe, eng_succ_fn fn, void *ctx)
{
	static const unsigned char zero = 0;
	eng_succ x = {0};
	x.state = &zero;
	x.state_len = 1;
	x.fp = eng_fp_of(&zero, 1);
	fn(ctx, &x);
	return 0;
}

static int f_next(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx)
{
	struct fake *f = (struct fake *)fe;
	if (emit(fn, ctx, f->bad_first ? "bad" : "good", f->bad_first))
		emit(fn, ctx, f->bad_first ? "good" : "bad", !f->bad_first);
	return 0;
}

static void f_check(eng_frontend *fe, const void *state, size_t len, const eng_obs *obs,
		    eng_bad_fn bad, void *ctx)
{
	struct fake *f = (struct fake *)fe;
	__atomic_add_fetch(&f->checks, 1, __ATOMIC_RELAXED);
	if (*(const unsigned char *)state == 1)
		bad(ctx, "invariant:zero", "invariant is violated");
}

static eng_frontend *f_clone(eng_frontend *fe) { return fe; }

static const struct eng_frontend_ops fake_ops = {
	.kind = "model",
	.initial = f_initial,
	.next = f_next,
	.check = f_check,
	.clone = f_clone,
};

/* The violations as one string: "property from-label->to (trace);" each. */
struct seen {
	char text[1024];
};

static void on_violation(void *ctx, const eng_violation *v)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);
	char from[16] = "-", to[16] = "-";
	if (v->from != ENG_NO_STATE)
		snprintf(from, sizeof from, "%u", v->from);
	if (v->to != ENG_NO_STATE)
		snprintf(to, sizeof to, "%u", v->to);
	n += (size_t)snprintf(s->text + n, sizeof s->text - n, "%s %s-%s->%s (", v->property, from,
			      v->label ? v->label : "", to);
	for (size_t i = 0; v->trace && i < v->trace->len; i++)
		n += (size_t)snprintf(s->text + n, sizeof s->text - n, "%s%s", i ? " " : "",
				      v->trace->labels[i]);
	snprintf(s->text + n, sizeof s->text - n, "); ");
}

static void run(bool bad_first, unsigned jobs, bool keep_going, struct seen *out, uint64_t *nviol,
		unsigned *checks)
{
	struct fake f = {{&fake_ops, true, "judge"}, bad_first, 0};
	eng_opts o;
	eng_opts_default(&o);
	o.jobs = jobs;
	o.keep_going = keep_going;
	eng_search *s = eng_search_new(&f.fe, &o);
	memset(out, 0, sizeof *out);
	eng_listener l = {0};
	l.on_violation = on_violation;
	l.ctx = out;
	eng_search_listen(s, &l);
	eng_search_run(s);
	*nviol = eng_search_stats(s)->violations;
	*checks = f.checks;
	eng_search_free(s);
}

int main(void)
{
	/* BFS, good first: state 1 is found by 0-good->1 (the invariant),
	 * then 0-bad->1 into it, then from 1: 1-bad->1. */
	const char *want_gb = "invariant:zero 0-good->1 (good); reply 0-bad->1 (bad); "
			      "reply 1-bad->1 (good bad); ";
	/* bad first: 0-bad->1 finds state 1, judged as a transition and then
	 * as a state; from 1, 1-bad->1. */
	const char *want_bg = "reply 0-bad->1 (bad); invariant:zero 0-bad->1 (bad); "
			      "reply 1-bad->1 (bad bad); ";
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		for (int bf = 0; bf <= 1; bf++) {
			struct seen s;
			uint64_t n;
			unsigned checks;
			run(bf, jobs, true, &s, &n, &checks);
			ok(n == 3, "%s first, --jobs %u, --keep-going: 3 violations (got %llu)",
			   bf ? "bad" : "good", jobs, (unsigned long long)n);
			ok(!strcmp(s.text, bf ? want_bg : want_gb), "... each on its transition: %s",
			   s.text);
			ok(checks == 2, "... check() once per state (got %u)", checks);
			run(bf, jobs, false, &s, &n, &checks);
			ok(n == 1, "%s first, --jobs %u: stops at the first violation (got %llu)",
			   bf ? "bad" : "good", jobs, (unsigned long long)n);
		}
	}
	return tap_done();
}
