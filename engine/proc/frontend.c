/*
 * frontend.c — process mode as an engine frontend (struct eng_frontend_ops).
 *
 * A state, as the engine stores it, is its trace: uint16 n followed by n
 * uint16 op indices.  The engine queues those bytes and hands them back for
 * expansion; the executor (exec.h) turns a trace back into a live
 * target.  Identity (eng_succ.fp) is the raw fingerprint, the canonical one,
 * or the pair, per the scenario's hash/merge setting; when some ops are
 * `once`, the set of ops already applied joins the identity, so merged states
 * enable the same ops.
 *
 * Owns the scenario, the executor and its processes, the plugins: destroy()
 * releases them all and kills every target (also after an interrupted run).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "exec.h"
#include "heapgraph.h"
#include "pages.h"
#include "prop.h"
#include "scenario.h"
#include "scratch.h"
#include "target.h"
#include "util.h"

struct proc_fe {
	eng_frontend fe;        /* first: the engine sees this */
	struct proc_scenario *sc;
	struct proc_image img;
	struct proc_props *props;
	struct proc_exec *x;
	bool exec_replay;       /* --exec replay (default: fork, which falls back itself) */
	bool said_threads;      /* the original's: replay said the target runs threads */
	size_t snapshots;       /* fork executor's pool bound; 0: its default */
	struct proc_fe *orig;   /* a clone: the frontend it copies (owns sc, img) */
	char preload[PATH_MAX];
	enum proc_ident ident;  /* resolved by initial() */
	bool started;
	bool fell_back;         /* wanted canonical, got no records */
	bool any_once;
	bool any_timeout;       /* a timeout operation: a timed wait is state */
	bool warned_over;       /* RAW_OVER reported once on stderr */
	bool warned_hg;         /* a state without a heap-graph form, said once */
	struct proc_hg_stats hg0; /* the walks' totals when this run started */
	/* On the original only (clones write with atomics): the initial
	 * state's raw fingerprint, and whether an operation's successor was
	 * observed quiescent, and with another raw fingerprint.  A raw
	 * identity that never moves sees none of the target's state. */
	eng_fp raw0;
	bool raw_applied, raw_moved;
	struct proc_obs obs;
	uint16_t *sbuf;         /* successor state under construction */
	size_t scap;
	uint8_t *mask;          /* once-ops applied along the current trace */
	eng_opts *opts;         /* the caller's, for depth/states overrides (until started) */
	char info[256];
	char err[2048];
	char msg[1024];
};

static struct proc_fe *pf(eng_frontend *fe)
{
	return (struct proc_fe *)fe;
}

/* ---- state bytes ------------------------------------------------------- */

/*
 * A state is its trace: a count, then that many op indices (uint16 each).
 * In a scenario with a reconnect op, a state cmc cannot send to (the
 * target closed the connection, or an eof op closed cmc's side, and no
 * reconnect came since) ends with DISCONNECTED after the trace: its only
 * successors are reconnects.  Elsewhere such a state is terminal and the
 * bytes are the trace alone.
 */
#define DISCONNECTED 0xffffu

static int decode(struct proc_fe *p, const void *state, size_t len, const uint16_t **trace, size_t *n,
		  bool *disconnected)
{
	uint16_t cnt, last;
	if (len < 2)
		goto bad;
	memcpy(&cnt, state, 2);
	*disconnected = false;
	if (p->sc->reconnect_line && len == 4 + 2 * (size_t)cnt) {
		memcpy(&last, (const uint8_t *)state + len - 2, 2);
		if (last != DISCONNECTED)
			goto bad;
		*disconnected = true;
	} else if (len != 2 + 2 * (size_t)cnt) {
		goto bad;
	}
	*trace = (const uint16_t *)state + 1;
	*n = cnt;
	for (size_t i = 0; i < cnt; i++) {
		uint16_t op;
		memcpy(&op, (const uint8_t *)state + 2 + 2 * i, 2);
		if (op >= p->sc->nops)
			goto bad;
	}
	return 0;
bad:
	snprintf(p->err, sizeof p->err, "%s: corrupt process-mode state (%zu bytes)", p->sc->path, len);
	return -1;
}

/* sbuf := trace + op (op < 0: none), and the mark when disconnected.
 * Returns the byte length. */
static size_t encode(struct proc_fe *p, const uint16_t *trace, size_t n, int op, bool disconnected)
{
	size_t m = n + (op >= 0);
	if (m + 2 > p->scap) {
		p->scap = (m + 2) * 2;
		p->sbuf = eng_xrealloc(p->sbuf, p->scap * sizeof *p->sbuf);
	}
	p->sbuf[0] = (uint16_t)m;
	if (n)
		memcpy(p->sbuf + 1, trace, n * sizeof *trace);
	if (op >= 0)
		p->sbuf[1 + n] = (uint16_t)op;
	if (disconnected)
		p->sbuf[1 + m] = DISCONNECTED;
	return (m + 1 + disconnected) * sizeof *p->sbuf;
}

/* Has cmc's side of the connection been closed by an eof op along trace +
 * op (op < 0: none), with no reconnect since? */
static bool input_gone(const struct proc_fe *p, const uint16_t *trace, size_t n, int op)
{
	for (size_t i = n + (op >= 0); i-- > 0;) {
		const struct proc_op *o = &p->sc->ops[i == n ? (unsigned)op : trace[i]];
		if (o->reconnect)
			return false;
		if (o->eof)
			return true;
	}
	return false;
}

static void fill_mask(struct proc_fe *p, const uint16_t *trace, size_t n)
{
	memset(p->mask, 0, (p->sc->nops + 7) / 8);
	for (size_t i = 0; i < n; i++)
		if (p->sc->ops[trace[i]].once)
			p->mask[trace[i] / 8] |= (uint8_t)(1u << (trace[i] % 8));
}

static bool used(const struct proc_fe *p, unsigned op)
{
	return p->sc->ops[op].once && (p->mask[op / 8] >> (op % 8)) & 1;
}

/* ---- identity ---------------------------------------------------------- */

static eng_fp identity(struct proc_fe *p, const struct proc_obs *o, int extra_op)
{
	eng_fp fp;
	switch (p->ident) {
	case PROC_ID_CANON:
	case PROC_ID_GRAPH: fp = o->e.canon; break;
	case PROC_ID_BOTH:
	case PROC_ID_GRAPH_BOTH: fp = eng_fp_combine(o->e.raw, o->e.canon); break;
	default: fp = o->e.raw; break;
	}
	/* An ended or faulted target has no heap to read: its identity is how
	 * it ended, after what. */
	if (o->e.flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_FAULT)) {
		int why[4] = {(int)o->e.flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_FAULT),
			      o->e.exit_status, o->e.term_signal, (int)o->fault};
		fp = eng_fp_combine(fp, eng_fp_of(why, sizeof why));
	}
	/* The declared state files are part of the world too (files.c):
	 * the same heap with another data file is another state. */
	if (!eng_fp_zero(o->e.files))
		fp = eng_fp_combine(fp, o->e.files);
	/* A closed connection is part of the world, not of the heap: the
	 * same heap with the connection open takes operations, closed none. */
	if (o->e.flags & ENG_OBS_CLOSED)
		fp = eng_fp_combine(fp, eng_fp_of("closed", 6));
	/* With a timeout operation, a target asleep in a timed wait behaves
	 * differently from the same heap in an endless one: the operation
	 * wakes only the first.  Without one, no wait ever times out. */
	if (p->any_timeout && o->wait_ms)
		fp = eng_fp_combine(fp, eng_fp_of(&o->wait_ms, sizeof o->wait_ms));
	/* Likewise an armed alarm (detalarm.c): an advance fires it in one
	 * state and not in the same heap with more time left or none. */
	if (p->any_timeout && (o->alarm_ms || o->alarm_every_ms)) {
		uint32_t a[2] = {o->alarm_ms, o->alarm_every_ms};
		fp = eng_fp_combine(fp, eng_fp_of(a, sizeof a));
	}
	if (p->any_once) {
		size_t mb = (p->sc->nops + 7) / 8;
		uint8_t *m = eng_xmemdup(p->mask, mb);
		if (extra_op >= 0 && p->sc->ops[extra_op].once)
			m[extra_op / 8] |= (uint8_t)(1u << (extra_op % 8));
		fp = eng_fp_combine(fp, eng_fp_of(m, mb));
		free(m);
	}
	if (eng_fp_zero(fp))
		fp.lo = 1;
	return fp;
}

static bool ended(const struct proc_obs *o)
{
	return (o->e.flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_FAULT)) != 0;
}

/* Properties, then hand the successor to the engine. */
static bool emit(struct proc_fe *p, const uint16_t *trace, size_t n, int op, const struct proc_obs *o,
		 eng_succ_fn fn, void *ctx)
{
	/* Nothing can be sent in a state whose connection is gone: without a
	 * reconnect op it is terminal, with one only reconnects follow. */
	bool gone = (o->e.flags & ENG_OBS_CLOSED) || input_gone(p, trace, n, op);
	bool reconnects = p->sc->reconnect_line != 0;
	size_t len = encode(p, trace, n, op, gone && reconnects && !ended(o));
	if ((o->e.flags & ENG_OBS_RAW_OVER) && !p->warned_over) {
		p->warned_over = true;
		fprintf(stderr, "cmc: %s: the raw window exceeds raw-cap (%llu bytes): fingerprints "
			"cover all of it, observations keep only the first raw-cap bytes\n",
			p->sc->path, (unsigned long long)p->sc->raw_cap);
	}
	if (o->hg_msg[0] && proc_ident_graph(p->ident) && !p->warned_hg) {
		p->warned_hg = true;
		fprintf(stderr, "cmc: %s: %s: such states are identified by their raw fingerprint\n",
			p->sc->path, o->hg_msg);
	}
	struct proc_fe *r = p->orig ? p->orig : p;
	if (!eng_fp_zero(o->e.raw) && !ended(o)) {
		if (op < 0)
			r->raw0 = o->e.raw;
		else if (!__atomic_load_n(&r->raw_moved, __ATOMIC_RELAXED)) {
			__atomic_store_n(&r->raw_applied, true, __ATOMIC_RELAXED);
			if (!eng_fp_eq(o->e.raw, r->raw0))
				__atomic_store_n(&r->raw_moved, true, __ATOMIC_RELAXED);
		}
	}
	struct proc_state_view v = {p->sbuf + 1, p->sbuf[0], p->x->replies, p->x->nreplies, o};
	eng_succ s = {
		.label = op >= 0 ? p->sc->ops[op].label : NULL,
		.state = p->sbuf,
		.state_len = len,
		.fp = identity(p, o, op),
		.obs = &o->e,
		/* after an eof operation, or once the target closed the
		 * connection, no operation can be delivered (but a reconnect) */
		.terminal = ended(o) || (gone && !reconnects),
	};
	s.property = proc_props_eval(p->props, &v, p->msg, sizeof p->msg);
	if (s.property)
		s.violation = p->msg;
	bool wanted = true;
	if (op >= 0 && p->x->ops->discard)
		s.wanted = &wanted;
	bool go = fn(ctx, &s);
	if (!wanted)
		p->x->ops->discard(p->x); /* a snapshot of it would never be used */
	return go;
}

/* ---- frontend operations ---------------------------------------------- */

/* Why the preload is not running in a target that started (into p->err):
 * the scenario's own LD_PRELOAD replaces cmc's, or the target is not
 * dynamically linked. */
static void no_preload_error(struct proc_fe *p)
{
	const struct proc_scenario *sc = p->sc;
	if (sc->env_preload_line)
		snprintf(p->err, sizeof p->err, "%s:%d: the target started without cmc's preload "
			 "(its heap region is not mapped): expected no `env LD_PRELOAD=...`, which "
			 "replaces cmc's", sc->path, sc->env_preload_line);
	else
		snprintf(p->err, sizeof p->err, "%s: the target started without cmc's preload (its "
			 "heap region is not mapped): expected a dynamically linked target", sc->path);
}

static int proc_initial(eng_frontend *fe, eng_succ_fn fn, void *ctx)
{
	struct proc_fe *p = pf(fe);
	proc_obs_reset(&p->obs);
	if (p->x->ops->reach(p->x, NULL, 0, &p->obs) < 0) {
		snprintf(p->err, sizeof p->err, "%s: %s", p->sc->path,
			 p->obs.fault_msg[0] ? p->obs.fault_msg : p->x->err);
		p->x->ops->release(p->x);
		return -1;
	}
	p->x->ops->release(p->x);
	if (p->obs.no_region && p->obs.fault != PROC_FAULT_NONE) {
		/* The preload did not load: nothing the target did, a set-up
		 * error (exit 2), not a violation of the initial state. */
		no_preload_error(p);
		return -1;
	}
	/* Merging: decided once, by whether the initial state wrote a record. */
	enum proc_ident want = p->sc->ident;
	bool canon = (p->obs.e.flags & ENG_OBS_CANON) != 0;
	if (!p->started) {
		p->started = true;
		if (want == PROC_ID_AUTO)
			p->ident = canon ? PROC_ID_CANON : PROC_ID_RAW;
		else
			p->ident = want;
		if (!canon && (want == PROC_ID_AUTO || want == PROC_ID_CANON || want == PROC_ID_BOTH)) {
			p->fell_back = true;
			p->ident = PROC_ID_RAW;
			fprintf(stderr, "cmc: %s: no canonical records: falling back to raw\n", p->sc->path);
		}
		if (proc_ident_graph(want)) {
			/* cmc computes the form itself: no record needed. */
			p->fell_back = false;
			p->ident = want;
			proc_hg_totals(&p->hg0);
		}
		/* The fallback is said once, on stderr above, not again here. */
		snprintf(p->info, sizeof p->info, "merge %s",
			 p->ident == PROC_ID_CANON ? "canonical" : p->ident == PROC_ID_BOTH ? "raw+canonical" :
			 p->ident == PROC_ID_GRAPH ? "heap-graph" :
			 p->ident == PROC_ID_GRAPH_BOTH ? "raw+heap-graph" : "raw");
	}
	fill_mask(p, NULL, 0);
	emit(p, NULL, 0, -1, &p->obs, fn, ctx);
	return 0;
}

/* Is op applied when expanding the current state (`only`: that op alone)? */
static bool enabled(const struct proc_fe *p, unsigned op, int only, bool gone)
{
	return !used(p, op) && (only < 0 || (unsigned)only == op) && (!gone || p->sc->ops[op].reconnect);
}

static int expand(struct proc_fe *p, const void *state, size_t len, int only, eng_succ_fn fn, void *ctx)
{
	const uint16_t *trace;
	size_t n;
	bool gone;
	if (decode(p, state, len, &trace, &n, &gone) < 0)
		return -1;
	if (n >= UINT16_MAX) {
		snprintf(p->err, sizeof p->err, "%s: traces longer than %u operations are not supported "
			 "(set a depth bound)", p->sc->path, UINT16_MAX - 1);
		return -1;
	}
	if (p->orig && !p->started) {
		p->ident = p->orig->ident;
		p->started = p->orig->started;
	}
	fill_mask(p, trace, n);
	if (!p->sc->reconnect_line)
		for (size_t i = 0; i < n; i++)
			if (p->sc->ops[trace[i]].eof)
				return 0; /* the input is closed: no operation follows */
	/* The engine's bytes may move while we emit: work on a copy. */
	uint16_t *tr = n ? eng_xmemdup(trace, n * sizeof *trace) : NULL;
	int rc = 0;
	bool any = false;
	unsigned last_op = 0; /* the last enabled op: its apply may spend the state */
	for (unsigned op = 0; op < p->sc->nops; op++)
		if (enabled(p, op, only, gone))
			last_op = op;
	for (unsigned op = 0; op < p->sc->nops; op++) {
		if (!enabled(p, op, only, gone))
			continue;
		if (!any) {
			any = true;
			if (p->x->ops->reach(p->x, tr, n, NULL) < 0) {
				snprintf(p->err, sizeof p->err, "%s: %s", p->sc->path, p->x->err);
				rc = -1;
				break;
			}
		}
		proc_obs_reset(&p->obs);
		if (p->x->ops->apply(p->x, op, op == last_op, &p->obs) < 0) {
			snprintf(p->err, sizeof p->err, "%s: %s", p->sc->path, p->x->err);
			rc = -1;
			break;
		}
		if (!emit(p, tr, n, (int)op, &p->obs, fn, ctx))
			break;
	}
	p->x->ops->release(p->x);
	free(tr);
	return rc;
}

static int proc_next(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx)
{
	return expand(pf(fe), state, len, -1, fn, ctx);
}

static int proc_apply(eng_frontend *fe, const void *state, size_t len, const char *label,
		      eng_succ_fn fn, void *ctx)
{
	struct proc_fe *p = pf(fe);
	for (unsigned i = 0; i < p->sc->nops; i++)
		if (!strcmp(p->sc->ops[i].label, label))
			return expand(p, state, len, (int)i, fn, ctx);
	snprintf(p->err, sizeof p->err, "%s: no operation labelled '%s'", p->sc->path, label);
	return -1;
}

static unsigned proc_n_actions(eng_frontend *fe)
{
	return (unsigned)pf(fe)->sc->nops;
}

static const char *proc_action_name(eng_frontend *fe, unsigned i)
{
	struct proc_fe *p = pf(fe);
	return i < p->sc->nops ? p->sc->ops[i].label : NULL;
}

static void proc_print(eng_frontend *fe, const void *state, size_t len, FILE *out)
{
	struct proc_fe *p = pf(fe);
	const uint16_t *trace;
	size_t n;
	bool gone;
	if (decode(p, state, len, &trace, &n, &gone) < 0) {
		fputs("(corrupt state)", out);
		return;
	}
	fputs(n ? "after " : "initial state", out);
	for (size_t i = 0; i < n; i++) {
		uint16_t op;
		memcpy(&op, (const uint8_t *)state + 2 + 2 * i, 2);
		fprintf(out, "%s%s", i ? ", " : "", p->sc->ops[op].label);
	}
}

static void proc_forget(eng_frontend *fe, const void *state, size_t len)
{
	struct proc_fe *p = pf(fe);
	const uint16_t *trace;
	size_t n;
	bool gone;
	if (p->x->ops->forget && decode(p, state, len, &trace, &n, &gone) == 0 && n) {
		uint16_t *t = eng_xmemdup(trace, n * sizeof *t); /* aligned */
		p->x->ops->forget(p->x, t, n);
		free(t);
	}
}

static const char *proc_last_error(eng_frontend *fe)
{
	struct proc_fe *p = pf(fe);
	return p->err[0] ? p->err : NULL;
}

static void proc_destroy(eng_frontend *fe)
{
	struct proc_fe *p = pf(fe);
	if (p->x) {
		const struct proc_exec_stats *st = &p->x->st;
		if (getenv("CMC_PROC_STATS"))
			fprintf(stderr,
				"cmc: process: executor %s: %llu spawns, %llu forks, %llu spent, %llu discarded, "
				"at most %llu snapshots, %llu ops (%llu replayed), "
				"mean replay depth %.2f, mean quiescence %.1f us/op, mean start-up %.2f ms\n",
				p->x->ops->name, (unsigned long long)st->spawns, (unsigned long long)st->forks,
				(unsigned long long)st->spent,
				(unsigned long long)st->discarded, (unsigned long long)st->peak,
				(unsigned long long)st->ops,
				(unsigned long long)st->replayed,
				st->spawns ? (double)st->replayed / (double)st->spawns : 0.0,
				st->ops ? st->quiesce_s * 1e6 / (double)st->ops : 0.0,
				st->spawns ? st->spawn_s * 1e3 / (double)st->spawns : 0.0);
		if (getenv("CMC_PROC_STATS")) {
			struct proc_pages_stats ps;
			proc_pages_stats(&ps);
			fprintf(stderr, "cmc: process: heap pages: %llu observations incremental, %llu full, "
				"%llu pages hashed, %llu reused from a snapshot's cache\n",
				(unsigned long long)ps.incremental, (unsigned long long)ps.full,
				(unsigned long long)ps.hashed, (unsigned long long)ps.reused);
			struct proc_scratch_stats ss;
			proc_scratch_stats(&ss);
			fprintf(stderr, "cmc: process: fork children's working directories: %llu copies made, "
				"%llu with a namespace made ahead, %llu handed on\n",
				ss.copies, ss.namespaces, ss.reused);
			uint64_t on, ons;
			proc_observe_stats(&on, &ons);
			fprintf(stderr, "cmc: process: raw observation: %llu, %.1f us each (window read "
				"and hashed, allocator checked; a heap-graph walk not counted)\n",
				(unsigned long long)on, on ? (double)ons / 1e3 / (double)on : 0.0);
		}
		p->x->ops->destroy(p->x);
	}
	if (!p->orig)
		proc_pids_close(); /* whatever the targets left behind */
	if (!p->orig && p->started && proc_ident_graph(p->ident)) {
		/* The false-positive story, in numbers: a word is taken as a
		 * pointer when it names a live block; an integer that happens to
		 * do so only adds edges (states told apart, never merged). */
		struct proc_hg_stats s;
		proc_hg_totals(&s);
		uint64_t w = s.walks - p->hg0.walks, over = s.over - p->hg0.over;
		uint64_t good = w - over;
		fprintf(stderr, "cmc: heap-graph: %llu walk%s (%llu without a form), %llu of %llu words "
			"taken as pointers, %.1f of %.1f live blocks reached per walk, %.1f us per walk\n",
			(unsigned long long)w, w == 1 ? "" : "s", (unsigned long long)over,
			(unsigned long long)(s.pointers - p->hg0.pointers),
			(unsigned long long)(s.words - p->hg0.words),
			good ? (double)(s.reached - p->hg0.reached) / (double)good : 0.0,
			good ? (double)(s.live - p->hg0.live) / (double)good : 0.0,
			w ? (double)(s.ns - p->hg0.ns) / 1e3 / (double)w : 0.0);
	}
	/* With declared state files, a heap that never moves is a program
	 * that keeps its state on disk, where cmc reads it. */
	if (!p->orig && p->raw_applied && !p->raw_moved && !p->sc->nstatefiles &&
	    (p->ident == PROC_ID_RAW || p->ident == PROC_ID_BOTH || p->ident == PROC_ID_GRAPH_BOTH))
		fprintf(stderr, "cmc: %s: every state had the raw fingerprint of the initial one: the "
			"target may keep its state outside the heap cmc reads (an allocator of its own "
			"on mmap'd memory; Python: env PYTHONMALLOC=malloc), or its operations change "
			"nothing\n", p->sc->path);
	proc_props_free(p->props);
	if (!p->orig) {
		proc_image_free(&p->img);
		proc_scenario_free(p->sc);
	}
	proc_obs_free(&p->obs);
	free(p->sbuf);
	free(p->mask);
	free(p);
}

static eng_frontend *proc_clone(eng_frontend *fe);

static const struct eng_frontend_ops proc_ops = {
	.kind = "process",
	.initial = proc_initial,
	.next = proc_next,
	.apply = proc_apply,
	.check = NULL,
	.n_actions = proc_n_actions,
	.action_name = proc_action_name,
	.print = proc_print,
	.last_error = proc_last_error,
	.destroy = proc_destroy,
	.clone = proc_clone,
	.forget = proc_forget,
};

static struct proc_exec *new_exec(struct proc_fe *p)
{
	if (!p->exec_replay)
		return proc_fork_new(p->sc, p->preload, &p->img, p->snapshots);
	struct proc_exec *x = proc_replay_new(p->sc, p->preload, &p->img);
	x->said_threads = &(p->orig ? p->orig : p)->said_threads;
	return x;
}

/*
 * Another worker's frontend: the same parsed scenario and image (owned by
 * the original, which outlives its clones), its own executor, processes and
 * plugin instances.  Its merge decision is the original's, taken from it
 * when the clone first expands (proc_initial runs on the original only).
 */
static eng_frontend *proc_clone(eng_frontend *fe)
{
	struct proc_fe *o = pf(fe), *p = eng_xcalloc(1, sizeof *p);
	char err[512];
	p->fe = o->fe;
	p->orig = o->orig ? o->orig : o;
	p->sc = o->sc;
	p->img = o->img;
	p->exec_replay = o->exec_replay;
	p->snapshots = o->snapshots;
	p->any_once = o->any_once;
	p->any_timeout = o->any_timeout;
	p->ident = o->ident;
	p->started = o->started;
	p->fell_back = o->fell_back;
	p->warned_over = true;
	p->warned_hg = true;
	memcpy(p->preload, o->preload, sizeof p->preload);
	memcpy(p->info, o->info, sizeof p->info);
	p->mask = eng_xcalloc((p->sc->nops + 7) / 8, 1);
	if (!(p->props = proc_props_load(p->sc, err, sizeof err))) {
		free(p->mask);
		free(p);
		return NULL;
	}
	p->x = p->exec_replay ? new_exec(p) : proc_fork_share(o->x, p->sc, p->preload, &p->img);
	return &p->fe;
}

/* ---- opening ----------------------------------------------------------- */

/* $CMC_PRELOAD (empty: none), else libcmc-preload.so next to the running
 * program or one directory up (test binaries live in $B/tests/). */
static int find_preload(char *out, size_t n, char *err, size_t errlen)
{
	const char *env = getenv("CMC_PRELOAD");
	if (env) {
		if (*env && access(env, R_OK) != 0) {
			snprintf(err, errlen, "CMC_PRELOAD=%s: cannot read the preload: %s", env, strerror(errno));
			return -1;
		}
		snprintf(out, n, "%s", env);
		return 0;
	}
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0) {
		snprintf(err, errlen, "cannot find cmc's own path: %s", strerror(errno));
		return -1;
	}
	self[k] = 0;
	char *slash = strrchr(self, '/');
	*slash = 0;
	static const char *const rel[] = {"/libcmc-preload.so", "/../libcmc-preload.so",
					  "/../lib/libcmc-preload.so"};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char cand[PATH_MAX + 32];
		snprintf(cand, sizeof cand, "%s%s", self, rel[i]);
		if (access(cand, R_OK) == 0) {
			if (!realpath(cand, out) && (size_t)snprintf(out, n, "%.*s", (int)n - 1, cand) >= n) {
				snprintf(err, errlen, "%s: path too long", cand);
				return -1;
			}
			return 0;
		}
	}
	snprintf(err, errlen, "cannot find libcmc-preload.so next to %s (set CMC_PRELOAD)", self);
	return -1;
}

eng_frontend *proc_open(const char *path, eng_opts *opts, char *err, size_t errlen)
{
	struct proc_scenario *sc = proc_scenario_load(path, err, errlen);
	if (!sc)
		return NULL;
	struct proc_fe *p = eng_xcalloc(1, sizeof *p);
	p->sc = sc;
	p->fe.ops = &proc_ops;
	p->fe.deadlock_ok = true;
	p->fe.name = sc->path;
	p->mask = eng_xcalloc((sc->nops + 7) / 8, 1);
	for (size_t i = 0; i < sc->nops; i++) {
		p->any_once |= sc->ops[i].once;
		p->any_timeout |= sc->ops[i].timeout || sc->ops[i].advance_ms;
	}
	if (find_preload(p->preload, sizeof p->preload, err, errlen) < 0 ||
	    proc_elf_load(sc, &p->img, err, errlen) < 0 ||
	    !(p->props = proc_props_load(sc, err, errlen))) {
		proc_destroy(&p->fe);
		return NULL;
	}
	/* $CMC_EXEC=replay|fork sets the default executor (for commands
	 * without --exec, and for tests); anything else is a mistake to say. */
	const char *ex = getenv("CMC_EXEC");
	if (ex && *ex && strcmp(ex, "replay") && strcmp(ex, "fork")) {
		snprintf(err, errlen, "CMC_EXEC=%s: not an executor (expected fork or replay)", ex);
		proc_destroy(&p->fe);
		return NULL;
	}
	if (!p->preload[0] && sc->raw_heap)
		fprintf(stderr, "cmc: %s: no preload (CMC_PRELOAD is empty): the heap is not observed\n",
			sc->path);
	/* Writing to a target that just died must be an EPIPE, not our death. */
	signal(SIGPIPE, SIG_IGN);
	/* cmc owns no descriptor's I/O signals; a target that made it the
	 * owner of one (sigwall.c stops that where it can) must not end it. */
	signal(SIGIO, SIG_IGN);
	/* fork falls back to replay by itself */
	p->exec_replay = ex && !strcmp(ex, "replay");
	p->x = new_exec(p);
	p->opts = opts;
	if (sc->depth)
		opts->max_depth = sc->depth;
	if (sc->states)
		opts->max_states = sc->states;
	return &p->fe;
}

int proc_override(eng_frontend *fe, const char *key, const char *value, char *err, size_t errlen)
{
	struct proc_fe *p = pf(fe);
	if (p->started) {
		snprintf(err, errlen, "--%s: too late, the target has started", key);
		return -1;
	}
	if (!strcmp(key, "exec") || !strcmp(key, "snapshots")) {
		if (!strcmp(key, "exec")) {
			if (strcmp(value, "replay") && strcmp(value, "fork")) {
				snprintf(err, errlen, "--exec %s: expected fork or replay", value);
				return -1;
			}
			p->exec_replay = !strcmp(value, "replay");
		} else {
			char *end;
			errno = 0;
			unsigned long long n = strtoull(value, &end, 10);
			if (errno || end == value || *end || n < 1 || n > 100000) {
				snprintf(err, errlen, "snapshots %s: expected a count from 1 to 100000", value);
				return -1;
			}
			p->snapshots = (size_t)n;
		}
		p->x->ops->destroy(p->x);
		p->x = new_exec(p);
		return 0;
	}
	if (proc_scenario_set(p->sc, key, value, err, errlen) < 0)
		return -1;
	if (!strcmp(key, "depth") && p->opts)
		p->opts->max_depth = p->sc->depth;
	if (!strcmp(key, "states") && p->opts)
		p->opts->max_states = p->sc->states;
	return 0;
}

void proc_interrupt(void)
{
	proc_interrupted = 1;
}

const char *proc_containment(eng_frontend *fe)
{
	(void)fe;
	static char buf[256];
	const char *lost = proc_pids_lost();
	if (!lost)
		return "pid namespace";
	snprintf(buf, sizeof buf, "process group (%s)", lost);
	return buf;
}

int proc_op_kind(eng_frontend *fe, const char *label)
{
	struct proc_fe *p = pf(fe);
	for (size_t i = 0; i < p->sc->nops; i++)
		if (!strcmp(p->sc->ops[i].label, label))
			return p->sc->ops[i].eof ? PROC_OP_EOF : p->sc->ops[i].once ? PROC_OP_ONCE
									  : PROC_OP_REPEAT;
	return -1;
}

bool proc_state_files(eng_frontend *fe)
{
	return pf(fe)->sc->nstatefiles > 0;
}

const char *proc_info(eng_frontend *fe)
{
	struct proc_fe *p = pf(fe);
	return p->info[0] ? p->info : NULL;
}
