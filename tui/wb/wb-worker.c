/*
 * wb-worker.c — the workbench's worker thread: it alone calls the engine
 * (search runs, stepping by hand, replay, simulation), one job at a time,
 * so the UI thread never waits on a target or a search.
 *
 * Contract with the UI thread (see wb.h): the UI submits a job under mu
 * when the worker is idle; the worker runs it without mu, publishes its
 * result under mu and bumps done_seq.  Progress and every stored row go
 * through wb_worker_listener(), which feeds the store writer (wb.wst, the
 * worker's alone) and publishes progress under mu (prog_seq).  After each
 * job the writer is synced so the UI's read-only handle sees the rows.  Pausing is eng_search_stop(), which only
 * sets a flag and is safe from the UI thread; running again resumes from
 * the kept frontier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "engine/util.h"
#include "wb.h"

/* ---- the listener: store writer under mu, plus progress ------------------ */

static void l_state(void *ctx, const eng_state_info *s)
{
	struct wb *wb = ctx;
	if (wb->store_l.on_state)
		wb->store_l.on_state(wb->store_l.ctx, s);
	wb_lock(wb);
	if ((uint64_t)s->id + 1 > wb->prog.distinct)
		wb->prog.distinct = (uint64_t)s->id + 1;
	wb->prog_seq++;
	wb_unlock(wb);
}

static void l_edges(void *ctx, uint32_t from, const eng_edge *e, size_t n)
{
	struct wb *wb = ctx;
	if (wb->store_l.on_edges)
		wb->store_l.on_edges(wb->store_l.ctx, from, e, n);
	for (size_t i = 0; wb->store_l.on_transition && i < n; i++)
		wb->store_l.on_transition(wb->store_l.ctx, from, e[i].to, e[i].label, e[i].obs,
					  e[i].new_state);
}

static void l_violation(void *ctx, const eng_violation *v)
{
	struct wb *wb = ctx;
	if (wb->store_l.on_violation)
		wb->store_l.on_violation(wb->store_l.ctx, v);
	wb_lock(wb);
	wb->prog.violations++;
	wb->prog_seq++;
	wb_unlock(wb);
}

static void l_progress(void *ctx, const eng_stats *t)
{
	struct wb *wb = ctx;
	if (wb->store_l.on_progress)
		wb->store_l.on_progress(wb->store_l.ctx, t);
	wb_lock(wb);
	wb->prog = *t;
	wb->prog_seq++;
	wb_unlock(wb);
}

static void l_done(void *ctx, const eng_stats *t)
{
	struct wb *wb = ctx;
	if (wb->store_l.on_done)
		wb->store_l.on_done(wb->store_l.ctx, t);
	wb_lock(wb);
	wb->prog = *t;
	wb->prog_seq++;
	wb_unlock(wb);
}

eng_listener wb_worker_listener(struct wb *wb)
{
	return (eng_listener){
		.on_state = l_state,
		.on_edges = l_edges,
		.on_violation = l_violation,
		.on_progress = l_progress,
		.on_done = l_done,
		.ctx = wb,
	};
}

/* ---- jobs ------------------------------------------------------------------ */

/* After the engine ran: hand the store the final figures and make every
 * row written so far readable by the UI's read-only handle. */
static void after_engine(struct wb *wb)
{
	const eng_stats *t = eng_search_stats(wb->search);
	if (wb->store_l.on_progress)
		wb->store_l.on_progress(wb->store_l.ctx, t);
	if (wb->wst)
		store_sync(wb->wst); /* a failure stays in store_error() and stops the search */
	wb_lock(wb);
	wb->prog = *t;
	wb->prog_seq++;
	wb_unlock(wb);
}

/* Steps by hand are stored but are not a search's expansions: the store
 * must not count them toward what --resume trusts (store.h). */
static void hand_steps(struct wb *wb, bool on)
{
	if (wb->wst)
		store_hand_steps(wb->wst, on);
}

static void job_run(struct wb *wb, char *msg, size_t len)
{
	uint64_t v0 = eng_search_stats(wb->search)->violations;
	int rc = eng_search_run(wb->search);
	after_engine(wb);
	const eng_stats *t = eng_search_stats(wb->search);
	uint32_t from = wb_run_partial_from();
	if (rc < 0)
		snprintf(msg, len, "search failed: %s", eng_search_error(wb->search));
	else if (t->violations > v0)
		snprintf(msg, len, "search stopped: %llu violation%s found (v lists %s)",
			 (unsigned long long)(t->violations - v0), tui_s(t->violations - v0),
			 t->violations - v0 == 1 ? "it" : "them");
	else if (t->stopped)
		snprintf(msg, len, "search paused at %llu distinct states (r resumes)",
			 (unsigned long long)t->distinct);
	else if (t->complete && from != ENG_NO_STATE)
		snprintf(msg, len, "search from state %u done: %llu distinct states (a partial run: "
			 "u lists the others)", from, (unsigned long long)t->distinct);
	else if (t->complete)
		snprintf(msg, len, "search complete: %llu distinct states, %llu generated",
			 (unsigned long long)t->distinct, (unsigned long long)t->generated);
	else
		snprintf(msg, len, "search ended at a bound: %llu distinct states",
			 (unsigned long long)t->distinct);
}

/* R: the live run ends as it stands (complete, or interrupted and
 * resumable) and a new run begins whose search takes the path to state
 * `id` (the old run's shortest trace to it, stored as steps by hand) and
 * queues the state it reaches alone; the UI then runs it.  *reached: that
 * state's id in the new run.  0, or -1 with msg. */
static int job_restart_from(struct wb *wb, uint32_t id, uint32_t *reached, char *msg, size_t len)
{
	eng_trace *t = eng_search_trace(wb->search, id);
	if (!t) {
		snprintf(msg, len, "cannot search from state %u: the target did not repeat the path to it",
			 id);
		return -1;
	}
	int64_t old = wb->run_live;
	char note[80], err[256];
	snprintf(note, sizeof note, "R: from state %u of run %lld", id, (long long)old);
	if (wb_session_new_run(wb, wb->opts.order, note, err, sizeof err) < 0) {
		snprintf(msg, len, "cannot begin a new run: %.200s", err);
		eng_trace_free(t);
		return -1;
	}
	eng_search *s = wb->search;
	uint32_t cur = ENG_NO_STATE;
	size_t step = 0;
	if (eng_search_init(s) == 0)
		for (uint64_t i = 0; i < eng_search_count(s) && cur == ENG_NO_STATE; i++)
			if (eng_search_parent(s, (uint32_t)i) == ENG_NO_STATE &&
			    eng_fp_eq(eng_search_fp(s, (uint32_t)i), t->init_fp))
				cur = (uint32_t)i;
	hand_steps(wb, true);
	for (; cur != ENG_NO_STATE && step < t->len; step++) {
		uint32_t next = ENG_NO_STATE;
		if (eng_search_apply(s, cur, t->labels[step], &next) < 0 || next == ENG_NO_STATE ||
		    (t->fps && !eng_fp_eq(eng_search_fp(s, next), t->fps[step])))
			cur = ENG_NO_STATE;
		else
			cur = next;
	}
	hand_steps(wb, false);
	int rc = -1;
	if (cur == ENG_NO_STATE) {
		snprintf(msg, len, "run %lld: the target did not repeat the path to state %u (at step %zu)",
			 (long long)wb->run_live, id, step);
	} else {
		/* States queued besides the one searched from are dropped by
		 * the focus: then the run is partial. */
		const eng_stats *t0 = eng_search_stats(s);
		bool drops = t0->frontier > 1 || (t0->frontier == 1 && t0->distinct > 1);
		if (eng_search_focus(s, cur) < 0) {
			snprintf(msg, len, "cannot start from state %u: %s", cur,
				 eng_search_error(s) ? eng_search_error(s) : "no such state");
		} else {
			if (wb->wst)
				store_frontier_replaced(wb->wst); /* --resume must not trust the order now */
			if (drops)
				wb_run_set_partial(cur);
			snprintf(msg, len, "new run %lld from state %u (state %u of run %lld): searching...",
				 (long long)wb->run_live, cur, id, (long long)old);
			*reached = cur;
			rc = 0;
		}
	}
	after_engine(wb);
	eng_trace_free(t);
	return rc;
}

static void replay_step(void *ctx, const eng_replay_step *s)
{
	struct wb *wb = ctx;
	wb_lock(wb);
	if (wb->rsteps && wb->replay_trace && s->step <= wb->replay_trace->len) {
		struct wb_rstep *r = &wb->rsteps[s->step];
		r->done = true;
		r->outcome = s->outcome;
		r->fault = s->fault;
		r->got = s->succ ? s->succ->fp : (eng_fp){0, 0};
		r->reply[0] = 0;
		r->property[0] = 0;
		if (s->succ && s->succ->obs && s->succ->obs->reply)
			wb_escape(r->reply, sizeof r->reply, s->succ->obs->reply, s->succ->obs->reply_len);
		if (s->nviolated)
			wb_escape(r->property, sizeof r->property, s->property[0], strlen(s->property[0]));
	}
	wb_unlock(wb);
}

/* Re-execute the first `steps` steps; the verdict is the one `cmc replay`
 * gives (tui_replay_verdict), with the violation expected only when the
 * whole counterexample was replayed. */
static void job_replay(struct wb *wb, size_t steps, char *msg, size_t len)
{
	if (!wb->fe) {
		/* Browsing a database: open the run's target to replay against. */
		char err[512];
		eng_opts o;
		eng_opts_default(&o);
		eng_frontend *fe = wb->target ? tui_open_target(wb->target, &o, err, sizeof err) : NULL;
		if (!fe) {
			snprintf(msg, len, "cannot replay: %.200s",
				 wb->target ? err : "the run names no scenario or model to run");
			return;
		}
		wb_lock(wb);
		wb->fe = fe;
		wb_unlock(wb);
	}
	eng_trace pre;
	char expect[sizeof wb->replay_expect];
	wb_lock(wb);
	pre = *wb->replay_trace;
	size_t total = pre.len;
	if (steps < pre.len)
		pre.len = steps;
	for (size_t i = 0; i <= wb->replay_trace->len; i++)
		wb->rsteps[i].done = false;
	wb->replay_diverged = SIZE_MAX;
	wb->replay_why[0] = 0;
	memcpy(expect, wb->replay_expect, sizeof expect);
	wb_unlock(wb);
	bool whole = pre.len == total;
	eng_replay_opts o;
	eng_replay_opts_default(&o);
	o.expect = expect[0] ? expect : NULL;
	o.check_deadlock = whole; /* a prefix's last state is no deadlock */
	o.fn = replay_step;
	o.ctx = wb;
	eng_replay_result r;
	eng_replay(wb->fe, &pre, &o, &r);
	char verdict[1024], text[1200];
	int code = tui_replay_verdict(&pre, pre.len, &r, whole ? o.expect : NULL, verdict, sizeof verdict);
	/* What was compared: a step whose fingerprint the run did not keep
	 * was taken, not checked; never say "matched" for it. */
	size_t matched = 0;
	bool init_ok;
	wb_lock(wb);
	init_ok = wb->rsteps[0].done && wb->rsteps[0].outcome == ENG_STEP_MATCHED;
	for (size_t i = 1; i <= pre.len; i++)
		matched += wb->rsteps[i].done && wb->rsteps[i].outcome == ENG_STEP_MATCHED;
	wb_unlock(wb);
	if (code == TUI_EXIT_OK && !whole && pre.len && matched == pre.len)
		snprintf(verdict, sizeof verdict, "no property fails yet, every fingerprint matched");
	else if (code == TUI_EXIT_OK && !whole && pre.len)
		snprintf(verdict, sizeof verdict, "no property fails yet; %zu of %zu steps matched a "
			 "stored fingerprint, the others have none to check", matched, pre.len);
	else if (code == TUI_EXIT_OK && !whole)
		snprintf(verdict, sizeof verdict, "no property fails yet; %s", init_ok
			 ? "the initial state matched" : "the initial state has no stored fingerprint to check");
	else if (code != TUI_EXIT_USAGE && r.diverged != SIZE_MAX)
		snprintf(verdict + strlen(verdict), sizeof verdict - strlen(verdict),
			 " - the target did not repeat itself: was it rebuilt since the run, or does "
			 "it read a clock, random numbers or files outside its cwd?");
	/* Row 1 of the view says first where the target did not repeat
	 * itself, then the verdict (escaped already). */
	char row[sizeof wb->replay_why];
	if (code != TUI_EXIT_USAGE && r.diverged != SIZE_MAX && r.diverged) {
		char lab[64];
		const char *l = pre.labels[r.diverged - 1];
		wb_escape(lab, sizeof lab, l, strlen(l));
		snprintf(row, sizeof row, "DIVERGED at step %zu (%s); %.400s", r.diverged, lab, verdict);
	} else if (code != TUI_EXIT_USAGE && r.diverged != SIZE_MAX) {
		snprintf(row, sizeof row, "DIVERGED at the initial state; %.400s", verdict);
	} else
		snprintf(row, sizeof row, "%.500s", verdict);
	snprintf(text, sizeof text, "replayed %zu of %zu steps: %s", pre.len, total, verdict);
	wb_lock(wb);
	wb->replay_diverged = r.diverged;
	wb->replay_code = code;
	memcpy(wb->replay_why, row, sizeof row);
	wb_unlock(wb);
	size_t n = strlen(text); /* the status line keeps what fits */
	if (n >= len)
		n = len - 1;
	memcpy(msg, text, n);
	msg[n] = 0;
}

static void job_describe(struct wb *wb, uint32_t id)
{
	eng_frontend *fe = wb->fe;
	char *text = NULL;
	if (fe && fe->ops->print) {
		size_t len;
		void *st = eng_search_state(wb->search, id, &len);
		if (st) {
			char *buf = NULL;
			size_t blen = 0;
			FILE *m = open_memstream(&buf, &blen);
			if (m) {
				fe->ops->print(fe, st, len, m);
				fclose(m);
				text = buf;
			}
			free(st);
		}
	}
	wb_lock(wb);
	free(wb->describe);
	wb->describe = text;
	wb->describe_id = id;
	wb_unlock(wb);
}

struct sim_ctx {
	uint64_t violations;
	char first[200];
};

static void sim_violation(void *ctx, const eng_violation *v)
{
	struct sim_ctx *c = ctx;
	if (c->violations++ == 0)
		snprintf(c->first, sizeof c->first, "%s after %zu steps", v->property,
			 v->trace ? v->trace->len : (size_t)0);
}

static void job_simulate(struct wb *wb, char *msg, size_t len)
{
	eng_sim_opts so = {.walks = 100, .depth = 100, .seed = 1, .keep_going = true};
	struct sim_ctx c = {0};
	eng_listener l = {.on_violation = sim_violation, .ctx = &c};
	eng_stats out;
	int rc = eng_simulate(wb->fe, &so, &l, 1, &out);
	char first[220];
	wb_escape(first, sizeof first, c.first, strlen(c.first));
	if (rc < 0)
		snprintf(msg, len, "simulation failed");
	else if (c.violations)
		snprintf(msg, len, "simulation: %llu walk%s, %llu step%s, %llu violation%s; first: %.100s",
			 (unsigned long long)so.walks, tui_s(so.walks), (unsigned long long)out.transitions,
			 tui_s(out.transitions), (unsigned long long)c.violations, tui_s(c.violations), first);
	else
		snprintf(msg, len, "simulation: %llu walks, %llu steps, no violation",
			 (unsigned long long)so.walks, (unsigned long long)out.transitions);
}

/* The visited set holds every fingerprint in memory: a scan of a million
 * takes milliseconds. */
static uint32_t find_in_search(struct wb *wb, const char *prefix)
{
	size_t plen = strlen(prefix);
	uint64_t n = eng_search_count(wb->search);
	for (uint64_t i = 0; i < n; i++) {
		char hex[33];
		if (strncmp(eng_fp_hex(eng_search_fp(wb->search, (uint32_t)i), hex), prefix, plen) == 0)
			return (uint32_t)i;
	}
	return ENG_NO_STATE;
}

/* The worker's own read-only handle, for reads too long for the UI
 * thread's (whole-run passes, rendering); NULL with msg when it cannot be
 * opened. */
static store *worker_store(struct wb *wb, char *msg, size_t len)
{
	char err[512];
	store_opts ro = {.readonly = true};
	if (!wb->rst && !(wb->rst = store_open(wb->db_path, &ro, err, sizeof err)))
		snprintf(msg, len, "%.200s", err);
	return wb->rst;
}

/* A stored run: one pass over its state blocks on the worker's own handle
 * (store_find_fp_prefix), matching the deduplicating, raw or canonical
 * fingerprint. */
static uint32_t find_in_store(struct wb *wb, int64_t run, const char *prefix)
{
	char err[512];
	if (!worker_store(wb, err, sizeof err))
		return ENG_NO_STATE;
	uint32_t id;
	size_t n = 0;
	if (store_find_fp_prefix(wb->rst, run, prefix, &id, 1, &n) != 0 || n == 0)
		return ENG_NO_STATE;
	return id;
}

static void *worker_main(void *arg)
{
	struct wb *wb = arg;
	wb_lock(wb);
	for (;;) {
		while (!wb->quit && wb->job == WB_J_NONE)
			pthread_cond_wait(&wb->cv, &wb->mu);
		if (wb->quit)
			break;
		enum wb_job j = wb->job;
		uint32_t id = wb->job_state;
		char label[sizeof wb->job_label];
		memcpy(label, wb->job_label, sizeof label);
		size_t steps = wb->job_steps;
		int64_t run = wb->job_run;
		struct wb_render render = wb->render;
		wb->job_running = true;
		wb_unlock(wb);

		char msg[256] = "";
		int rc = 0;
		uint32_t reached = ENG_NO_STATE;
		switch (j) {
		case WB_J_INIT:
			rc = eng_search_init(wb->search);
			after_engine(wb);
			if (rc < 0)
				snprintf(msg, sizeof msg, "cannot start: %s", eng_search_error(wb->search));
			break;
		case WB_J_RUN:
			job_run(wb, msg, sizeof msg);
			break;
		case WB_J_RUN_FROM:
			rc = job_restart_from(wb, id, &reached, msg, sizeof msg);
			break;
		case WB_J_EXPAND:
			hand_steps(wb, true);
			rc = eng_search_expand(wb->search, id);
			hand_steps(wb, false);
			after_engine(wb);
			if (rc < 0)
				snprintf(msg, sizeof msg, "cannot expand state %u: %s", id,
					 eng_search_error(wb->search) ? eng_search_error(wb->search) : "unknown state");
			else
				snprintf(msg, sizeof msg, "expanded state %u: %d successor%s", id, rc, tui_s((uint64_t)rc));
			break;
		case WB_J_APPLY: {
			hand_steps(wb, true);
			rc = eng_search_apply(wb->search, id, label, &reached);
			hand_steps(wb, false);
			after_engine(wb);
			char el[80];
			wb_escape(el, sizeof el, label, strlen(label));
			const char *e = eng_search_error(wb->search);
			if (rc < 0 && e)
				snprintf(msg, sizeof msg, "cannot take %s in state %u: %.120s", el, id, e);
			else if (rc < 0) {
				rc = -2; /* no successor: the state view remembers it */
				snprintf(msg, sizeof msg, "%s is not enabled in state %u: the %s gives "
					 "no successor", el, id,
					 strcmp(wb->fe->ops->kind, "model") == 0 ? "model" : "target");
			} else
				snprintf(msg, sizeof msg, "%s: state %u -> %u", el, id, reached);
			break;
		}
		case WB_J_REPLAY:
			job_replay(wb, steps, msg, sizeof msg);
			break;
		case WB_J_DESCRIBE:
			job_describe(wb, id);
			break;
		case WB_J_SIMULATE:
			job_simulate(wb, msg, sizeof msg);
			break;
		case WB_J_REORDER: {
			char err[256];
			eng_order o = wb->opts.order == ENG_DFS ? ENG_BFS : ENG_DFS;
			rc = wb_session_reorder(wb, o, err, sizeof err);
			if (rc < 0) {
				snprintf(msg, sizeof msg, "cannot begin a new run: %.200s", err);
				break;
			}
			rc = eng_search_init(wb->search);
			after_engine(wb);
			snprintf(msg, sizeof msg, "new run %lld searching %s (r runs it)",
				 (long long)wb->run_live, o == ENG_DFS ? "depth-first" : "breadth-first");
			break;
		}
		case WB_J_COMPARE: {
			/* A whole-run read (seconds on a million states): on the
			 * worker, through a read-only handle of its own. */
			char err[512];
			store_opts ro = {.readonly = true};
			if (!wb->rst)
				wb->rst = store_open(wb->db_path, &ro, err, sizeof err);
			store_compare *c = calloc(1, sizeof *c);
			if (!wb->rst || !c || store_compare_run(wb->rst, run, c) != 0) {
				free(c);
				c = NULL;
				rc = -1;
				snprintf(msg, sizeof msg, "cannot compare run %lld", (long long)run);
			}
			wb_lock(wb);
			if (wb->compare) {
				store_compare_clear(wb->compare);
				free(wb->compare);
			}
			wb->compare = c;
			wb->compare_run = run;
			wb_unlock(wb);
			break;
		}
		case WB_J_FIND: {
			if (wb->search && run == wb->run_live)
				reached = find_in_search(wb, label);
			/* the store also matches raw and canonical fingerprints */
			if (reached == ENG_NO_STATE)
				reached = find_in_store(wb, run, label);
			if (reached == ENG_NO_STATE) {
				rc = -1;
				snprintf(msg, sizeof msg, "/%.40s: no state with that fingerprint prefix", label);
			}
			break;
		}
		case WB_J_RENDER:
			if (worker_store(wb, msg, sizeof msg))
				rc = wb_render_run(wb->rst, &render, msg, sizeof msg);
			else
				rc = -1;
			break;
		case WB_J_NONE:
			break;
		}

		wb_lock(wb);
		/* One finished job is handed over at a time.  A job the UI
		 * submitted before it picked up the previous one's end (a
		 * view's load asking for a model's print) and that has nothing
		 * to say does not overwrite it: the UI's next poll still sees
		 * a job done, and the result is in its own field. */
		bool unseen = wb->done_seq != wb->seen_done;
		if (!unseen || msg[0] || rc < 0 || reached != ENG_NO_STATE) {
			wb->done_job = j;
			wb->done_rc = rc;
			wb->done_state = reached;
			memcpy(wb->done_msg, msg, sizeof wb->done_msg);
			wb->done_seq++;
		}
		wb->job = WB_J_NONE;
		wb->job_running = false;
	}
	wb_unlock(wb);
	return NULL;
}

void wb_worker_start(struct wb *wb)
{
	if (pthread_create(&wb->worker, NULL, worker_main, wb) != 0)
		eng_die("cmc tui: cannot start the worker thread");
	wb->worker_started = true;
}

void wb_worker_stop(struct wb *wb)
{
	if (!wb->worker_started)
		return;
	wb_lock(wb);
	wb->quit = true;
	if (wb->search)
		eng_search_stop(wb->search);
	pthread_cond_signal(&wb->cv);
	wb_unlock(wb);
	pthread_join(wb->worker, NULL);
	wb->worker_started = false;
}

bool wb_submit(struct wb *wb, enum wb_job j, uint32_t state, const char *label, size_t steps)
{
	bool ok;
	wb_lock(wb);
	ok = wb->job == WB_J_NONE;
	if (ok) {
		wb->job = j;
		wb->job_state = state;
		snprintf(wb->job_label, sizeof wb->job_label, "%s", label ? label : "");
		wb->job_steps = steps;
		wb->job_run = wb->run;
		pthread_cond_signal(&wb->cv);
	}
	wb_unlock(wb);
	if (!ok)
		wb_msg(wb, true, "busy: the engine is working (p pauses a search)");
	return ok;
}

bool wb_submit_render(struct wb *wb, const struct wb_render *r)
{
	wb_lock(wb);
	bool ok = wb->job == WB_J_NONE;
	if (ok) {
		wb->render = *r;
		wb->job = WB_J_RENDER;
		wb->job_run = wb->run;
		pthread_cond_signal(&wb->cv);
	}
	wb_unlock(wb);
	if (!ok)
		wb_msg(wb, true, "busy: the engine is working (p pauses a search); render when it is idle");
	return ok;
}

bool wb_busy(struct wb *wb)
{
	wb_lock(wb);
	bool b = wb->job != WB_J_NONE;
	wb_unlock(wb);
	return b;
}

void wb_pause(struct wb *wb)
{
	wb_lock(wb);
	bool running = wb->job == WB_J_RUN || wb->job == WB_J_RUN_FROM;
	if (running && wb->search)
		eng_search_stop(wb->search);
	wb_unlock(wb);
	if (!running)
		wb_msg(wb, false, "no search is running (r runs one)");
	else
		wb_msg(wb, false, "pausing...");
}

void wb_poll(struct wb *wb)
{
	bool prog = false, done = false;
	char msg[256] = "";
	enum wb_job j = WB_J_NONE;
	int rc = 0;
	uint32_t reached = ENG_NO_STATE;
	wb_lock(wb);
	if (wb->prog_seq != wb->seen_prog) {
		wb->seen_prog = wb->prog_seq;
		prog = true;
		if (wb->run_is_live)
			wb->n_states = wb->prog.distinct;
	}
	if (wb->done_seq != wb->seen_done) {
		wb->seen_done = wb->done_seq;
		done = true;
		j = wb->done_job;
		rc = wb->done_rc;
		reached = wb->done_state;
		memcpy(msg, wb->done_msg, sizeof msg);
	}
	bool running = wb->job != WB_J_NONE;
	wb_unlock(wb);
	if (running)
		wb->dirty = true; /* the header shows the engine at work */
	if (prog && wb->run_is_live) {
		wb->data_gen++;
		wb->dirty = true;
	}
	if (!done)
		return;
	wb->dirty = true;
	wb->data_gen++;
	/* What the job wrote on stderr (before it finished) first: its
	 * message, the verdict of a replay, comes last and stays. */
	wb_stderr_drain(wb);
	if (msg[0])
		wb_msg(wb, rc < 0 || strncmp(msg, "cannot", 6) == 0, "%s", msg);
	if (j == WB_J_APPLY && rc == -2)
		wb_state_refused();
	if (j == WB_J_APPLY && rc >= 0 && reached != ENG_NO_STATE)
		wb_goto_state(wb, reached);
	if (j == WB_J_RUN_FROM) {
		/* A new run began even when its path failed: show it. */
		wb_lock(wb);
		int64_t r = wb->run_live;
		wb_unlock(wb);
		/* The search first: a view's load may ask the worker too. */
		if (rc >= 0)
			wb_submit(wb, WB_J_RUN, 0, NULL, 0);
		if (r != wb->run) {
			wb_select_run(wb, r);
			if (reached != ENG_NO_STATE && reached < wb->n_states)
				wb->cur = reached;
			const struct wb_view *v = wb_view(wb->view);
			if (v->load)
				v->load(wb);
		}
	}
	if (j == WB_J_REORDER && rc >= 0) {
		wb_lock(wb);
		int64_t r = wb->run_live;
		wb_unlock(wb);
		wb_select_run(wb, r);
		wb->nvstack = 0;
		wb->view = WB_V_LIST;
		wb->data_gen++;
	}
	if (j == WB_J_FIND && rc >= 0 && reached != ENG_NO_STATE) {
		wb_goto_state(wb, reached);
		wb_go(wb, WB_V_STATE);
	}
	if (j == WB_J_INIT && rc >= 0 && wb->cur == ENG_NO_STATE && wb->n_states)
		wb->cur = 0;
}
