/*
 * wb-app.c — a workbench session: opening it (a live search over a scenario
 * or model with the store writer attached, or a database browsed read-only),
 * closing it (a running search stopped, the run ended and stored), and the
 * navigation state the views share (view stack, current state, history).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check.h"
#include "cli/cmd.h"
#include "cli/storeargs.h"
#include "proc/proc.h"
#include "engine/util.h"
#include "wb.h"

static char *owned_target; /* DB sessions: the run's scenario or model */
static uint32_t run_from = ENG_NO_STATE; /* R: the state the live run searches from,
					    ENG_NO_STATE: none; see end_status() */
static char *run_note;     /* the next run's origin, for its options text */

void wb_lock(struct wb *wb) { pthread_mutex_lock(&wb->mu); }
void wb_unlock(struct wb *wb) { pthread_mutex_unlock(&wb->mu); }

void wb_msg(struct wb *wb, bool err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(wb->msg, sizeof wb->msg, fmt, ap);
	va_end(ap);
	wb->msg_err = err;
	wb->dirty = true;
}

void wb_reload_run(struct wb *wb)
{
	store_run r;
	wb_lock(wb);
	int rc = store_run_get(wb->st, wb->run, &r);
	wb_unlock(wb);
	if (rc != 0)
		return;
	store_run_clear(&wb->ri);
	wb->ri = r;
	if (!wb->run_is_live)
		wb->n_states = r.stored_states;
}

void wb_select_run(struct wb *wb, int64_t run)
{
	wb->run = run;
	wb_lock(wb);
	wb->run_is_live = wb->live && run == wb->run_live;
	wb_unlock(wb);
	wb_reload_run(wb);
	if (wb->run_is_live) {
		wb_lock(wb);
		wb->n_states = wb->prog.distinct;
		wb_unlock(wb);
	}
	wb->cur = wb->n_states ? 0 : ENG_NO_STATE;
	wb->nhist = 0;
	wb->data_gen++;
	wb_levels_reset();
	wb_tree_reset();
	wb->dirty = true;
}

bool wb_can_step(struct wb *wb) { return wb->live && wb->run_is_live; }

void wb_go(struct wb *wb, enum wb_view_id v)
{
	if (wb->view == v)
		return;
	if (wb->nvstack == sizeof wb->vstack / sizeof wb->vstack[0]) {
		memmove(wb->vstack, wb->vstack + 1, (wb->nvstack - 1) * sizeof wb->vstack[0]);
		wb->nvstack--;
	}
	wb->vstack[wb->nvstack++] = wb->view;
	wb->view = v;
	const struct wb_view *vw = wb_view(v);
	if (vw->load)
		vw->load(wb);
	wb->dirty = true;
}

void wb_back(struct wb *wb)
{
	if (wb->nvstack == 0) {
		wb_msg(wb, false, "nothing to go back to (q quits)");
		return;
	}
	wb->view = wb->vstack[--wb->nvstack];
	const struct wb_view *vw = wb_view(wb->view);
	if (vw->load)
		vw->load(wb);
	wb->dirty = true;
}

void wb_goto_state(struct wb *wb, uint32_t id)
{
	if (wb->cur != ENG_NO_STATE && wb->cur != id) {
		if (wb->nhist == WB_HIST) {
			memmove(wb->hist, wb->hist + 1, (WB_HIST - 1) * sizeof wb->hist[0]);
			wb->nhist--;
		}
		wb->hist[wb->nhist++] = wb->cur;
	}
	wb->cur = id;
	wb->dirty = true;
	const struct wb_view *vw = wb_view(wb->view);
	if (vw->load)
		vw->load(wb);
}

static char *options_text(const eng_opts *o)
{
	char buf[160];
	snprintf(buf, sizeof buf, "tui%s%s%s%s", o->order == ENG_DFS ? " --dfs" : "",
		 o->keep_going ? " --keep-going" : "", run_note ? "; " : "", run_note ? run_note : "");
	return eng_xstrdup(buf);
}

/* Begin a run in the writer and a search over wb.fe that writes into it.
 * Returns the run id, or -1 with err. */
static int64_t begin_run(struct wb *wb, char *err, size_t errlen)
{
	char *text = tui_target_text(wb->target);
	char *opt = options_text(&wb->opts);
	store_run_info ri = {
		.kind = wb->fe->ops->kind,
		.name = wb->fe->name ? wb->fe->name : wb->target,
		.source_path = tui_target_is_model(wb->target) ? NULL : wb->target,
		.source_text = text,
		.options = opt,
		.order = wb->opts.order == ENG_DFS ? "dfs" : "bfs",
		.actions = (const char *const *)wb->actions,
		.n_actions = wb->n_actions,
	};
	int64_t run = store_run_begin(wb->wst, &ri);
	free(text);
	free(opt);
	if (run < 0) {
		snprintf(err, errlen, "%s", store_error(wb->wst));
		return -1;
	}
	eng_search *s = eng_search_new(wb->fe, &wb->opts);
	store_listener(wb->wst, s, &wb->store_l);
	eng_listener l = wb_worker_listener(wb);
	eng_search_listen(s, &l);
	wb_lock(wb);
	wb->search = s;
	wb->run_live = run;
	run_from = ENG_NO_STATE;
	memset(&wb->prog, 0, sizeof wb->prog);
	wb_unlock(wb);
	tui_signals_stop(s);
	return run;
}

/* R (a search from one state) begins a run whose frontier is that state
 * alone: the other states queued on its path may never be expanded, so an
 * empty frontier afterwards does not mean the whole space was explored.
 * Such a run is not stored as complete but as interrupted, which is what
 * it is: --resume continues it from the last state expanded in order
 * (store_frontier_replaced()).  The run R was pressed in ends as it
 * stood, whole. */
void wb_run_set_partial(uint32_t from) { run_from = from; }
uint32_t wb_run_partial_from(void) { return run_from; }

/* As `cmc check` stores it: a search a depth or state bound cut short is
 * 'complete' in the status column with its bounded flag set, and reads
 * 'bounded' (store/read.c). */
static const char *end_status(const eng_stats *t)
{
	return t->violations ? "violation"
	       : (t->complete || (t->bounded && !t->stopped)) && run_from == ENG_NO_STATE
		       ? "complete"
		       : "interrupted";
}

int wb_session_reorder(struct wb *wb, eng_order order, char *err, size_t errlen)
{
	return wb_session_new_run(wb, order, NULL, err, errlen);
}

int wb_session_new_run(struct wb *wb, eng_order order, const char *note, char *err, size_t errlen)
{
	eng_search *old = wb->search;
	const eng_stats *t = eng_search_stats(old);
	if (store_run_end(wb->wst, end_status(t), t) < 0 ||
	    tui_run_record_identity(wb->wst, wb->run_live, wb->fe) < 0) {
		snprintf(err, errlen, "%s", store_error(wb->wst));
		return -1;
	}
	wb_lock(wb);
	wb->opts.order = order;
	wb_unlock(wb);
	tui_signals_stop(NULL);
	run_note = note ? eng_xstrdup(note) : NULL;
	int64_t run = begin_run(wb, err, errlen);
	free(run_note);
	run_note = NULL;
	if (run < 0)
		return -1;
	eng_search_free(old);
	return 0;
}

static int open_live(struct wb *wb, const char *target, const char *db, char *err, size_t errlen)
{
	eng_opts o = wb->opts;
	eng_frontend *fe = tui_open_target(target, &o, err, errlen);
	if (!fe)
		return -1;
	if (wb->nov && strcmp(fe->ops->kind, "process") != 0) {
		snprintf(err, errlen, "--hash and --set apply to scenarios, not models");
		fe->ops->destroy(fe);
		return -1;
	}
	for (int i = 0; i < wb->nov; i++)
		if (proc_override(fe, wb->ov_key[i], wb->ov_val[i], err, errlen) < 0) {
			fe->ops->destroy(fe);
			return -1;
		}
	/* What the scenario asked for, unless the command line said otherwise
	 * (cmd-tui.c copies the explicit options over after this). */
	if (wb->opts.order != ENG_DFS)
		wb->opts.order = o.order;
	if (!wb->opts.max_depth)
		wb->opts.max_depth = o.max_depth;
	if (!wb->opts.max_states)
		wb->opts.max_states = o.max_states;
	store_opts so = {0};
	char serr[512];
	wb->wst = store_open(db, &so, serr, sizeof serr);
	if (!wb->wst) {
		snprintf(err, errlen, "%s", serr);
		fe->ops->destroy(fe);
		return -1;
	}
	unsigned na = fe->ops->n_actions ? fe->ops->n_actions(fe) : 0;
	wb->actions = eng_xcalloc(na + 1, sizeof *wb->actions);
	wb->n_actions = na;
	for (unsigned i = 0; i < na; i++) {
		const char *n = fe->ops->action_name(fe, i);
		wb->actions[i] = eng_xstrdup(n ? n : "?");
	}
	wb->fe = fe;
	int64_t run = begin_run(wb, err, errlen);
	store_opts ro = {.readonly = true};
	if (run >= 0 && !(wb->st = store_open(db, &ro, serr, sizeof serr)))
		snprintf(err, errlen, "%s", serr);
	if (run < 0 || !wb->st) {
		if (wb->search)
			eng_search_free(wb->search);
		wb->search = NULL;
		store_close(wb->wst);
		wb->wst = NULL;
		fe->ops->destroy(fe);
		wb->fe = NULL;
		return -1;
	}
	wb->run = run;
	wb->run_is_live = true;
	wb_reload_run(wb);
	wb->n_states = 0;
	return 0;
}

static int open_db(struct wb *wb, const char *db, int64_t run, char *err, size_t errlen)
{
	store_opts so = {.readonly = true};
	char serr[512];
	wb->st = store_open(db, &so, serr, sizeof serr);
	if (!wb->st) {
		snprintf(err, errlen, "%s", serr);
		return -1;
	}
	if (!run)
		run = store_latest_run(wb->st);
	if (!run) {
		snprintf(err, errlen, "%s: the database holds no run yet (run `cmc check` first)", db);
		store_close(wb->st);
		wb->st = NULL;
		return -1;
	}
	store_run r;
	if (store_run_get(wb->st, run, &r) != 0) {
		snprintf(err, errlen, "%s: no run %lld in this database", db, (long long)run);
		store_close(wb->st);
		wb->st = NULL;
		return -1;
	}
	wb->ri = r;
	wb->run = run;
	wb->n_states = r.stored_states;
	/* Replay needs the target again: the scenario file, or the model's name. */
	if (r.source_path && *r.source_path)
		owned_target = eng_xstrdup(r.source_path);
	else if (r.kind && strcmp(r.kind, "model") == 0 && r.name)
		owned_target = eng_xstrdup(r.name);
	wb->target = owned_target;
	return 0;
}

/* The first screen's status line: what the session shows and the key that
 * shows more (the footer's hints come back with the first key): a
 * violation first, then the raw-against-canonical story, else the count.
 * Fits 80 columns with the counts of a run under 100000 states. */
static void startup_msg(struct wb *wb)
{
	const store_run *r = &wb->ri;
	if (wb->live)
		wb_msg(wb, false, "live search: Enter opens a state to step from, r runs the whole search, "
				  "?: keys");
	else if (r->violations)
		wb_msg(wb, false, "run %lld: %llu states, %llu violation%s: v lists %s, ?: every key",
		       (long long)wb->run, (unsigned long long)wb->n_states,
		       (unsigned long long)r->violations, r->violations == 1 ? "" : "s",
		       r->violations == 1 ? "it" : "them");
	else if (r->raw_distinct && r->canon_distinct && r->raw_distinct != r->canon_distinct)
		wb_msg(wb, false, "%llu states told apart by heap bytes are %llu by canonical record: "
				  "c compares",
		       (unsigned long long)r->raw_distinct, (unsigned long long)r->canon_distinct);
	else
		wb_msg(wb, false, "run %lld: %llu states stored; Enter opens one, ?: every key",
		       (long long)wb->run, (unsigned long long)wb->n_states);
}

int wb_session_open(struct wb *wb, const char *target, const char *db, int64_t run,
		    const eng_opts *o, char *err, size_t errlen)
{
	pthread_mutex_init(&wb->mu, NULL);
	pthread_cond_init(&wb->cv, NULL);
	wb->opts = *o;
	wb->db_path = eng_xstrdup(db);
	wb->cur = ENG_NO_STATE;
	wb->viol_id = 0;
	wb->cmp_a = wb->cmp_b = ENG_NO_STATE;
	wb->replay_diverged = SIZE_MAX;
	int rc;
	if (target) {
		wb->live = true;
		wb->target = target;
		rc = open_live(wb, target, db, err, errlen);
	} else {
		rc = open_db(wb, db, run, err, errlen);
	}
	if (rc < 0)
		return -1;
	/* From here what the engine says on stderr must not reach the
	 * terminal, which the workbench is about to take (wb-loop.c). */
	wb_stderr_capture();
	wb_worker_start(wb);
	if (wb->live)
		wb_submit(wb, WB_J_INIT, 0, NULL, 0);
	else if (wb->n_states)
		wb->cur = 0;
	startup_msg(wb);
	return 0;
}

void wb_session_close(struct wb *wb)
{
	wb_worker_stop(wb);
	if (wb->live && wb->wst) {
		/* The worker is gone: the engine and the writer are ours. */
		const eng_stats *t = eng_search_stats(wb->search);
		if (store_run_end(wb->wst, end_status(t), t) < 0 ||
		    tui_run_record_identity(wb->wst, wb->run_live, wb->fe) < 0)
			fprintf(stderr, "cmc tui: storing the run in %s failed: %s\n", wb->db_path,
				store_error(wb->wst));
		store_close(wb->wst);
	}
	if (wb->rst)
		store_close(wb->rst);
	if (wb->compare) {
		store_compare_clear(wb->compare);
		free(wb->compare);
	}
	if (wb->search)
		eng_search_free(wb->search);
	if (wb->fe)
		wb->fe->ops->destroy(wb->fe);
	if (wb->st)
		store_close(wb->st);
	store_run_clear(&wb->ri);
	if (wb->replay_trace)
		eng_trace_free(wb->replay_trace);
	free(wb->rsteps);
	free(wb->describe);
	for (unsigned i = 0; i < wb->n_actions; i++)
		free(wb->actions[i]);
	free(wb->actions);
	free(wb->db_path);
	free(owned_target);
	owned_target = NULL;
	pthread_mutex_destroy(&wb->mu);
	pthread_cond_destroy(&wb->cv);
}

const struct wb_view *wb_view(enum wb_view_id v)
{
#define WB_VIEW_ENTRY_(id, name) [WB_V_##id] = &wb_view_##name,
	static const struct wb_view *const views[WB_V__COUNT] = {WB_VIEWS(WB_VIEW_ENTRY_)};
#undef WB_VIEW_ENTRY_
	CMC_ASSERT(v < WB_V__COUNT);
	return views[v];
}
