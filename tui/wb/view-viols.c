/*
 * view-viols.c — the run's violations: property, message, where it holds
 * and the length of its counterexample.  Enter opens the counterexample in
 * the replay view.
 */
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

static void viols_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	wb_row(w, 0, cols, A_BOLD, "%5s %-24s %7s %5s  %s", "id", "property", "state", "steps", "message");
	if (V.n == 0) {
		wb_row(w, 1, cols, A_NORMAL, "  no violation in this run%s",
		       wb_can_step(wb) ? " (yet: r searches)" : "");
		return;
	}
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 1; i < V.n && y < (size_t)rows; i++, y++) {
		store_violation *v = &V.v[i];
		char prop[64], msg[160], state[16] = "-";
		wb_escape(prop, sizeof prop, v->property ? v->property : "", v->property ? strlen(v->property) : 0);
		wb_escape(msg, sizeof msg, v->message ? v->message : "", v->message ? strlen(v->message) : 0);
		if (v->state != ENG_NO_STATE)
			snprintf(state, sizeof state, "%u", v->state);
		wb_row(w, (int)y, cols, i == V.l.cur ? (int)A_REVERSE : wb_attr(wb, WB_C_BAD),
		       "%5lld %-24.24s %7s %5zu  %s", (long long)v->id, prop, state, v->trace.len, msg);
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
};
