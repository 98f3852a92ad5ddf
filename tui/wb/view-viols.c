/*
 * view-viols.c — the run's violations: property, message, where it holds
 * and the length of its counterexample.  Enter opens the counterexample in
 * the replay view.
 */
#include <stdio.h>
#include <string.h>

#include "wb.h"

static struct {
	struct wb_list l;
	store_violation *v;
	size_t n;
} V;

static void viols_load(struct wb *wb)
{
	store_violations_free(V.v, V.n);
	V.v = NULL;
	V.n = 0;
	wb_lock(wb);
	store_violations(wb->st, wb->run, &V.v, &V.n);
	wb_unlock(wb);
	V.l.n = V.n;
}

/* The list on top, one row per violation (its message cut to the row);
 * below it the selected violation whole, its message wrapped, so nothing
 * that matters is cut at 80 columns. */
static void viols_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	wb_row(w, 0, cols, A_BOLD, "%5s %-24s %7s %5s  %s", "id", "property", "state", "steps", "message");
	if (V.n == 0) {
		wb_row(w, 1, cols, A_NORMAL, "  no violation in this run%s",
		       wb_can_step(wb) ? " (yet: r searches)" : "");
		return;
	}
	char prop[256], msg[1024], whole[1400];
	const store_violation *sel = &V.v[V.l.cur < V.n ? V.l.cur : 0];
	wb_escape(prop, sizeof prop, sel->property ? sel->property : "", sel->property ? strlen(sel->property) : 0);
	wb_escape(msg, sizeof msg, sel->message ? sel->message : "", sel->message ? strlen(sel->message) : 0);
	snprintf(whole, sizeof whole, "%s: %s", prop, msg);
	/* The detail pane takes what the text needs, at most half the rows,
	 * and leaves the list at least one row. */
	int half = (rows - 2) / 2;
	int detail = wb_wrap_count(half > 1 ? half : 1, cols, "", whole);
	int list_rows = rows - 1 - (detail + 1);
	if (list_rows < 1) {
		list_rows = rows - 1;
		detail = 0;
	}
	wb_list_clamp(&V.l, (size_t)list_rows);
	for (size_t i = V.l.top, y = 1; i < V.n && y <= (size_t)list_rows; i++, y++) {
		store_violation *v = &V.v[i];
		char p[64], m[160], state[16] = "-";
		wb_escape(p, sizeof p, v->property ? v->property : "", v->property ? strlen(v->property) : 0);
		wb_escape(m, sizeof m, v->message ? v->message : "", v->message ? strlen(v->message) : 0);
		if (v->state != ENG_NO_STATE)
			snprintf(state, sizeof state, "%u", v->state);
		wb_row(w, (int)y, cols, wb_state_attr(wb, STORE_VIOLATION, false, i == V.l.cur),
		       "%c%4lld %-24.24s %7s %5zu  %s", WB_MARK_VIOLATION, (long long)v->id, p, state,
		       v->trace.len, m);
	}
	if (detail) {
		int y = rows - detail - 1;
		wb_row(w, y, cols, A_BOLD, "violation %lld%s", (long long)sel->id,
		       V.n > 1 ? " (the selected one)" : "");
		wb_wrap_rows(w, y + 1, detail, cols, wb_attr(wb, WB_C_BAD), "", whole);
	}
}

static struct wb_list *viols_list(struct wb *wb) { return &V.l; }

static void viols_activate(struct wb *wb)
{
	if (V.l.cur < V.n)
		wb_replay_open(wb, V.v[V.l.cur].id);
}

const struct wb_view wb_view_viols = {
	.name = "violations",
	.hint = "Enter:open the counterexample Esc:back",
	.load = viols_load,
	.draw = viols_draw,
	.list = viols_list,
	.activate = viols_activate,
	.enter = "open the counterexample in the replay view",
};
