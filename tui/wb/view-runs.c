/*
 * view-runs.c — the runs in the database, newest last, with their status
 * (an interrupted run is marked incomplete); Enter browses the selected one.
 */
#include <string.h>

#include "wb-text.h"
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

/* The name column takes the room the others leave (at least 12); a path
 * too long for it loses the middle of its folders, never its file name,
 * so two scenarios of one folder do not look the same.  Left of the id,
 * ! marks a run that found a violation and * the run shown. */
static void runs_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	enum { FIXED = 5 + 1 + 8 + 1 + 1 + 12 + 1 + 10 + 1 + 6 + 12 };
	int nw = cols - FIXED < 12 ? 12 : cols - FIXED;
	if (nw > 200)
		nw = 200;
	wb_row(w, 0, cols, A_BOLD, "%5s %-8s %-*s %-12s %10s %6s", "run", "kind", nw, "name", "status",
	       "distinct", "depth");
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 1; i < V.n && y < (size_t)rows; i++, y++) {
		store_run *r = &V.r[i];
		char esc[512], name[256];
		wb_escape(esc, sizeof esc, r->name ? r->name : "", r->name ? strlen(r->name) : 0);
		wb_text_elide_path(name, sizeof name, esc, (size_t)nw);
		bool inc = strcmp(r->status, "interrupted") == 0 || strcmp(r->status, "error") == 0;
		int st = r->violations ? STORE_VIOLATION : STORE_OK;
		bool shown = r->id == wb->run;
		wb_row(w, (int)y, cols, wb_state_attr(wb, st, false, i == V.l.cur) | (shown ? (int)A_BOLD : 0),
		       "%c%c%3lld %-8.8s %-*s %-12s %10llu %6u%s", wb_state_mark(st), shown ? '*' : ' ',
		       (long long)r->id, r->kind ? r->kind : "", nw, name, r->status,
		       (unsigned long long)r->distinct, r->depth, inc ? "  incomplete" : "");
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
	.enter = "browse the selected run",
};
