/*
 * view-compare.c — raw against canonical: every canonical state with its
 * raw variants (the states that the canonical record merges but the heap
 * bytes tell apart).  `m` marks a raw variant, `d` opens the hex view of
 * the two marked ones; Enter on a variant opens its state.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/util.h"
#include "cli/cmd.h"
#include "cli/storeargs.h"
#include "proc/proc.h"
#include "wb.h"

#define CMP_MAX_ROWS 100000

/* A row is a group header (variant == SIZE_MAX) or one raw variant. */
struct crow {
	size_t group, variant;
};

static struct {
	struct wb_list l;
	store_compare c;
	bool have;
	struct crow *rows;
	size_t n;
	uint32_t mark[2];
	int nmark;
	int64_t run;          /* the run compared */
	uint64_t states;      /* wb.n_states when it was asked for */
	bool asked;           /* a WB_J_COMPARE is under way */
	const char *kind;     /* what the canonical side counts: "canonical" or "heap-graph" */
} V = {.mark = {ENG_NO_STATE, ENG_NO_STATE}};

/* The comparison reads the whole run, so the worker computes it (see
 * WB_J_COMPARE); this view asks for it and takes the result when it is in. */
static void compare_load(struct wb *wb)
{
	store_compare *c = NULL;
	wb_lock(wb);
	if (wb->compare && wb->compare_run == wb->run) {
		c = wb->compare;
		wb->compare = NULL;
	}
	wb_unlock(wb);
	if (!c) {
		bool fresh = V.have && V.run == wb->run && V.states == wb->n_states;
		if (!fresh && !V.asked && !wb_busy(wb)) {
			V.states = wb->n_states;
			V.asked = wb_submit(wb, WB_J_COMPARE, 0, NULL, 0);
		}
		if (!V.asked || wb_busy(wb))
			return;
		V.asked = false; /* the job ended without a result */
		return;
	}
	V.asked = false;
	V.run = wb->run;
	/* The live run records its identity only when it ends: ask the engine. */
	const char *info = wb->live && wb->run == wb->run_live && wb->fe &&
				   strcmp(wb->fe->ops->kind, "process") == 0 ? proc_info(wb->fe) : NULL;
	char ib[64];
	V.kind = tui_identity_canon(info ? info : tui_run_identity(wb->st, wb->run, ib, sizeof ib));
	if (V.have)
		store_compare_clear(&V.c);
	V.c = *c;
	free(c);
	free(V.rows);
	V.rows = NULL;
	V.n = 0;
	V.have = true;
	size_t cap = 0;
	for (size_t g = 0; g < V.c.n_groups && V.n < CMP_MAX_ROWS; g++) {
		if (V.n + V.c.groups[g].n_raw + 1 > cap) {
			cap = (V.n + V.c.groups[g].n_raw + 1) * 2;
			V.rows = eng_xrealloc(V.rows, cap * sizeof *V.rows);
		}
		V.rows[V.n++] = (struct crow){g, SIZE_MAX};
		for (size_t k = 0; k < V.c.groups[g].n_raw; k++)
			V.rows[V.n++] = (struct crow){g, k};
	}
	V.l.n = V.n;
}

static void compare_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (!V.have || V.run != wb->run) {
		wb_row(w, 0, cols, A_NORMAL, "%s", V.asked ? "comparing raw against canonical states..."
				: wb_busy(wb) ? "the comparison waits for the engine (p pauses a search)"
				: "cannot compare this run");
		return;
	}
	wb_row(w, 0, cols, A_BOLD, "%llu states: %llu distinct raw, %llu distinct %s (merge x%.2f)",
	       (unsigned long long)V.c.states, (unsigned long long)V.c.raw_distinct,
	       (unsigned long long)V.c.canon_distinct, V.kind, V.c.merge_factor);
	char ma[16] = "-", mb[16] = "-";
	if (V.mark[0] != ENG_NO_STATE)
		snprintf(ma, sizeof ma, "%u", V.mark[0]);
	if (V.mark[1] != ENG_NO_STATE)
		snprintf(mb, sizeof mb, "%u", V.mark[1]);
	wb_row(w, 1, cols, A_NORMAL, "marked A=%s B=%s  (m marks a raw variant, d diffs A and B)", ma, mb);
	size_t body = rows > 2 ? (size_t)rows - 2 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 2; i < V.n && y < (size_t)rows; i++, y++) {
		struct crow *r = &V.rows[i];
		store_canon_group *g = &V.c.groups[r->group];
		char fp[16];
		int attr = i == V.l.cur ? (int)A_REVERSE : (int)A_NORMAL;
		if (r->variant == SIZE_MAX) {
			wb_row(w, (int)y, cols, attr | (int)A_BOLD, "%s %s  %zu state%s, %zu raw variant%s",
			       V.kind, wb_fp_short(g->canon, fp), g->n_states, tui_s(g->n_states), g->n_raw,
			       tui_s(g->n_raw));
		} else {
			uint32_t s = g->states[r->variant];
			bool marked = s == V.mark[0] || s == V.mark[1];
			wb_row(w, (int)y, cols, attr, "    %c raw %s  state %u", marked ? '*' : ' ',
			       wb_fp_short(g->raw[r->variant], fp), s);
		}
	}
}

static struct wb_list *compare_list(struct wb *wb) { return &V.l; }

static uint32_t selected_state(void)
{
	if (V.l.cur >= V.n || V.rows[V.l.cur].variant == SIZE_MAX)
		return ENG_NO_STATE;
	struct crow *r = &V.rows[V.l.cur];
	return V.c.groups[r->group].states[r->variant];
}

static void compare_key(struct wb *wb, int key)
{
	if (key == 'm') {
		uint32_t s = selected_state();
		if (s == ENG_NO_STATE) {
			wb_msg(wb, true, "select a raw variant row to mark");
			return;
		}
		V.mark[V.nmark] = s;
		V.nmark ^= 1;
		wb->dirty = true;
	} else if (key == 'd') {
		if (V.mark[0] == ENG_NO_STATE || V.mark[1] == ENG_NO_STATE) {
			wb_msg(wb, true, "mark two raw variants first (m)");
			return;
		}
		wb->cmp_a = V.mark[0];
		wb->cmp_b = V.mark[1];
		wb_go(wb, WB_V_HEX);
	}
}

static void compare_activate(struct wb *wb)
{
	uint32_t s = selected_state();
	if (s == ENG_NO_STATE && V.l.cur < V.n) {
		/* A canonical state: diff its first two raw variants. */
		store_canon_group *g = &V.c.groups[V.rows[V.l.cur].group];
		if (g->n_raw < 2) {
			wb_msg(wb, false, "this canonical state has a single raw variant");
			return;
		}
		V.mark[0] = wb->cmp_a = g->states[0];
		V.mark[1] = wb->cmp_b = g->states[1];
		wb_go(wb, WB_V_HEX);
		return;
	}
	if (s == ENG_NO_STATE)
		return;
	wb_goto_state(wb, s);
	wb_go(wb, WB_V_STATE);
}

/* This view's own keys (wb.h: struct wb_binding). */
static const struct wb_binding compare_keys[] = {
	WB_KEY('m', "m", "mark the selected raw variant for the hex diff (compare)", compare_key),
	WB_KEY('d', "d", "hex diff of the two marked raw variants (compare)", compare_key),
	{0},
};

const struct wb_view wb_view_compare = {
	.name = "raw vs canonical",
	.hint = "Enter:open m:mark d:diff",
	.load = compare_load,
	.draw = compare_draw,
	.list = compare_list,
	.activate = compare_activate,
	.enter = "a canonical row: diff its first two raw variants; a raw one: open it",
	.keys = compare_keys,
};
