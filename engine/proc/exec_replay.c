/*
 * exec_replay.c — the stateless replay executor: to reach a state, start a
 * fresh target and replay the state's trace; to apply an operation, send it
 * and observe.  When the live process has already moved past the origin (a
 * previous apply), the origin is re-established by another fresh replay.
 * Slow (exec + prefix per successor) but simple, and the reference the fork
 * executor must agree with.
 *
 * Owns at most one live target at a time; release() and destroy() kill it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "durable.h"
#include "prop.h"
#include "target.h"
#include "util.h"

struct replay {
	struct proc_exec x;     /* first: the common part */
	const struct proc_image *img;
	struct proc_target *t;  /* live target or NULL */
	bool at_origin;         /* t is at the state after trace */
	uint16_t *trace;        /* the origin's trace */
	size_t n, cap;
	struct proc_obs scratch;
};

static void kill_live(struct replay *r)
{
	proc_target_kill(r->t);
	r->t = NULL;
	r->at_origin = false;
}

/*
 * cmc schedules a target's operations, not its threads, and drives its
 * clocks, alarms and timed waits, not a timerfd or a POSIX timer: a
 * target that runs threads (memcached, redis-server) may do other things
 * between two operations on every run, one whose timer runs on real time
 * fires wherever it falls, and then its states and counts are not
 * reproducible.  The fork executor refuses such a target and says so;
 * replay runs it, and says so once per run, at the first quiescent point
 * that finds one.
 */
static void note_unscheduled(struct replay *r)
{
	bool *said = r->x.said_threads;
	if (!said || __atomic_load_n(said, __ATOMIC_RELAXED) || !r->t)
		return;
	int n = proc_threads(r->t->pid);
	const char *timer = n > 1 ? NULL : proc_real_timer(r->t->pid);
	if ((n > 1 || timer) && !__atomic_exchange_n(said, true, __ATOMIC_RELAXED)) {
		if (timer)
			fprintf(stderr,
				"cmc: %s: the target holds %s, which runs on real time, not cmc's "
				"virtual clock: states and counts may differ from run to run\n",
				r->x.sc->path, timer);
		else
			fprintf(stderr,
				"cmc: %s: the target runs %d threads, which cmc does not schedule: states "
				"and counts may differ from run to run\n",
				r->x.sc->path, n);
	}
}

static void keep_reply(struct proc_exec *x, size_t i, const struct proc_buf *b)
{
	if (x->keep_replies)
		proc_exec_replies_set(x, i, proc_bytes_new(b->p, b->len));
}

/* One operation on the live target: sent, or for a crash the target
 * killed and started again on its files (durable.c), r->t then the new
 * one, NULL when it did not start again (o says why: its fault). */
static enum proc_wait step(struct replay *r, const struct proc_op *op, struct proc_obs *o, double *el)
{
	struct proc_exec *x = &r->x;
	if (!op->crash)
		return proc_target_op(r->t, op, x->sc->timeout_ms, el);
	double t0 = eng_now();
	r->t = proc_target_crash(r->t, op, x->preload, o, &x->st.spawn_s);
	x->st.spawns++;
	*el = eng_now() - t0;
	if (!r->t)
		proc_obs_seal(o);
	return r->t ? PROC_QUIESCENT : PROC_GONE;
}

/* Fresh target, prefix replayed; obs (may be NULL) gets the final state. */
static int replay_to_origin(struct replay *r, struct proc_obs *obs)
{
	struct proc_exec *x = &r->x;
	const struct proc_scenario *sc = x->sc;
	struct proc_obs *o = obs ? obs : &r->scratch;
	kill_live(r);
	proc_obs_reset(o);
	proc_exec_replies_clear(x);
	r->t = proc_target_start(sc, x->preload, o, &x->st.spawn_s);
	x->st.spawns++;
	if (!r->t) {
		proc_obs_seal(o);
		snprintf(x->err, sizeof x->err, "%s", o->fault_msg);
		return -1;
	}
	enum proc_wait w = PROC_QUIESCENT;
	for (size_t i = 0; i < r->n; i++) {
		const struct proc_op *op = &sc->ops[r->trace[i]];
		double el = 0;
		w = step(r, op, o, &el);
		x->st.ops++;
		x->st.replayed++;
		x->st.quiesce_s += el;
		if (!r->t) {
			snprintf(x->err, sizeof x->err,
				 "nondeterministic target: replaying step %zu (%.100s) of a trace that "
				 "succeeded before, the target now failed: %.600s", i + 1, op->label, o->fault_msg);
			return -1;
		}
		keep_reply(x, i, &r->t->reply);
		if (w == PROC_INTERRUPTED) {
			snprintf(x->err, sizeof x->err, "interrupted");
			kill_live(r);
			return -1;
		}
		if (w != PROC_QUIESCENT) {
			proc_obs_reset(o);
			proc_observe(r->t, r->img, w, o);
			snprintf(x->err, sizeof x->err,
				 "nondeterministic target: replaying step %zu (%.100s) of a trace that "
				 "succeeded before, the target now %s%s%.600s", i + 1, op->label,
				 w == PROC_GONE ? "ended" : "failed",
				 o->fault != PROC_FAULT_NONE ? ": " : "", o->fault_msg);
			kill_live(r);
			return -1;
		}
	}
	note_unscheduled(r);
	if (obs) {
		proc_obs_reset(obs);
		proc_observe(r->t, r->img, w, obs);
	}
	r->at_origin = true;
	return 0;
}

static int replay_reach(struct proc_exec *x, const uint16_t *trace, size_t n, struct proc_obs *obs)
{
	struct replay *r = (struct replay *)x;
	if (n > r->cap) {
		r->cap = n * 2;
		r->trace = eng_xrealloc(r->trace, r->cap * sizeof *r->trace);
	}
	if (n)
		memcpy(r->trace, trace, n * sizeof *trace);
	r->n = n;
	return replay_to_origin(r, obs);
}

static int replay_apply(struct proc_exec *x, unsigned op, bool last, struct proc_obs *obs)
{
	struct replay *r = (struct replay *)x;
	const struct proc_scenario *sc = x->sc;
	if (!r->at_origin && replay_to_origin(r, NULL) < 0)
		return -1;
	r->at_origin = false;
	proc_obs_reset(obs);
	double el = 0;
	enum proc_wait w = step(r, &sc->ops[op], obs, &el);
	x->st.ops++;
	x->st.quiesce_s += el;
	obs->quiesce_s = el;
	if (!r->t && proc_interrupted) {
		snprintf(x->err, sizeof x->err, "interrupted");
		return -1;
	}
	if (!r->t)
		return 0; /* did not start again after a crash: obs holds why */
	if (w == PROC_INTERRUPTED) {
		snprintf(x->err, sizeof x->err, "interrupted");
		kill_live(r);
		return -1;
	}
	if (w == PROC_QUIESCENT)
		note_unscheduled(r);
	proc_observe(r->t, r->img, w, obs);
	if (w != PROC_QUIESCENT)
		kill_live(r);
	return 0;
}

static void replay_release(struct proc_exec *x)
{
	kill_live((struct replay *)x);
}

static void replay_destroy(struct proc_exec *x)
{
	struct replay *r = (struct replay *)x;
	kill_live(r);
	proc_exec_replies_free(x);
	proc_obs_free(&r->scratch);
	free(r->trace);
	free(r);
}

static const struct proc_exec_ops replay_ops = {
	.name = "replay",
	.reach = replay_reach,
	.apply = replay_apply,
	.release = replay_release,
	.destroy = replay_destroy,
};

struct proc_exec *proc_replay_new(const struct proc_scenario *sc, const char *preload,
				  const struct proc_image *img)
{
	struct replay *r = eng_xcalloc(1, sizeof *r);
	r->x.ops = &replay_ops;
	r->x.sc = sc;
	r->x.preload = preload;
	r->x.keep_replies = proc_props_read_replies(sc);
	r->img = img;
	return &r->x;
}
