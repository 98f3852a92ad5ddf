/*
 * wb-keys.c — the keys common to every view, in one table (as htop's
 * Action_setBindings), and their actions; each view declares its own keys
 * in its file (struct wb_view.keys).  wb_keys() joins them in one list
 * that both the key lookup and the help view (`?`) read, so a key that is
 * not in a table does not exist and the help cannot drift from it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/check.h"
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
	CMC_ASSERT_INTERNAL(wb_list_is_valid(l, 0));
	switch (key) {
	case KEY_UP: case 'k': wb_list_move(l, WB_LIST_UP, page); break;
	case KEY_DOWN: case 'j': wb_list_move(l, WB_LIST_DOWN, page); break;
	case KEY_PPAGE: case CTRL('b'): wb_list_move(l, WB_LIST_PAGE_UP, page); break;
	case KEY_NPAGE: case CTRL('f'): case ' ': wb_list_move(l, WB_LIST_PAGE_DOWN, page); break;
	case KEY_HOME: case 'g': wb_list_move(l, WB_LIST_FIRST, page); break;
	case KEY_END: case 'G': wb_list_move(l, WB_LIST_LAST, page); break;
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
			if (to[i].v == WB_V_HELP && wb->view != WB_V_HELP)
				wb_help_reset();
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
			wb_msg(wb, false, "a new run, searching from state %u... (p pauses)", wb->cur);
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

/* The common keys; a view's own (struct wb_view.keys) come before them. */
static const struct wb_binding common_keys[] = {
	WB_KEY('?', "? F1", "this list of keys", k_view),
	WB_KEY(KEY_F(1), NULL, NULL, k_view),
	WB_KEY('q', "q", "quit (a running search is stopped and stored)", k_quit),
	WB_KEY(KEY_ESC, "Esc <", "back to the previous view", k_back),
	WB_KEY('<', NULL, NULL, k_back),
	/* one row of the help for all the moves */
	WB_KEY(KEY_UP, "Up Down k j", "move; PgUp PgDn (^B ^F Space) a page; Home End (g G) the ends",
	       k_move),
	WB_KEY('k', NULL, NULL, k_move),
	WB_KEY(KEY_DOWN, NULL, NULL, k_move),
	WB_KEY('j', NULL, NULL, k_move),
	WB_KEY(KEY_PPAGE, NULL, NULL, k_move),
	WB_KEY(CTRL('b'), NULL, NULL, k_move),
	WB_KEY(KEY_NPAGE, NULL, NULL, k_move),
	WB_KEY(CTRL('f'), NULL, NULL, k_move),
	WB_KEY(' ', NULL, NULL, k_move),
	WB_KEY(KEY_HOME, NULL, NULL, k_move),
	WB_KEY('g', NULL, NULL, k_move),
	WB_KEY(KEY_END, NULL, NULL, k_move),
	WB_KEY('G', NULL, NULL, k_move),
	WB_KEY('\n', "Enter", "open the selected row (this view's keys say what it does)", k_activate),
	WB_KEY('\r', NULL, NULL, k_activate),
	WB_KEY(KEY_ENTER, NULL, NULL, k_activate),
	WB_KEY(KEY_RIGHT, NULL, NULL, k_activate),
	WB_KEY('1', "1", "states in discovery order", k_view),
	WB_KEY('2', "2", "states by depth (their BFS level, or a path's length by hand)", k_view),
	WB_KEY('3', "3", "the shortest-trace tree", k_view),
	WB_KEY('s', "s", "the current state whole (operations to step by hand)", k_view),
	WB_KEY('v', "v", "violations", k_view),
	WB_KEY('c', "c", "raw against canonical states", k_view),
	WB_KEY('n', "n", "the neighbourhood graph of the current state", k_view),
	WB_KEY('a', "a", "allocator invariants and chunk map of the current state", k_view),
	WB_KEY('u', "u", "runs in the database (Enter picks one)", k_view),
	WB_KEY('/', "/", "jump to a state by id or fingerprint prefix", k_jump),
	WB_KEY('b', "b", "back to the previously visited state", k_prev_state),
	WB_KEY_LIVE('e', "e", "expand the current state by hand (all operations)", k_expand),
	WB_KEY_LIVE('r', "r", "run the search (resume it when paused)", k_run),
	WB_KEY_LIVE('R', "R", "search from the current state in a new run (u lists the run left)", k_run),
	WB_KEY_LIVE('p', "p", "pause the running search", k_pause),
	WB_KEY_LIVE('S', "S", "simulate: 100 random walks from the initial states", k_simulate),
	WB_KEY_LIVE('o', "o", "switch BFS/DFS: ends this run, begins one in the other order", k_order),
	WB_KEY(CTRL('l'), "^L", "redraw the screen", k_redraw),
	{0},
};

#define MAX_KEYS 128

size_t wb_keys(const struct wb_key_entry **out)
{
	/* Built on first use, on the UI thread, from const tables. */
	static struct wb_key_entry all[MAX_KEYS];
	static size_t n;
	if (!n) {
		for (int v = 0; v <= WB_V__COUNT; v++) {
			const struct wb_binding *t = v < WB_V__COUNT ? wb_view((enum wb_view_id)v)->keys : common_keys;
			for (; t && t->fn; t++) {
				CMC_ASSERT(n < MAX_KEYS);
				all[n++] = (struct wb_key_entry){t, (enum wb_view_id)v};
			}
		}
	}
	*out = all;
	static bool checked;
	if (!checked) {
		checked = true;
		CMC_ASSERT(wb_keys_are_valid());
	}
	return n;
}

bool wb_keys_are_valid(void)
{
	const struct wb_key_entry *e;
	size_t n = wb_keys(&e);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct wb_key_entry *a = &e[i], *b = &e[j];
			if (a->b->key != b->b->key)
				continue;
			CMC_VALID(a->owner != b->owner, "key %d twice in the table of %s", a->b->key,
				  a->owner < WB_V__COUNT ? wb_view(a->owner)->name : "the common keys");
			bool ae = a->b->everywhere, be = b->b->everywhere;
			CMC_VALID(!(ae && b->owner < WB_V__COUNT) && !(be && a->owner < WB_V__COUNT),
				  "key %d is answered everywhere and is also a key of %s", a->b->key,
				  wb_view(ae ? b->owner : a->owner)->name);
			CMC_VALID(!(ae && b->owner == WB_V__COUNT) && !(be && a->owner == WB_V__COUNT),
				  "key %d is answered everywhere and is also a common key", a->b->key);
		}
	return true;
}

bool wb_binding_common_in(const struct wb_binding *b, enum wb_view_id v)
{
	return wb_binding_find(b->key, v) == b;
}

const struct wb_binding *wb_binding_find(int key, enum wb_view_id v)
{
	const struct wb_key_entry *e;
	size_t n = wb_keys(&e);
	for (size_t i = 0; i < n; i++)
		if (e[i].b->key == key && (e[i].owner == WB_V__COUNT || e[i].owner == v || e[i].b->everywhere))
			return e[i].b;
	return NULL;
}
