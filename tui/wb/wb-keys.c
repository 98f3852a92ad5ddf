/*
 * wb-keys.c — every key the workbench answers, in one table (as htop's
 * Action_setBindings), and the actions that are not any one view's.  The
 * help view (`?`) is generated from this table, so a key that is not here
 * does not exist.
 */
#include <stdlib.h>
#include <string.h>

#include "wb.h"

#define CTRL(c) ((c) & 0x1f)
#define KEY_ESC 27

/* ---- movement over the current view's list ------------------------------- */

static void k_move(struct wb *wb, int key)
{
	const struct wb_view *v = wb_view(wb->view);
	struct wb_list *l = v->list ? v->list(wb) : NULL;
	if (!l || l->n == 0)
		return;
	int rows = wb->body ? getmaxy(wb->body) : 20;
	size_t page = rows > 2 ? (size_t)rows - 1 : 1;
	switch (key) {
	case KEY_UP: case 'k':
		if (l->cur > 0)
			l->cur--;
		break;
	case KEY_DOWN: case 'j':
		if (l->cur + 1 < l->n)
			l->cur++;
		break;
	case KEY_PPAGE: case CTRL('b'):
		l->cur = l->cur > page ? l->cur - page : 0;
		break;
	case KEY_NPAGE: case CTRL('f'): case ' ':
		l->cur = l->cur + page < l->n ? l->cur + page : l->n - 1;
		break;
	case KEY_HOME: case 'g':
		l->cur = 0;
		break;
	case KEY_END: case 'G':
		l->cur = l->n - 1;
		break;
	}
	wb->dirty = true;
}

static void k_activate(struct wb *wb, int key)
{
	const struct wb_view *v = wb_view(wb->view);
	if (v->activate)
		v->activate(wb);
}

/* ---- views ------------------------------------------------------------------ */

static void k_view(struct wb *wb, int key)
{
	static const struct { int key; enum wb_view_id v; } to[] = {
		{'1', WB_V_LIST}, {'2', WB_V_LEVELS}, {'3', WB_V_TREE}, {'s', WB_V_STATE},
		{'v', WB_V_VIOLS}, {'c', WB_V_COMPARE}, {'n', WB_V_GRAPH}, {'a', WB_V_ALLOC},
		{'u', WB_V_RUNS}, {'?', WB_V_HELP}, {KEY_F(1), WB_V_HELP},
	};
	for (size_t i = 0; i < sizeof to / sizeof to[0]; i++)
		if (to[i].key == key) {
			if ((to[i].v == WB_V_STATE || to[i].v == WB_V_GRAPH || to[i].v == WB_V_ALLOC) &&
			    wb->cur == ENG_NO_STATE) {
				wb_msg(wb, true, "no current state yet");
				return;
			}
			wb_go(wb, to[i].v);
			return;
		}
}

static void k_back(struct wb *wb, int key) { wb_back(wb); }

static void k_quit(struct wb *wb, int key) { wb->leaving = true; }

static void k_redraw(struct wb *wb, int key)
{
	clearok(curscr, TRUE);
	wb->dirty = true;
}

/* ---- states ------------------------------------------------------------------ */

static void k_prev_state(struct wb *wb, int key)
{
	if (wb->nhist == 0) {
		wb_msg(wb, false, "no earlier state in this session");
		return;
	}
	wb->cur = wb->hist[--wb->nhist];
	const struct wb_view *v = wb_view(wb->view);
	if (v->load)
		v->load(wb);
	wb_msg(wb, false, "back to state %u", wb->cur);
}

static void jump_done(struct wb *wb, const char *text)
{
	while (*text == ' ')
		text++;
	if (!*text)
		return;
	char *end;
	unsigned long id = strtoul(text, &end, 10);
	bool all_digits = *end == 0;
	if (all_digits && id < wb->n_states) {
		wb_goto_state(wb, (uint32_t)id);
		wb_go(wb, WB_V_STATE);
		return;
	}
	/* A fingerprint prefix of the deduplicating, raw or canonical
	 * fingerprint (the live engine's visited set first, then the store). */
	size_t plen = strlen(text);
	for (size_t i = 0; i < plen; i++)
		if (!strchr("0123456789abcdefABCDEF", text[i]) || plen > 32) {
			wb_msg(wb, true, "/%.40s: expected a state id below %llu or a fingerprint prefix (hex)",
			       text, (unsigned long long)wb->n_states);
			return;
		}
	char want[33];
	for (size_t i = 0; i <= plen; i++)
		want[i] = (char)(text[i] >= 'A' && text[i] <= 'F' ? text[i] - 'A' + 'a' : text[i]);
	/* On the worker: a pass over every stored state. */
	if (wb_submit(wb, WB_J_FIND, 0, want, 0))
		wb_msg(wb, false, "looking for fingerprint %s...", want);
}

static void k_jump(struct wb *wb, int key) { wb_prompt(wb, "state id or fingerprint prefix: ", jump_done); }

/* ---- the engine ---------------------------------------------------------------- */

static bool need_live(struct wb *wb, const char *what)
{
	if (wb_can_step(wb))
		return true;
	if (wb->live)
		wb_msg(wb, true, "%s works on this session's run only (u: pick it)", what);
	else
		wb_msg(wb, true, "%s needs a live target: open a scenario or model, not a database", what);
	return false;
}

static void k_run(struct wb *wb, int key)
{
	if (!need_live(wb, "searching"))
		return;
	if (key == 'R') {
		if (wb->cur == ENG_NO_STATE)
			return;
		if (wb_submit(wb, WB_J_RUN_FROM, wb->cur, NULL, 0))
			wb_msg(wb, false, "searching from state %u... (p pauses)", wb->cur);
	} else if (wb_submit(wb, WB_J_RUN, 0, NULL, 0)) {
		wb_msg(wb, false, "searching... (p pauses, r resumes)");
	}
}

static void k_pause(struct wb *wb, int key) { wb_pause(wb); }

static void k_order(struct wb *wb, int key)
{
	if (!need_live(wb, "changing the search order"))
		return;
	if (wb_submit(wb, WB_J_REORDER, 0, NULL, 0))
		wb_msg(wb, false, "ending this run; a new one will search in the other order...");
}

static void k_simulate(struct wb *wb, int key)
{
	if (!need_live(wb, "simulation"))
		return;
	if (wb_submit(wb, WB_J_SIMULATE, 0, NULL, 0))
		wb_msg(wb, false, "simulating 100 random walks of up to 100 steps...");
}

static void k_expand(struct wb *wb, int key)
{
	if (!need_live(wb, "stepping by hand") || wb->cur == ENG_NO_STATE)
		return;
	wb_submit(wb, WB_J_EXPAND, wb->cur, NULL, 0);
}

/* View-specific actions live with their views. */
void wb_tree_key(struct wb *wb, int key);
void wb_levels_key(struct wb *wb, int key);
void wb_replay_key(struct wb *wb, int key);
void wb_compare_key(struct wb *wb, int key);
void wb_hex_key(struct wb *wb, int key);
void wb_render_key(struct wb *wb, int key);

#define V(x) WB_VBIT(WB_V_##x)

const struct wb_binding wb_bindings[] = {
	/* view-specific first: they take precedence */
	{KEY_RIGHT, V(TREE), "Right l", "expand the node (tree)", wb_tree_key},
	{'l', V(TREE), NULL, NULL, wb_tree_key},
	{KEY_LEFT, V(TREE), "Left h", "collapse the node, or go to its parent (tree)", wb_tree_key},
	{'h', V(TREE), NULL, NULL, wb_tree_key},
	{'\t', V(LEVELS), "Tab", "switch between the levels and the states of a level", wb_levels_key},
	{KEY_RIGHT, V(LEVELS), "Right l", "into the states of the level (levels)", wb_levels_key},
	{'l', V(LEVELS), NULL, NULL, wb_levels_key},
	{KEY_LEFT, V(LEVELS), "Left h", "back to the levels (levels)", wb_levels_key},
	{'h', V(LEVELS), NULL, NULL, wb_levels_key},
	{KEY_RIGHT, V(REPLAY), "Right l", "re-execute one more step on the live target (replay)", wb_replay_key},
	{'l', V(REPLAY), NULL, NULL, wb_replay_key},
	{KEY_LEFT, V(REPLAY), "Left h", "step back (replay)", wb_replay_key},
	{'h', V(REPLAY), NULL, NULL, wb_replay_key},
	{'x', V(REPLAY), "x", "re-execute the whole counterexample (replay)", wb_replay_key},
	{'m', V(COMPARE), "m", "mark the selected raw variant for the hex diff (compare)", wb_compare_key},
	{'d', V(COMPARE), "d", "hex diff of the two marked raw variants (compare)", wb_compare_key},
	{'n', V(HEX), "n", "next differing row (hex)", wb_hex_key},
	{'N', V(HEX), "N", "previous differing row (hex)", wb_hex_key},
	{'w', 0, "w", "render this view's graph to SVG through Graphviz", wb_render_key},

	/* everywhere */
	{'?', 0, "? F1", "this list of keys", k_view},
	{KEY_F(1), 0, NULL, NULL, k_view},
	{'q', 0, "q", "quit (a running search is stopped and stored)", k_quit},
	{KEY_ESC, 0, "Esc <", "back to the previous view", k_back},
	{'<', 0, NULL, NULL, k_back},
	{KEY_UP, 0, "Up k", "move up", k_move},
	{'k', 0, NULL, NULL, k_move},
	{KEY_DOWN, 0, "Down j", "move down", k_move},
	{'j', 0, NULL, NULL, k_move},
	{KEY_PPAGE, 0, "PgUp ^B", "page up", k_move},
	{CTRL('b'), 0, NULL, NULL, k_move},
	{KEY_NPAGE, 0, "PgDn ^F Space", "page down", k_move},
	{CTRL('f'), 0, NULL, NULL, k_move},
	{' ', 0, NULL, NULL, k_move},
	{KEY_HOME, 0, "Home g", "first row", k_move},
	{'g', 0, NULL, NULL, k_move},
	{KEY_END, 0, "End G", "last row", k_move},
	{'G', 0, NULL, NULL, k_move},
	{'\n', 0, "Enter", "open the selected row (in a state: take the operation)", k_activate},
	{'\r', 0, NULL, NULL, k_activate},
	{KEY_ENTER, 0, NULL, NULL, k_activate},
	{KEY_RIGHT, 0, NULL, NULL, k_activate},
	{'1', 0, "1", "states in discovery order", k_view},
	{'2', 0, "2", "states by BFS level", k_view},
	{'3', 0, "3", "the shortest-trace tree", k_view},
	{'s', 0, "s", "the current state whole (operations to step by hand)", k_view},
	{'v', 0, "v", "violations", k_view},
	{'c', 0, "c", "raw against canonical states", k_view},
	{'n', 0, "n", "the neighbourhood graph of the current state", k_view},
	{'a', 0, "a", "allocator invariants and chunk map of the current state", k_view},
	{'u', 0, "u", "runs in the database (Enter picks one)", k_view},
	{'/', 0, "/", "jump to a state by id or fingerprint prefix", k_jump},
	{'b', 0, "b", "back to the previously visited state", k_prev_state},
	{'e', 0, "e", "expand the current state by hand (all operations)", k_expand},
	{'r', 0, "r", "run the search (resume it when paused)", k_run},
	{'R', 0, "R", "run the search from the current state", k_run},
	{'p', 0, "p", "pause the running search", k_pause},
	{'S', 0, "S", "simulate: 100 random walks from the initial states", k_simulate},
	{'o', 0, "o", "switch BFS/DFS: ends this run, begins a new one in the other order", k_order},
	{CTRL('l'), 0, "^L", "redraw the screen", k_redraw},
	{0, 0, NULL, NULL, NULL},
};

const struct wb_binding *wb_binding_find(int key, enum wb_view_id v)
{
	for (const struct wb_binding *b = wb_bindings; b->fn; b++)
		if (b->key == key && (b->views == 0 || (b->views & WB_VBIT(v))))
			return b;
	return NULL;
}
