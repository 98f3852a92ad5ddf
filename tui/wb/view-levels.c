/*
 * view-levels.c — states by depth: the depths (levels) with their counts on
 * the left, the states of the selected level on the right (Tab or Right/Left
 * moves between the two).  A level's states are read page by page as the
 * cursor reaches them, so a level of a million states costs one page.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/util.h"
#include "wb.h"

#define PAGE 256

/* states[0..nstates) are the first states of level `level` in id order;
 * more == false once the store said there are no further ones. */
static struct {
	struct wb_list lv, st;
	bool right;
	uint64_t *counts;
	uint32_t maxdepth;
	uint32_t level;
	store_state *states;
	size_t nstates;
	bool more;
} V;

static void drop_states(void)
{
	store_states_free(V.states, V.nstates);
	V.states = NULL;
	V.nstates = 0;
	V.more = true;
}

void wb_levels_reset(void)
{
	drop_states();
	free(V.counts);
	V.counts = NULL;
	V.maxdepth = 0;
	V.level = 0;
	V.lv = V.st = (struct wb_list){0, 0, 0};
	V.right = false;
}

static void load_more(struct wb *wb)
{
	if (!V.more || V.level == 0)
		return;
	store_state *p = NULL;
	size_t n = 0;
	uint32_t after = V.nstates ? V.states[V.nstates - 1].id : ENG_NO_STATE;
	wb_lock(wb);
	int rc = store_states_page(wb->st, wb->run, STORE_BY_DEPTH, V.level, after, PAGE, &p, &n);
	wb_unlock(wb);
	if (rc != 0 || n < PAGE)
		V.more = false;
	if (n) {
		V.states = eng_xrealloc(V.states, (V.nstates + n) * sizeof *V.states);
		memcpy(V.states + V.nstates, p, n * sizeof *p);
		V.nstates += n;
	}
	free(p); /* its strings now belong to V.states */
}

static void levels_load(struct wb *wb)
{
	free(V.counts);
	V.counts = NULL;
	wb_lock(wb);
	store_depth_counts(wb->st, wb->run, &V.counts, &V.maxdepth);
	wb_unlock(wb);
	V.lv.n = V.maxdepth;
	uint32_t want = V.lv.n ? (uint32_t)V.lv.cur + 1 : 0;
	drop_states();
	V.level = want;
	load_more(wb);
	V.st.n = V.nstates;
}

static void levels_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.lv, body);
	if (V.lv.n && V.level != V.lv.cur + 1) {
		drop_states();
		V.level = (uint32_t)V.lv.cur + 1;
		V.st = (struct wb_list){0, 0, 0};
		load_more(wb);
	}
	if (V.right && V.st.cur + 1 >= V.nstates)
		load_more(wb);
	V.st.n = V.nstates;
	wb_list_clamp(&V.st, body);
	wb_row(w, 0, cols, A_BOLD, "%-6s %10s | %8s %8s  %-24s %s", "depth", "states", "state", "parent",
	       "operation", "status");
	if (V.lv.n == 0) {
		wb_row(w, 1, cols, A_NORMAL, "  no states yet");
		return;
	}
	WINDOW *sub = derwin(w, rows - 1, cols > 20 ? cols - 20 : 1, 1, 20);
	for (size_t i = V.lv.top, y = 1; i < V.lv.n && y < (size_t)rows; i++, y++) {
		int attr = i == V.lv.cur ? (V.right ? (int)A_BOLD : (int)A_REVERSE) : (int)A_NORMAL;
		char line[64];
		snprintf(line, sizeof line, "%-6zu %10llu |", i + 1, (unsigned long long)V.counts[i + 1]);
		wattrset(w, attr);
		mvwaddnstr(w, (int)y, 0, line, 19);
		wattrset(w, A_NORMAL);
	}
	if (sub) {
		int scols = getmaxx(sub);
		for (size_t i = V.st.top, y = 0; i < V.nstates && y + 1 < (size_t)rows; i++, y++) {
			store_state *s = &V.states[i];
			char lab[64] = "(initial)", par[16] = "-";
			if (s->label)
				wb_escape(lab, sizeof lab, s->label, strlen(s->label));
			if (s->parent != ENG_NO_STATE)
				snprintf(par, sizeof par, "%u", s->parent);
			int attr = wb_state_attr(wb, s->status, s->parent == ENG_NO_STATE,
						 V.right && i == V.st.cur);
			wb_row(sub, (int)y, scols, attr, "%c%7u %8s  %-24.24s %s", wb_state_mark(s->status),
			       s->id, par, lab, wb_status_name(s->status));
		}
		delwin(sub);
	}
}

static struct wb_list *levels_list(struct wb *wb) { return V.right ? &V.st : &V.lv; }

static void levels_key(struct wb *wb, int key)
{
	if (key == '\t')
		V.right = !V.right;
	else if (key == KEY_RIGHT || key == 'l')
		V.right = true;
	else if (key == KEY_LEFT || key == 'h')
		V.right = false;
	if (V.right && V.nstates == 0)
		V.right = false;
	wb->dirty = true;
}

static void levels_activate(struct wb *wb)
{
	if (!V.right) {
		if (V.nstates)
			V.right = true;
		return;
	}
	if (V.st.cur < V.nstates) {
		wb_goto_state(wb, V.states[V.st.cur].id);
		wb_go(wb, WB_V_STATE);
	}
}

/* This view's own keys (wb.h: struct wb_binding). */
static const struct wb_binding levels_keys[] = {
	WB_KEY('\t', "Tab", "switch between the levels and the states of a level", levels_key),
	WB_KEY(KEY_RIGHT, "Right l", "into the states of the level (levels)", levels_key),
	WB_KEY('l', NULL, NULL, levels_key),
	WB_KEY(KEY_LEFT, "Left h", "back to the levels (levels)", levels_key),
	WB_KEY('h', NULL, NULL, levels_key),
	{0},
};

const struct wb_view wb_view_levels = {
	.name = "states by depth",
	.hint = "Tab:levels/states Enter:open 1:list 3:tree",
	.load = levels_load,
	.draw = levels_draw,
	.list = levels_list,
	.activate = levels_activate,
	.enter = "levels: into the level's states; states: open the state",
	.keys = levels_keys,
};
