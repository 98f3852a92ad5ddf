/*
 * exec_fork.c — the fork-snapshot executor: the target is started
 * once (the root snapshot); every successor is a child the quiescent
 * origin forks on request (preload/snap.c, protocol in cmc_region.h section
 * 5), which takes one operation on fresh channels (fork_fds.c): a new pipe for
 * stdin, or a new loopback TCP connection (from this executor's own
 * listener) put where the target's accepted connection was, and new pipes
 * for stdout/stderr, the canonical fd and the control fd.  Siblings never
 * share a stream.  A child that is still quiescent after its operation is
 * kept as a snapshot of the state it reached: the state the search will
 * most likely ask for next.
 *
 * The pool.  At most `limit` snapshots live besides the root (setting
 * `snapshots`, default PROC_FORK_LIMIT_DEFAULT, about 1 GiB of a list-sized
 * target's dirtied pages and page tables); a snapshot holds two fds in
 * cmc (its input channel, which must stay open or the target would see EOF,
 * and its snapshot socket) and only the pages it dirtied.  Usefulness:
 *   - a state is expanded once: release() kills the origin (never the root);
 *   - breadth-first search asks for states in the order they were created,
 *     skipping duplicates, so when the snapshot of creation number i is
 *     reached, every live snapshot created before it is stale (a duplicate
 *     the engine did not admit, or one it will ask for much later under DFS);
 *   - when the pool is full a stale snapshot is evicted, oldest first; with
 *     none stale the new child is not kept (the newest is the one needed
 *     last, so keeping the older ones is Belady's choice for BFS), and its
 *     origin is kept instead of being killed at release (`parent`): one
 *     snapshot stands for all the children it could not keep, each of which
 *     then costs one fork and one replayed operation.  A parent is stale
 *     once a state two levels below it is asked for.
 * A state with no snapshot is re-created by forking its nearest live
 * ancestor (the root at worst) and replaying the rest of its trace.
 *
 * Fork snapshots are impossible for a target with threads (fork copies only
 * the calling thread), without the preload, or when the snapshot server did
 * not start (statically linked target): the executor then says why on
 * stderr and delegates everything to the replay executor (fork_fallback.c).
 *
 * This file holds the protocol (exec.h) and where an origin comes from;
 * the pool's rules are in fork_pool.c, the fork request in fork_request.c,
 * the channels in fork_fds.c, cpu pinning in fork_cpu.c (map: fork_int.h).
 *
 * Workers (--jobs): each has its own executor and root, and all share one
 * pool (struct fork_pool, proc_fork_share(); fork_pool.c), since the engine hands a
 * state to whichever worker is free; a snapshot can be asked to fork by any
 * thread of cmc.
 *
 * Ownership: every process started here is a child of cmc (CLONE_PARENT in
 * the preload), reaped by proc_target_kill(); destroy() kills the
 * executor's root and, for the last executor sharing the pool, the pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fork_int.h"
#include "pages.h"
#include "prop.h"

/* The executor's view of the origin's replies: references, no copies
 * (the origin may be spent before the frontend reads them). */
static void set_replies(struct forkx *f, const struct snap *s)
{
	struct proc_exec *x = &f->x;
	proc_exec_replies_clear(x);
	for (size_t i = 0; s->replies && i < s->n; i++)
		proc_exec_replies_set(x, i, proc_bytes_ref(s->replies[i]));
}

/* Start the root; decide whether fork snapshots work for this target. */
static int start_root(struct forkx *f, struct proc_obs *obs)
{
	struct proc_exec *x = &f->x;
	struct proc_obs *o = obs ? obs : &f->scratch;
	proc_obs_reset(o);
	if (!x->preload[0]) {
		fork_fall_back(f, "no preload");
		return 1;
	}
	struct proc_target *t = proc_target_start_snap(x->sc, x->preload, o, &x->st.spawn_s);
	x->st.spawns++;
	if (!t) {
		proc_obs_seal(o);
		snprintf(x->err, sizeof x->err, "%s", o->fault_msg);
		return -1;
	}
	char buf[160];
	const char *why = fork_unsupported(t, buf, sizeof buf);
	if (why) {
		fork_kill_target(t);
		fork_fall_back(f, why);
		return 1;
	}
	t->pages_cache = true; /* its children hash only what they change */
	proc_observe(t, f->img, PROC_QUIESCENT, o);
	f->root = fork_snap_new(f, t, NULL, -1);
	fork_snap_trim(t);
	return 0;
}

/* Fork s and replay trace[s->n .. n) in the child: the state after trace. */
static struct snap *recreate(struct forkx *f, struct snap *s, const uint16_t *trace, size_t n)
{
	struct proc_exec *x = &f->x;
	const struct proc_scenario *sc = x->sc;
	struct proc_target *t = fork_child(f, s, s->n < n ? &sc->ops[trace[s->n]] : NULL);
	if (!t)
		return NULL;
	struct snap *r = fork_snap_new(f, t, s, -1);
	r->trace = eng_xrealloc(r->trace, n * sizeof *r->trace);
	memcpy(r->trace, trace, n * sizeof *trace);
	if (x->keep_replies) {
		r->replies = eng_xrealloc(r->replies, n * sizeof *r->replies);
		memset(r->replies + r->n, 0, (n - r->n) * sizeof *r->replies);
	}
	for (size_t i = s->n; i < n; i++) {
		const struct proc_op *op = &sc->ops[trace[i]];
		double el = 0;
		enum proc_wait w = proc_target_op(t, op, sc->timeout_ms, &el);
		r->n = i + 1;
		x->st.ops++;
		x->st.replayed++;
		x->st.quiesce_s += el;
		proc_bytes_unref(r->reply);
		r->reply = proc_bytes_new(t->reply.p, t->reply.len);
		if (r->replies)
			r->replies[i] = proc_bytes_ref(r->reply);
		if (w != PROC_QUIESCENT) {
			if (w == PROC_INTERRUPTED)
				snprintf(x->err, sizeof x->err, "interrupted");
			else {
				proc_obs_reset(&f->scratch);
				proc_observe(t, f->img, w, &f->scratch);
				snprintf(x->err, sizeof x->err,
					 "nondeterministic target: replaying step %zu (%.100s) of a trace that "
					 "succeeded before, the target now %s%s%.600s", i + 1, op->label,
					 w == PROC_GONE ? "ended" : "failed",
					 f->scratch.fault != PROC_FAULT_NONE ? ": " : "", f->scratch.fault_msg);
			}
			fork_snap_free(r);
			return NULL;
		}
	}
	proc_pages_settle(t);
	fork_snap_trim(t);
	return r;
}

/* Re-observe a snapshot: it has not run since it was observed. */
static void observe_snap(struct forkx *f, struct snap *o, struct proc_obs *obs)
{
	struct proc_target *t = o->t;
	proc_obs_reset(obs);
	obs->pages_readonly = t->pages_own; /* a pool snapshot others may observe too */
	if (t->mem_fd < 0)
		t->mem_fd = proc_open_pid(t->pid, "mem");
	if (o->reply)
		proc_buf_set(&t->reply, o->reply->p, o->reply->len);
	proc_observe(t, f->img, PROC_QUIESCENT, obs);
	proc_buf_free(&t->reply);
}

/*
 * The state after trace as a live snapshot: the pool's own, or one forked
 * from the nearest live ancestor with the rest of the trace replayed.  A
 * snapshot that no longer forks (its worker thread ended, and with it, by
 * PR_SET_PDEATHSIG, the processes it started) is dropped and the state is
 * made again from this executor's own root.
 */
static int find_origin(struct forkx *f, const uint16_t *trace, size_t n)
{
	struct fork_pool *pl = f->pl;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct snap *best = f->root, *hit = NULL;
		fork_pool_lock(pl);
		for (size_t i = 0; !hit && n && i < pl->n; i++)
			if (fork_same_trace(pl->s[i], trace, n)) {
				hit = pl->s[i];
				for (size_t j = 0; j < i; j++)
					pl->s[j]->stale |= !pl->s[j]->parent;
			}
		/* A parent two levels above the state asked for has had all its
		 * dropped children asked for already (breadth-first). */
		for (size_t i = 0; i < pl->n; i++)
			if (pl->s[i]->parent && pl->s[i]->n + 1 < n)
				pl->s[i]->stale = true;
		if (hit) {
			fork_adopt(f, hit);
			hit->users++;
			fork_pool_unlock(pl);
			f->origin = hit;
			f->origin_temp = false;
			return 0;
		}
		for (size_t i = 0; attempt == 0 && i < pl->n; i++) {
			struct snap *s = pl->s[i];
			if (s->n < n && s->n > best->n && memcmp(s->trace, trace, s->n * sizeof *trace) == 0)
				best = s;
		}
		fork_adopt(f, best);
		best->users++;
		fork_pool_unlock(pl);
		struct snap *r = n ? recreate(f, best, trace, n) : NULL;
		fork_pool_lock(pl);
		if (!r && best != f->root && !proc_interrupted && (f->forged || proc_target_reap(best->t)))
			fork_pool_drop(pl, best); /* gone, or a liar: try again from our root */
		if (best != f->root)
			fork_pool_unuse(pl, best);
		else
			best->users--;
		fork_pool_unlock(pl);
		if (r) {
			r->users = 1;
			f->origin = r;
			f->origin_temp = true;
			return 0;
		}
		if (best == f->root || f->forged)
			return -1;
	}
	return -1;
}

/* ---- operations delegated to replay ------------------------------------
 * A crash kills the target and starts it again on its files: nothing a
 * snapshot could fork.  A reconnect dials the target's listening socket,
 * which every snapshot of the run shares: any of them, not this one's
 * child, could accept the connection.  Their successors, and every state
 * whose trace has one, are served by a replay executor of this one's own
 * (the reference, so counts and fingerprints are those of --exec replay). */

static bool has_replay_only(const struct proc_scenario *sc, const uint16_t *trace, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (proc_op_replay_only(&sc->ops[trace[i]]))
			return true;
	return false;
}

/* What byreplay counted since `before`, added to our counters. */
static void byreplay_stats(struct forkx *f, const struct proc_exec_stats *before)
{
	const struct proc_exec_stats *a = &f->byreplay->st;
	f->x.st.spawns += a->spawns - before->spawns;
	f->x.st.ops += a->ops - before->ops;
	f->x.st.replayed += a->replayed - before->replayed;
	f->x.st.quiesce_s += a->quiesce_s - before->quiesce_s;
	f->x.st.spawn_s += a->spawn_s - before->spawn_s;
}

static struct proc_exec *byreplay_exec(struct forkx *f)
{
	if (!f->byreplay)
		f->byreplay = proc_replay_new(f->x.sc, f->x.preload, f->img);
	return f->byreplay;
}

static int byreplay_reach(struct forkx *f, const uint16_t *trace, size_t n, struct proc_obs *obs)
{
	struct proc_exec *c = byreplay_exec(f);
	struct proc_exec_stats before = c->st;
	int rc = c->ops->reach(c, trace, n, obs);
	byreplay_stats(f, &before);
	proc_exec_replies_clear(&f->x);
	for (size_t i = 0; i < c->nreplies; i++)
		proc_exec_replies_set(&f->x, i, proc_bytes_ref(c->replies[i]));
	if (rc < 0)
		memcpy(f->x.err, c->err, sizeof f->x.err);
	return rc;
}

static int byreplay_apply(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	struct proc_exec *c = byreplay_exec(f);
	struct proc_exec_stats before = c->st;
	int rc = c->ops->apply(c, op, false, obs);
	byreplay_stats(f, &before);
	if (rc < 0)
		memcpy(f->x.err, c->err, sizeof f->x.err);
	return rc;
}

/* A crash or reconnect from the fork origin: replay reaches the origin's
 * state (once per origin), then applies it.  The origin's replies stay
 * ours. */
static int byreplay_from_origin(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	if (!f->replay_at_origin) {
		struct proc_exec *c = byreplay_exec(f);
		struct proc_exec_stats before = c->st;
		int rc = c->ops->reach(c, f->origin->trace, f->origin->n, NULL);
		byreplay_stats(f, &before);
		if (rc < 0) {
			memcpy(f->x.err, c->err, sizeof f->x.err);
			return -1;
		}
		f->replay_at_origin = true;
	}
	return byreplay_apply(f, op, obs);
}

static int fork_reach(struct proc_exec *x, const uint16_t *trace, size_t n, struct proc_obs *obs)
{
	struct forkx *f = (struct forkx *)x;
	f->replay_at_origin = false;
	f->via_replay = !f->fb && has_replay_only(x->sc, trace, n);
	if (f->via_replay)
		return byreplay_reach(f, trace, n, obs);
	if (!f->root && !f->fb)
		fork_pin(f);
	if (!f->fb && !f->root) {
		int rc = start_root(f, n == 0 ? obs : NULL);
		if (rc < 0)
			return -1;
		if (rc == 0 && n == 0) {
			f->origin = f->root;
			f->origin_temp = false;
			proc_exec_replies_clear(x);
			return 0;
		}
	}
	if (f->fb) {
		int rc = f->fb->ops->reach(f->fb, trace, n, obs);
		fork_mirror(f);
		return rc;
	}
	f->origin = NULL;
	if (n == 0) {
		f->origin = f->root;
		f->origin_temp = false;
	} else if (find_origin(f, trace, n) < 0) {
		if (proc_interrupted)
			return -1;
		/* no live ancestor forks any more */
		return fork_fall_back_at(f, f->root && proc_target_reap(f->root->t), trace, n, obs);
	}
	set_replies(f, f->origin);
	if (obs)
		observe_snap(f, f->origin, obs);
	return 0;
}

/* fork_apply could not fork its origin: fall back there, then apply op. */
static void fork_release(struct proc_exec *x);

static int fork_unavailable(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	struct snap *o = f->origin;
	bool died = proc_target_reap(o->t);
	size_t n = o->n;
	uint16_t *tr = n ? eng_xmemdup(o->trace, n * sizeof *tr) : NULL;
	fork_release(&f->x); /* may free o */
	int rc = fork_fall_back_at(f, died, tr, n, NULL);
	free(tr);
	if (rc == 0) {
		rc = f->fb->ops->apply(f->fb, op, false, obs);
		fork_mirror(f);
	}
	return rc;
}

/* The origin lied about the child it made for op (fork_child()): that
 * successor is a protocol fault, and the run goes on by replay, which
 * asks no snapshot for anything, from the origin's state (the other
 * operations from it are observed as replay observes them). */
static int forged_fault(struct forkx *f, struct proc_obs *obs)
{
	char msg[sizeof obs->fault_msg];
	snprintf(msg, sizeof msg, "%.500s", f->x.err);
	struct snap *o = f->origin;
	size_t n = o->n;
	uint16_t *tr = n ? eng_xmemdup(o->trace, n * sizeof *tr) : NULL;
	/* Out of the pool, which other workers share: its socket may still
	 * hold its real child's answer, which a later request would take. */
	fork_pool_lock(f->pl);
	o->parent = false;
	fork_pool_unlock(f->pl);
	fork_release(&f->x); /* may free o */
	int rc = fork_fall_back_at(f, false, tr, n, NULL);
	free(tr);
	proc_obs_reset(obs);
	obs->fault = PROC_FAULT_PROTOCOL;
	snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s", msg);
	proc_obs_seal(obs);
	return rc;
}

/* The successor by op is observed in t (quiescent, ended or faulted): keep
 * it in the pool as a snapshot if it can go on and the pool has room, else
 * let it go.  `origin` is the snap it came from (its trace and replies). */
static void keep_or_kill(struct forkx *f, struct snap *origin, struct proc_target *t, unsigned op,
			 enum proc_wait w)
{
	const struct proc_scenario *sc = f->x.sc;
	struct snap *s = NULL;
	/* After an eof nothing follows (frontend.c): such a state is never forked;
	 * nor one whose snapshot socket carried garbage (a protocol fault:
	 * the search does not expand it, and its socket is not to be trusted). */
	if (w == PROC_QUIESCENT && !sc->ops[op].eof && !t->snap_fault[0]) {
		s = fork_snap_new(f, t, origin, (int)op);
		fork_snap_trim(t);
	}
	fork_pool_lock(f->pl);
	if (s && fork_pool_room(f->pl, false)) {
		CMC_ASSERT(f->pl->n < f->pl->limit);
		f->kept = s;
		f->pl->s[f->pl->n++] = s;
		if (f->pl->n > f->x.st.peak)
			f->x.st.peak = f->pl->n;
		s = NULL;
		t = NULL;
	} else if (s)
		f->unkept = true; /* its origin a parent, if the search wants it */
	fork_pool_unlock(f->pl);
	if (s)
		fork_snap_free(s);
	else if (t)
		fork_kill_target(t);
}

/* The successor the last apply could not keep was not discarded: the
 * search will ask for it, and it is made again from its origin, which must
 * stay (a parent).  A successor past the bounds or seen before makes none:
 * at the last level of a bounded search every origin would otherwise
 * become a parent the moment the pool is full. */
static void settle_unkept(struct forkx *f)
{
	if (!f->unkept)
		return;
	f->unkept = false;
	if (!f->origin || f->origin == f->root)
		return;
	fork_pool_lock(f->pl);
	f->origin->parent = true;
	fork_pool_unlock(f->pl);
}

/*
 * The last operation a state is expanded by needs no fork: the snapshot
 * takes it itself, on the channels it kept (fork_snap_trim()), and becomes its
 * successor.  That saves a fork, a set of channels and the origin's kill,
 * on about one transition in four.  Only for a snapshot nobody else holds
 * or will ask for again: not a root (states are made again from it), not
 * a parent (it stands for children the pool could not keep), not one
 * another worker is forking from.  The successor is what a child forked
 * at this point would have reached: the child would be this process
 * after one more fork request, which a target sleeps through (a restarted
 * read, or a retried poll: proc_target_settles() holds every snapshot to
 * that).  Returns false, having done nothing, when the origin is not
 * spendable.  Taken out of the pool, it is ours alone.
 */
static bool spend_origin(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	struct fork_pool *pl = f->pl;
	struct snap *o = f->origin;
	if (!o || o == f->root || o->t->pid <= 0)
		return false;
	fork_pool_lock(pl);
	bool mine = !o->parent && !o->doomed && o->users == 1;
	if (mine && !f->origin_temp)
		fork_pool_remove(pl, o);
	fork_pool_unlock(pl);
	if (!mine)
		return false;
	const struct proc_scenario *sc = f->x.sc;
	struct proc_target *t = o->t;
	f->origin = NULL;
	o->t = NULL;
	proc_obs_reset(obs);
	double el = 0;
	enum proc_wait w = proc_target_op(t, &sc->ops[op], sc->timeout_ms, &el);
	f->x.st.ops++;
	f->x.st.spent++;
	f->x.st.quiesce_s += el;
	obs->quiesce_s = el;
	if (w == PROC_INTERRUPTED) {
		snprintf(f->x.err, sizeof f->x.err, "interrupted");
		fork_kill_target(t);
	} else {
		proc_observe(t, f->img, w, obs);
		keep_or_kill(f, o, t, op, w);
	}
	fork_snap_free(o); /* its process went on as t */
	return true;
}

static int fork_apply(struct proc_exec *x, unsigned op, bool last, struct proc_obs *obs)
{
	struct forkx *f = (struct forkx *)x;
	const struct proc_scenario *sc = x->sc;
	f->kept = NULL;
	if (f->fb) {
		int rc = f->fb->ops->apply(f->fb, op, last, obs);
		fork_mirror(f);
		return rc;
	}
	if (f->via_replay)
		return byreplay_apply(f, op, obs);
	if (proc_op_replay_only(&sc->ops[op]) && f->origin)
		return byreplay_from_origin(f, op, obs);
	if (NEVER(!f->origin)) {
		snprintf(x->err, sizeof x->err, "fork executor: apply without reach");
		return -1;
	}
	settle_unkept(f);
	if (last && spend_origin(f, op, obs))
		return proc_interrupted ? -1 : 0;
	struct proc_target *t = fork_child(f, f->origin, &sc->ops[op]);
	if (!t && !f->forged && f->origin != f->root && !proc_interrupted && proc_target_reap(f->origin->t)) {
		/* the origin is gone (see find_origin): make it again */
		struct snap *o = f->origin;
		uint16_t *tr = eng_xmemdup(o->trace, o->n * sizeof *tr);
		size_t n = o->n;
		fork_pool_lock(f->pl);
		if (f->origin_temp) {
			o->users = 0;
			fork_pool_grave(f->pl, o);
		} else {
			fork_pool_drop(f->pl, o);
			fork_pool_unuse(f->pl, o);
		}
		fork_pool_unlock(f->pl);
		f->origin = NULL;
		int rc = find_origin(f, tr, n);
		if (rc < 0 && f->forged && !proc_interrupted) {
			/* an ancestor lied about its child: replay from here on */
			rc = fork_fall_back_at(f, false, tr, n, NULL);
			free(tr);
			if (rc == 0) {
				rc = f->fb->ops->apply(f->fb, op, false, obs);
				fork_mirror(f);
			}
			return rc;
		}
		free(tr);
		if (rc < 0)
			return -1;
		t = fork_child(f, f->origin, &sc->ops[op]);
	}
	if (!t && f->forged && !proc_interrupted)
		return forged_fault(f, obs);
	if (!t && !proc_interrupted)
		return fork_unavailable(f, op, obs);
	if (!t)
		return -1;
	proc_obs_reset(obs);
	double el = 0;
	enum proc_wait w = proc_target_op(t, &sc->ops[op], sc->timeout_ms, &el);
	x->st.ops++;
	x->st.quiesce_s += el;
	obs->quiesce_s = el;
	if (w == PROC_INTERRUPTED) {
		snprintf(x->err, sizeof x->err, "interrupted");
		fork_kill_target(t);
		return -1;
	}
	if (w != PROC_QUIESCENT && !proc_target_settles(f->origin->t, sc->timeout_ms)) {
		/* the fork request itself undid the origin: this outcome is
		 * not the operation's (proc_target_settles) */
		snprintf(x->err, sizeof x->err, "a snapshot did not survive its fork request");
		fork_kill_target(t);
		return proc_interrupted ? -1 : fork_unavailable(f, op, obs);
	}
	proc_observe(t, f->img, w, obs);
	keep_or_kill(f, f->origin, t, op, w);
	return 0;
}

/* The engine will never ask for the last apply's successor (a duplicate,
 * or past the bounds): its snapshot could only fill the pool and hold a
 * process and a jail.  Most successors are duplicates, so this keeps the
 * pool to the states still to expand. */
static void fork_discard(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	struct fork_pool *pl = f->pl;
	f->unkept = false;
	if (f->fb || f->via_replay || !f->kept)
		return;
	fork_pool_lock(pl);
	for (size_t i = pl->n; i-- > 0;) /* it went in last: look from the end */
		if (pl->s[i] == f->kept) {
			if (!pl->s[i]->users) {
				fork_pool_drop(pl, pl->s[i]);
				x->st.discarded++;
			}
			break;
		}
	fork_pool_unlock(pl);
	f->kept = NULL;
}

/* A successor of some earlier apply, a duplicate found only when the
 * search admitted it (--jobs): its snapshot, if the pool kept one, would
 * never be used. */
static void fork_forget(struct proc_exec *x, const uint16_t *trace, size_t n)
{
	struct forkx *f = (struct forkx *)x;
	struct fork_pool *pl = f->pl;
	if (f->fb || !n)
		return;
	fork_pool_lock(pl);
	for (size_t i = pl->n; i-- > 0;) /* recent: look from the end */
		if (fork_same_trace(pl->s[i], trace, n)) {
			if (!pl->s[i]->users && !pl->s[i]->parent) {
				fork_pool_drop(pl, pl->s[i]);
				x->st.discarded++;
			}
			break;
		}
	fork_pool_unlock(pl);
}

static void fork_release(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	if (f->byreplay)
		f->byreplay->ops->release(f->byreplay);
	f->replay_at_origin = false;
	if (f->via_replay) {
		f->via_replay = false;
		return;
	}
	if (f->fb) {
		f->fb->ops->release(f->fb);
		return;
	}
	/* Expanded: the search does not come back to it, unless it stands
	 * for children the pool could not keep. */
	settle_unkept(f);
	struct snap *o = f->origin;
	bool temp = f->origin_temp;
	f->origin = NULL;
	struct fork_pool *pl = f->pl;
	if (!o || o == f->root) {
		/* (spent by the last apply: what it evicted is still to bury) */
		fork_pool_bury(pl, f);
		return;
	}
	fork_pool_lock(pl);
	if (o->parent && !temp) {
		fork_pool_unuse(pl, o); /* stays where it is in the pool */
	} else if (o->parent && fork_pool_room(pl, false)) {
		/* (not at the cost of an older parent: those are asked for first) */
		o->users--;
		pl->s[pl->n++] = o; /* newest: the pool stays in creation order */
	} else if (temp) {
		o->users--;
		fork_pool_grave(pl, o);
	} else {
		fork_pool_drop(pl, o);
		fork_pool_unuse(pl, o);
	}
	fork_pool_unlock(pl);
	fork_pool_bury(pl, f);
}

static void fork_destroy(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	fork_release(x);
	fork_pool_unref(f->pl);
	/* The root last: its group holds whatever the targets forked
	 * themselves (and, while another worker runs, snapshots it may still
	 * fork from: those find them gone and start again from their root). */
	fork_snap_free(f->root);
	fork_close_fd(&f->lfd);
	if (f->byreplay)
		f->byreplay->ops->destroy(f->byreplay);
	if (f->fb) {
		f->fb->ops->destroy(f->fb);
	} else {
		proc_exec_replies_free(x);
	}
	proc_obs_free(&f->scratch);
	fork_unpin(f);
	free(f);
}

static const struct proc_exec_ops fork_ops = {
	.name = "fork",
	.reach = fork_reach,
	.apply = fork_apply,
	.discard = fork_discard,
	.forget = fork_forget,
	.release = fork_release,
	.destroy = fork_destroy,
};

static struct forkx *forkx_new(const struct proc_scenario *sc, const char *preload,
				const struct proc_image *img)
{
	struct forkx *f = eng_xcalloc(1, sizeof *f);
	f->x.ops = &fork_ops;
	f->x.sc = sc;
	f->x.preload = preload;
	f->x.keep_replies = proc_props_read_replies(sc);
	f->img = img;
	f->lfd = -1;
	f->conn_no = -1;
	return f;
}

struct proc_exec *proc_fork_new(const struct proc_scenario *sc, const char *preload,
				const struct proc_image *img, size_t limit)
{
	struct forkx *f = forkx_new(sc, preload, img);
	f->pl = fork_pool_new(sc->path, limit ? limit : PROC_FORK_LIMIT_DEFAULT);
	return &f->x;
}

struct proc_exec *proc_fork_share(struct proc_exec *other, const struct proc_scenario *sc,
				  const char *preload, const struct proc_image *img)
{
	if (strcmp(other->ops->name, "fork") != 0)
		return proc_fork_new(sc, preload, img, 0);
	struct forkx *o = (struct forkx *)other, *f = forkx_new(sc, preload, img);
	fork_pool_ref(o->pl);
	f->pl = o->pl;
	f->conn_no = o->conn_no;
	return &f->x;
}
