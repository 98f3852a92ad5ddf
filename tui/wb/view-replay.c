/*
 * view-replay.c — a counterexample and its replay session: the trace as
 * stored, step by step; Right re-executes one more step on the live target
 * (the prefix is replayed through eng_replay on the worker), which judges
 * every property on the way and compares the fingerprint reached with the
 * stored one; Left steps back.  Each step says matched, DIFFERS, NOT TAKEN
 * or FAULT and what fails there; the line above says what the replay came
 * to, in the words of `cmc replay` (tui_replay_verdict).
 *
 * A violation whose trace the run could not rebuild (the target did not
 * repeat itself when the engine re-ran the path: a nondeterministic
 * target) is stored without one.  The view says so, and shows instead the
 * stored path to the violating transition's source and the transition
 * itself (the states are in the store even when the trace is not), so
 * that replaying it shows where the target went another way.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "engine/util.h"
#include "wb.h"

static struct {
	struct wb_list l;
	store_violation v;
	bool have;
	size_t at;          /* steps re-executed so far (the replay position) */
	bool lost;          /* the run could not rebuild the trace */
	bool from_store;    /* ... and v.trace is the stored path instead */
} V;

/* No trace (the engine's was NULL: no steps and no initial fingerprint):
 * the stored path to the violating transition's source, then the
 * transition.  True when v.trace now holds it. */
static bool trace_from_store(struct wb *wb)
{
	if (V.v.source == ENG_NO_STATE || !V.v.label)
		return false;
	store_trace t;
	store_state to;
	wb_lock(wb);
	int rc = store_trace_to(wb->st, V.v.run, V.v.source, &t);
	int trc = rc == 0 && V.v.target != ENG_NO_STATE ? store_state_get(wb->st, V.v.run, V.v.target, &to)
							 : 1;
	wb_unlock(wb);
	if (rc != 0)
		return false;
	t.labels = eng_xrealloc(t.labels, (t.len + 1) * sizeof *t.labels);
	t.fps = eng_xrealloc(t.fps, (t.len + 1) * sizeof *t.fps);
	t.states = eng_xrealloc(t.states, (t.len + 2) * sizeof *t.states);
	t.labels[t.len] = eng_xstrdup(V.v.label);
	t.fps[t.len] = trc == 0 ? to.fp : (eng_fp){0, 0};
	t.states[t.len + 1] = trc == 0 ? V.v.target : ENG_NO_STATE;
	t.len++;
	if (trc == 0)
		store_state_clear(&to);
	store_trace_clear(&V.v.trace);
	V.v.trace = t;
	return true;
}

void wb_replay_open(struct wb *wb, int64_t id)
{
	if (wb_busy(wb)) {
		wb_msg(wb, true, "busy: the engine is working (p pauses a search)");
		return;
	}
	if (V.have)
		store_violation_clear(&V.v);
	V.have = false;
	wb_lock(wb);
	int rc = store_violation_get(wb->st, id, &V.v);
	wb_unlock(wb);
	if (rc != 0) {
		wb_msg(wb, true, "violation %lld is not stored", (long long)id);
		return;
	}
	V.have = true;
	V.at = 0;
	V.lost = V.v.trace.len == 0 && eng_fp_zero(V.v.trace.init_fp);
	V.from_store = V.lost && trace_from_store(wb);
	V.l = (struct wb_list){V.v.trace.len + 1, 0, 0};
	/* The worker replays a copy it owns; fingerprints as stored. */
	eng_trace *t = eng_xcalloc(1, sizeof *t);
	t->len = V.v.trace.len;
	t->labels = eng_xcalloc(t->len + 1, sizeof *t->labels);
	t->fps = eng_xcalloc(t->len + 1, sizeof *t->fps);
	for (size_t i = 0; i < t->len; i++) {
		t->labels[i] = eng_xstrdup(V.v.trace.labels[i] ? V.v.trace.labels[i] : "");
		t->fps[i] = V.v.trace.fps ? V.v.trace.fps[i] : (eng_fp){0, 0};
	}
	t->init_fp = V.v.trace.init_fp;
	wb_lock(wb);
	snprintf(wb->replay_expect, sizeof wb->replay_expect, "%s", V.v.property ? V.v.property : "");
	if (wb->replay_trace)
		eng_trace_free(wb->replay_trace);
	free(wb->rsteps);
	wb->replay_trace = t;
	wb->rsteps = eng_xcalloc(t->len + 1, sizeof *wb->rsteps);
	wb->replay_diverged = SIZE_MAX;
	wb->replay_why[0] = 0;
	wb_unlock(wb);
	wb->viol_id = id;
	wb_go(wb, WB_V_REPLAY);
}

static void replay_to(struct wb *wb, size_t steps)
{
	if (V.lost && !V.from_store) {
		wb_msg(wb, true, "nothing to replay: the run kept no trace for this violation");
		return;
	}
	if (wb_submit(wb, WB_J_REPLAY, 0, NULL, steps)) {
		V.at = steps;
		V.l.cur = steps;
		wb_msg(wb, false, "re-executing %zu step%s on the live target...", steps, tui_s(steps));
	}
}

static void replay_key(struct wb *wb, int key)
{
	if (!V.have)
		return;
	if (key == 'x') {
		replay_to(wb, V.v.trace.len);
	} else if (key == KEY_RIGHT || key == 'l') {
		if (V.at < V.v.trace.len)
			replay_to(wb, V.at + 1);
		else
			wb_msg(wb, false, "at the end of the counterexample (%zu steps)", V.v.trace.len);
	} else if (key == KEY_LEFT || key == 'h') {
		if (V.at > 0)
			replay_to(wb, V.at - 1);
	}
}

static void replay_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (!V.have) {
		wb_row(w, 0, cols, A_NORMAL, "no counterexample open (v lists the violations)");
		return;
	}
	char prop[256], msg[1024], head[1400];
	wb_escape(prop, sizeof prop, V.v.property ? V.v.property : "", V.v.property ? strlen(V.v.property) : 0);
	wb_escape(msg, sizeof msg, V.v.message ? V.v.message : "", V.v.message ? strlen(V.v.message) : 0);
	snprintf(head, sizeof head, "violation %lld: %s %s", (long long)V.v.id, prop, msg);
	/* The violation and the verdict wrapped, a quarter and a third of
	 * the rows at most: the steps keep the rest. */
	int quarter = rows / 4 > 1 ? rows / 4 : 1, third = rows / 3 > 1 ? rows / 3 : 1;
	int y = wb_wrap_rows(w, 0, quarter, cols, wb_attr(wb, WB_C_BAD), "", head);
	if (V.lost) {
		/* Said first, whatever a replay says later; each line fits 80
		 * columns. */
		wb_row(w, y++, cols, wb_attr(wb, WB_C_BAD), "%s",
		       "NOT REBUILT: the target did not repeat itself when the run re-ran this trace.");
		if (!V.from_store) {
			wb_row(w, y++, cols, A_NORMAL, "%s",
			       "No stored path leads to the violation: nothing to replay.  Make the target");
			wb_row(w, y, cols, A_NORMAL, "%s",
			       "deterministic (no clock, random numbers, files outside its cwd), check again.");
			return;
		}
		wb_row(w, y++, cols, A_NORMAL, "%s",
		       "Below, the path as stored: x replays it and shows where the target differs.");
	}
	size_t div;
	char why[sizeof wb->replay_why];
	wb_lock(wb);
	div = wb->replay_diverged;
	int code = wb->replay_code;
	memcpy(why, wb->replay_why, sizeof why);
	bool running = wb->job == WB_J_REPLAY;
	wb_unlock(wb);
	/* The verdict when it says something a step's row cannot: a violation
	 * reproduced, or a replay that did not reproduce. */
	bool say = !running && why[0] && code != TUI_EXIT_OK;
	char verdict[sizeof why + 64];
	snprintf(verdict, sizeof verdict, "replayed %zu of %zu steps%s%s%s", V.at, V.v.trace.len,
		 running ? " (running)" : "", say ? " - " : "", say ? why : "");
	y += wb_wrap_rows(w, y, third, cols,
			  say && code != TUI_EXIT_VIOLATION ? (int)wb_attr(wb, WB_C_BAD) : (int)A_NORMAL, "",
			  verdict);
	int top = y + 1; /* the first step's row */
	wb_row(w, top - 1, cols, A_BOLD, "%4s %-20s %-12s %-12s %s", "step", "operation", "stored fp",
	       "replayed", "reply");
	size_t body = rows > top ? (size_t)(rows - top) : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = (size_t)top; i < V.l.n && y < (size_t)rows; i++, y++) {
		char lab[64] = "(initial state)", sfp[16] = "-", gfp[16] = "", res[48] = "";
		struct wb_rstep r = {0};
		if (i > 0) {
			const char *l = V.v.trace.labels[i - 1] ? V.v.trace.labels[i - 1] : "";
			wb_escape(lab, sizeof lab, l, strlen(l));
			if (V.v.trace.fps)
				wb_fp_short(V.v.trace.fps[i - 1], sfp);
		} else {
			wb_fp_short(V.v.trace.init_fp, sfp);
		}
		wb_lock(wb);
		if (wb->rsteps)
			r = wb->rsteps[i];
		wb_unlock(wb);
		int attr = i == V.l.cur ? (int)A_REVERSE : i == 0 ? wb_attr(wb, WB_C_INIT) : (int)A_NORMAL;
		char mark = ' ';
		if (i > 0 && i <= V.at && !running) {
			if (r.done && r.fault) {
				snprintf(res, sizeof res, "FAULT");
				attr |= wb_attr(wb, WB_C_FAULT);
				mark = WB_MARK_FAULT;
			} else if (r.done && (r.outcome == ENG_STEP_MATCHED ||
					      r.outcome == ENG_STEP_UNRECORDED)) {
				snprintf(res, sizeof res, "%s", r.outcome == ENG_STEP_MATCHED ? "match" : "taken");
			} else if (r.done && r.outcome == ENG_STEP_DIVERGED) {
				wb_fp_short(r.got, gfp);
				snprintf(res, sizeof res, "DIFFERS %s", gfp);
				attr |= wb_attr(wb, WB_C_BAD);
			} else if (r.done || (div != SIZE_MAX && i >= div)) {
				snprintf(res, sizeof res, "NOT TAKEN");
				attr |= wb_attr(wb, WB_C_BAD);
			}
		}
		/* The property that fails here, in brackets, before what the
		 * target replied. */
		bool v = i <= V.at && !running && r.done && r.property[0];
		char prop[sizeof r.property + 4] = "";
		if (v) {
			attr |= wb_attr(wb, WB_C_BAD);
			snprintf(prop, sizeof prop, "[%s] ", r.property);
			mark = WB_MARK_VIOLATION;
		}
		wb_row(w, (int)y, cols, attr, "%c%3zu %-20.20s %-12s %-12s %s%s", mark, i, lab, sfp, res, prop,
		       i > 0 && i <= V.at && !running ? r.reply : "");
	}
}

static struct wb_list *replay_list(struct wb *wb) { return &V.l; }

static void replay_activate(struct wb *wb)
{
	/* Go to the stored state of the selected step, when the trace knows it. */
	if (!V.have || V.l.cur >= V.l.n || !V.v.trace.states)
		return;
	uint32_t s = V.v.trace.states[V.l.cur];
	if (s == ENG_NO_STATE) {
		wb_msg(wb, true, "this step's state is not stored");
		return;
	}
	wb_goto_state(wb, s);
	wb_go(wb, WB_V_STATE);
}

/* This view's own keys (wb.h: struct wb_binding). */
static const struct wb_binding replay_keys[] = {
	WB_KEY(KEY_RIGHT, "Right l", "re-execute one more step on the live target (replay)", replay_key),
	WB_KEY('l', NULL, NULL, replay_key),
	WB_KEY(KEY_LEFT, "Left h", "step back (replay)", replay_key),
	WB_KEY('h', NULL, NULL, replay_key),
	WB_KEY('x', "x", "re-execute the whole counterexample (replay)", replay_key),
	{0},
};

const struct wb_view wb_view_replay = {
	.name = "counterexample",
	.hint = "Right/l:replay a step x:all Left/h:back Enter:state",
	.draw = replay_draw,
	.list = replay_list,
	.activate = replay_activate,
	.enter = "open the stored state of the selected step",
	.keys = replay_keys,
};
