/*
 * view-runs.c — the runs in the database, newest last, with their status
 * (an interrupted run is marked incomplete); Enter browses the selected one.
 */
#include <string.h>

#include "wb.h"

static struct {
	struct wb_list l;
	store_run *r;
	size_t n;
} V;

static void runs_load(struct wb *wb)
{
	store_runs_free(V.r, V.n);
	V.r = NULL;
	V.n = 0;
	wb_lock(wb);
	store_runs(wb->st, &V.r, &V.n);
	wb_unlock(wb);
	V.l.n = V.n;
}

static void runs_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	wb_row(w, 0, cols, A_BOLD, "%5s %-8s %-20s %-12s %10s %6s", "run", "kind", "name", "status",
	       "distinct", "depth");
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 1; i < V.n && y < (size_t)rows; i++, y++) {
		store_run *r = &V.r[i];
		char name[40];
		wb_escape(name, sizeof name, r->name ? r->name : "", r->name ? strlen(r->name) : 0);
		bool inc = strcmp(r->status, "interrupted") == 0 || strcmp(r->status, "error") == 0;
		wb_row(w, (int)y, cols, i == V.l.cur ? (int)A_REVERSE : (int)A_NORMAL,
		       "%5lld %-8.8s %-20.20s %-12s %10llu %6u%s%s", (long long)r->id,
		       r->kind ? r->kind : "", name, r->status, (unsigned long long)r->distinct, r->depth,
		       inc ? "  incomplete" : "", r->id == wb->run ? "  <- shown" : "");
	}
}

static struct wb_list *runs_list(struct wb *wb) { return &V.l; }

static void runs_activate(struct wb *wb)
{
	if (V.l.cur >= V.n)
		return;
	wb_select_run(wb, V.r[V.l.cur].id);
	wb_msg(wb, false, "browsing run %lld", (long long)wb->run);
	wb_go(wb, WB_V_LIST);
}

const struct wb_view wb_view_runs = {
	.name = "runs",
	.hint = "Enter:browse the run Esc:back",
	.load = runs_load,
	.draw = runs_draw,
	.list = runs_list,
	.activate = runs_activate,
};
