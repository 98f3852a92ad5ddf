/*
 * view-tree.c — the shortest-trace tree: each state under the state it was
 * first reached from, by the edge that discovered it.  Nodes open and close
 * (Right/Left); only opened nodes' children are read from the store.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/util.h"
#include "wb.h"

#define TREE_MAX_CHILDREN 4096

/* rows[0..n) in display order; a row's children directly follow it with
 * indent + 1 when `open`. */
struct trow {
	uint32_t id;
	unsigned indent;
	bool open;
	int status;
	char label[48];
};

static struct {
	struct wb_list l;
	struct trow *rows;
	size_t n, cap;
	bool loaded;
	uint64_t states;      /* wb.n_states when loaded */
} V;

void wb_tree_reset(void)
{
	free(V.rows);
	V.rows = NULL;
	V.n = V.cap = 0;
	V.loaded = false;
	V.l = (struct wb_list){0, 0, 0};
}

static void insert_rows(size_t at, const struct trow *r, size_t k)
{
	if (V.n + k > V.cap) {
		V.cap = (V.n + k) * 2;
		V.rows = eng_xrealloc(V.rows, V.cap * sizeof *V.rows);
	}
	memmove(V.rows + at + k, V.rows + at, (V.n - at) * sizeof *V.rows);
	memcpy(V.rows + at, r, k * sizeof *r);
	V.n += k;
	V.l.n = V.n;
}

static void tree_load(struct wb *wb)
{
	/* States stepped or searched since: read the tree afresh, once the
	 * engine is idle (not on every progress tick of a search). */
	if (V.loaded && V.states != wb->n_states && !wb_busy(wb))
		wb_tree_reset();
	if (V.loaded)
		return;
	V.loaded = true;
	V.states = wb->n_states;
	store_state *s = NULL;
	size_t n = 0;
	wb_lock(wb);
	store_states_page(wb->st, wb->run, STORE_BY_DEPTH, 1, ENG_NO_STATE, TREE_MAX_CHILDREN, &s, &n);
	wb_unlock(wb);
	struct trow *r = eng_xcalloc(n + 1, sizeof *r);
	for (size_t i = 0; i < n; i++) {
		r[i].id = s[i].id;
		r[i].status = s[i].status;
		snprintf(r[i].label, sizeof r[i].label, "(initial)");
	}
	insert_rows(0, r, n);
	free(r);
	store_states_free(s, n);
}

static void open_row(struct wb *wb, size_t i)
{
	if (V.rows[i].open)
		return;
	store_edge *e = NULL;
	size_t ne = 0;
	wb_lock(wb);
	store_successors(wb->st, wb->run, V.rows[i].id, &e, &ne);
	wb_unlock(wb);
	struct trow *r = eng_xcalloc(ne + 1, sizeof *r);
	size_t k = 0;
	for (size_t j = 0; j < ne && k < TREE_MAX_CHILDREN; j++) {
		if (!e[j].new_state)
			continue;
		r[k].id = e[j].to;
		r[k].indent = V.rows[i].indent + 1;
		wb_escape(r[k].label, sizeof r[k].label, e[j].label ? e[j].label : "",
			  e[j].label ? strlen(e[j].label) : 0);
		k++;
	}
	/* Each child's status, so a violation shows where the tree reaches it. */
	wb_lock(wb);
	for (size_t j = 0; j < k; j++) {
		store_state s;
		if (store_state_get(wb->st, wb->run, r[j].id, &s) == 0) {
			r[j].status = s.status;
			store_state_clear(&s);
		}
	}
	wb_unlock(wb);
	store_edges_free(e, ne);
	V.rows[i].open = true;
	insert_rows(i + 1, r, k);
	free(r);
	if (k == 0)
		wb_msg(wb, false, "state %u discovered no state%s", V.rows[i].id,
		       wb_can_step(wb) ? " (e expands it by hand)" : "");
}

static void close_row(size_t i)
{
	size_t j = i + 1;
	while (j < V.n && V.rows[j].indent > V.rows[i].indent)
		j++;
	memmove(V.rows + i + 1, V.rows + j, (V.n - j) * sizeof *V.rows);
	V.n -= j - (i + 1);
	V.rows[i].open = false;
	V.l.n = V.n;
}

static void tree_key(struct wb *wb, int key)
{
	if (V.l.cur >= V.n)
		return;
	size_t i = V.l.cur;
	if (key == KEY_RIGHT || key == 'l') {
		open_row(wb, i);
	} else if (V.rows[i].open) {
		close_row(i);
	} else { /* to the parent row */
		while (i > 0 && V.rows[i - 1].indent >= V.rows[V.l.cur].indent)
			i--;
		if (i > 0)
			V.l.cur = i - 1;
	}
	wb->dirty = true;
}

static void tree_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (!V.loaded)
		tree_load(wb);
	wb_list_clamp(&V.l, (size_t)rows);
	if (V.n == 0) {
		wb_row(w, 0, cols, A_NORMAL, "  no states yet");
		return;
	}
	for (size_t i = V.l.top, y = 0; i < V.n && y < (size_t)rows; i++, y++) {
		struct trow *r = &V.rows[i];
		char ind[64];
		size_t k = r->indent * 2 < sizeof ind - 1 ? r->indent * 2 : sizeof ind - 1;
		memset(ind, ' ', k);
		ind[k] = 0;
		int attr = wb_state_attr(wb, r->status, r->indent == 0, i == V.l.cur);
		wb_row(w, (int)y, cols, attr, "%s%s%c%u %s", ind, r->open ? "-" : "+", wb_state_mark(r->status),
		       r->id, r->label);
	}
}

static struct wb_list *tree_list(struct wb *wb) { return &V.l; }

static void tree_activate(struct wb *wb)
{
	if (V.l.cur < V.n) {
		wb_goto_state(wb, V.rows[V.l.cur].id);
		wb_go(wb, WB_V_STATE);
	}
}

/* This view's own keys (wb.h: struct wb_binding). */
static const struct wb_binding tree_keys[] = {
	WB_KEY(KEY_RIGHT, "Right l", "expand the node (tree)", tree_key),
	WB_KEY('l', NULL, NULL, tree_key),
	WB_KEY(KEY_LEFT, "Left h", "collapse the node, or go to its parent (tree)", tree_key),
	WB_KEY('h', NULL, NULL, tree_key),
	{0},
};

const struct wb_view wb_view_tree = {
	.name = "shortest-trace tree",
	.hint = "Right:open Left:close Enter:state 1:list 2:levels",
	.load = tree_load,
	.draw = tree_draw,
	.list = tree_list,
	.activate = tree_activate,
	.enter = "open the selected state",
	.keys = tree_keys,
};
