/*
 * view-list.c — the run's states in discovery order.  State ids are dense
 * in discovery order, so row i is state i and only the visible page is read
 * from the store (one store_states_page per scroll), whatever the run's size.
 */
#include <stdlib.h>
#include <string.h>

#include "wb.h"

/* The page holds states page[0..npage) with ids from page_top on, read at
 * data generation page_gen; it is refetched when any of those move. */
static struct {
	struct wb_list l;
	store_state *page;
	size_t npage;
	size_t page_top, page_rows;
	uint64_t page_gen;
	bool valid;
	uint32_t last_cur;
} V = {.last_cur = ENG_NO_STATE};

static void drop_page(void)
{
	store_states_free(V.page, V.npage);
	V.page = NULL;
	V.npage = 0;
	V.valid = false;
}

static void list_load(struct wb *wb)
{
	V.l.n = wb->n_states;
	/* Follow the current state when it moved elsewhere (step by hand). */
	if (wb->cur != V.last_cur && wb->cur != ENG_NO_STATE && wb->cur < V.l.n)
		V.l.cur = wb->cur;
	V.last_cur = wb->cur;
	V.valid = false;
}

static void fetch(struct wb *wb, size_t rows)
{
	if (V.valid && V.page_top == V.l.top && V.page_rows == rows && V.page_gen == wb->data_gen)
		return;
	drop_page();
	if (V.l.n) {
		wb_lock(wb);
		store_states_page(wb->st, wb->run, STORE_BY_DISCOVERY, 0,
				  V.l.top == 0 ? ENG_NO_STATE : (uint32_t)(V.l.top - 1), rows, &V.page,
				  &V.npage);
		wb_unlock(wb);
	}
	V.page_top = V.l.top;
	V.page_rows = rows;
	V.page_gen = wb->data_gen;
	V.valid = true;
}

/* One line describing a state; shared shape with the other state lists. */
static void state_line(struct wb *wb, WINDOW *w, int y, int cols, const store_state *s, bool sel)
{
	char lab[64] = "(initial)", fp[16];
	if (s->label)
		wb_escape(lab, sizeof lab, s->label, strlen(s->label));
	eng_fp show = eng_fp_zero(s->canon_fp) ? s->fp : s->canon_fp;
	int attr = wb_state_attr(wb, s->status, s->parent == ENG_NO_STATE, sel);
	char parent[16] = "-";
	if (s->parent != ENG_NO_STATE)
		snprintf(parent, sizeof parent, "%u", s->parent);
	wb_row(w, y, cols, attr, "%c%7u %5u %8s  %-24.24s %-9s %s", wb_state_mark(s->status), s->id, s->depth,
	       parent, lab,
	       wb_status_name(s->status), wb_fp_short(show, fp));
}

static void list_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	V.l.n = wb->n_states;
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	wb_row(w, 0, cols, A_BOLD, "%8s %5s %8s  %-24s %-9s %s", "state", "depth", "parent",
	       "operation", "status", "fingerprint");
	if (V.l.n == 0) {
		wb_row(w, 1, cols, A_NORMAL, "  no states yet%s",
		       wb->live ? " (the target is starting; r runs a search, e steps)" : "");
		return;
	}
	fetch(wb, body);
	for (size_t i = 0; i < V.npage && i < body; i++)
		state_line(wb, w, (int)i + 1, cols, &V.page[i], V.page_top + i == V.l.cur);
}

static struct wb_list *list_list(struct wb *wb) { return &V.l; }

static void list_activate(struct wb *wb)
{
	if (V.l.n == 0)
		return;
	wb_goto_state(wb, (uint32_t)V.l.cur);
	wb_go(wb, WB_V_STATE);
}

const struct wb_view wb_view_list = {
	.name = "states by discovery",
	.hint = "Enter:open r:run v:violations /:jump 2:levels 3:tree",
	.hint_browse = "Enter:open v:violations /:jump 2:levels 3:tree u:runs",
	.load = list_load,
	.draw = list_draw,
	.list = list_list,
	.activate = list_activate,
	.enter = "open the selected state",
};
