/*
 * view-help.c — every key, generated from the key tables (wb_keys(): each
 * view's own, then the common ones in wb-keys.c), so the list cannot
 * drift from what the keys do; then what the labels on the screen mean.
 *
 * Grouped for the view help was opened from ("this view"): the keys
 * answered in every view first (less those this view gives a meaning of
 * its own), then this view's keys and what Enter does in it, then the
 * labels, then the other views' keys, each under its view's name.  So a
 * key has one meaning in each group a user reads for a view.  Browsing (a
 * database, or a run not this session's: wb_can_step() false), the keys
 * that only act on a live search (r, e, p, ...) are listed last, under
 * their own heading, not among the keys that work here.
 */
#include <string.h>

#include "engine/util.h"
#include "wb-text.h"
#include "wb.h"

/* A row: a heading (key NULL), a line of the legend (plain), or a key or
 * label and what it means.  A text wider than the screen is wrapped: its
 * continuation rows have key "", and len says how much of text a row
 * shows (a row of the list is a line of the screen, so it scrolls by
 * lines). */
struct hrow {
	const char *key, *text;
	enum wb_view_id view; /* headings of other views' keys: whose */
	int len;              /* bytes of text on this row; -1: all of it */
	bool plain;           /* the legend: text from column 0, no key */
};

#define KEYW 14 /* the key column */

/* The marks and colours every view uses, first on the screen. */
static const char *const legend[] = {
	"marks: ! violation, X fault; colour: violation red, fault magenta, initial cyan",
	"* the run shown (runs); @N: the current state; the title line: view > run",
};

/* What the screen shows that a key does not explain. */
static const struct {
	const char *key, *text;
} labels[] = {
	{"@N", "the current state's id (status line); / jumps to one, b goes back"},
	{"live", "this session's run, growing as it searches; else a stored one, read"},
	{"distinct gen", "states found; successors generated, repeats counted"},
	{"dN  fr N", "the deepest level reached; states found but not expanded yet"},
	{"INCOMPLETE", "the run ended before exploring everything (interrupted)"},
	{"depth", "states on the path from an initial state to it (1: initial)"},
	{"ok VIOLATION", "the state breaks no property / breaks one (v lists them)"},
	{"FAULT", "the target failed there (crashed, hung, exited when it must not)"},
	{"fp raw canon", "fingerprints: the deduplicating one; of the heap; of the record"},
	{"merge xN", "raw states per canonical state: what the canonical record merges"},
	{"(discovered..)", "the edge that first reached that state (tree edge in the graph)"},
	{"(new)", "the edge found its target; (self-loop): it leads back here"},
	{"(not taken..)", "an operation not taken from this state yet, or why it cannot be"},
	{"match taken", "a replayed step reached the stored fingerprint / had none stored"},
	{"DIFFERS", "a replayed step reached another fingerprint (shown after it)"},
	{"NOT TAKEN", "the replay could not take the step; FAULT: the target failed"},
	{"DIVERGED", "the target did not repeat itself on replay, from that step on"},
	{"NOT REBUILT", "the run could not rebuild the trace: the target did not repeat"},
	{"# . x !", "chunk map slots: live, free, freed but written, live but overrun"},
	{"k *", "a chunk; * one a failing invariant points at"},
	{"A B <", "the hex diff's two states; < marks the selected row"},
};

static struct wb_list L;
static struct hrow *rows;
static size_t nrows, caprows;
static enum wb_view_id built_for = WB_V__COUNT;
static int built_cols, want_cols = 80;
static bool built_live;

void wb_help_reset(void)
{
	L = (struct wb_list){0, 0, 0};
	built_for = WB_V__COUNT;
}

static void push(struct hrow r)
{
	if (nrows == caprows) {
		caprows = caprows ? caprows * 2 : 128;
		rows = eng_xrealloc(rows, caprows * sizeof *rows);
	}
	rows[nrows++] = r;
}

/* A row, wrapped to the screen's width (headings are short: not). */
static void add_wrapped(const char *key, const char *text, enum wb_view_id v, bool plain)
{
	int width = plain ? want_cols : want_cols - KEYW - 1;
	struct wb_text_line tl[8];
	size_t n = key || plain ? wb_text_wrap(text, width > 8 ? (size_t)width : 8, tl, 8) : 0;
	if (n <= 1) {
		push((struct hrow){key, text, v, -1, plain});
		return;
	}
	for (size_t i = 0; i < n; i++)
		push((struct hrow){i ? "" : key, text + tl[i].start, v, (int)tl[i].len, plain});
}

static void add(const char *key, const char *text, enum wb_view_id v)
{
	add_wrapped(key, text, v, false);
}

static enum wb_view_id from_view(struct wb *wb)
{
	if (wb->view != WB_V_HELP)
		return wb->view;
	return wb->nvstack ? wb->vstack[wb->nvstack - 1] : WB_V_LIST;
}

/* Does key entry k belong in the groups of keys that work here? */
static bool works(const struct wb_key_entry *k, bool live) { return live || !k->b->live; }

static void build(enum wb_view_id here, bool live)
{
	const struct wb_key_entry *e;
	size_t all = wb_keys(&e);
	nrows = 0;
	for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
		add_wrapped(NULL, legend[i], WB_V__COUNT, true);
	add(NULL, "keys in every view", WB_V__COUNT);
	for (int pass = 0; pass < 2; pass++) /* the common keys, then those of a view's */
		for (size_t k = 0; k < all; k++)
			if (e[k].b->keyname && (pass ? e[k].b->everywhere : e[k].owner == WB_V__COUNT) &&
			    wb_binding_common_in(e[k].b, here) && works(&e[k], live))
				add(e[k].b->keyname, e[k].b->help, WB_V__COUNT);
	const struct wb_view *hv = wb_view(here);
	add(NULL, "keys of this view", here);
	size_t before = nrows;
	if (hv->enter)
		add("Enter", hv->enter, here);
	for (size_t k = 0; k < all; k++)
		if (e[k].b->keyname && e[k].owner == here && !e[k].b->everywhere && works(&e[k], live))
			add(e[k].b->keyname, e[k].b->help, here);
	if (nrows == before)
		add("", "(none beyond those above)", here);
	add(NULL, "what the screen says", WB_V__COUNT);
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		add(labels[i].key, labels[i].text, WB_V__COUNT);
	for (int v = 0; v < WB_V__COUNT; v++) {
		if (v == (int)here || v == WB_V_HELP)
			continue;
		const struct wb_view *ov = wb_view((enum wb_view_id)v);
		bool any = ov->enter != NULL;
		for (size_t k = 0; k < all && !any; k++)
			any = e[k].owner == (enum wb_view_id)v && e[k].b->keyname && !e[k].b->everywhere;
		if (!any)
			continue;
		add(NULL, "keys of another view", (enum wb_view_id)v);
		if (ov->enter)
			add("Enter", ov->enter, (enum wb_view_id)v);
		for (size_t k = 0; k < all; k++)
			if (e[k].owner == (enum wb_view_id)v && e[k].b->keyname && !e[k].b->everywhere)
				add(e[k].b->keyname, e[k].b->help, (enum wb_view_id)v);
	}
	if (!live) {
		add(NULL, "keys of a live session (cmc tui SCENARIO or MODEL): not here", WB_V__COUNT);
		for (size_t k = 0; k < all; k++)
			if (e[k].b->keyname && e[k].b->live)
				add(e[k].b->keyname, e[k].b->help, WB_V__COUNT);
	}
	built_for = here;
	built_live = live;
	built_cols = want_cols;
	L.n = nrows;
}

static void help_load(struct wb *wb)
{
	bool live = wb_can_step(wb);
	if (built_for != from_view(wb) || built_cols != want_cols || built_live != live)
		build(from_view(wb), live);
}

static void help_draw(struct wb *wb, WINDOW *w, int rows_, int cols)
{
	want_cols = cols;
	help_load(wb);
	wb_row(w, 0, cols, A_BOLD, "keys for the view %s, then the others (Esc: back)",
	       wb_view(from_view(wb))->name);
	size_t body = rows_ > 1 ? (size_t)rows_ - 1 : 1;
	wb_list_clamp(&L, body);
	for (size_t i = L.top, y = 1; i < nrows && y < (size_t)rows_; i++, y++) {
		const struct hrow *r = &rows[i];
		int sel = i == L.cur ? (int)A_REVERSE : 0;
		if (r->plain)
			wb_row(w, (int)y, cols, sel, "%.*s", r->len < 0 ? (int)strlen(r->text) : r->len,
			       r->text);
		else if (!r->key && r->view < WB_V__COUNT)
			wb_row(w, (int)y, cols, sel | (int)A_BOLD, "-- %s: %s", r->text, wb_view(r->view)->name);
		else if (!r->key)
			wb_row(w, (int)y, cols, sel | (int)A_BOLD, "-- %s", r->text);
		else
			wb_row(w, (int)y, cols, sel, "%-*s %.*s", KEYW, r->key,
			       r->len < 0 ? (int)strlen(r->text) : r->len, r->text);
	}
}

static struct wb_list *help_list(struct wb *wb) { return &L; }

const struct wb_view wb_view_help = {
	.name = "help",
	.hint = "Up/Down:scroll Esc:back",
	.load = help_load,
	.draw = help_draw,
	.list = help_list,
	.activate = NULL,
};
