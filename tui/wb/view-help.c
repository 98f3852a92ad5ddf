/*
 * view-help.c — every key, generated from the key tables (wb_keys(): each
 * view's own, then the common ones in wb-keys.c), so the list cannot
 * drift from what the keys do.
 */
#include <stdio.h>
#include <string.h>

#include "wb-text.h"
#include "wb.h"

static struct wb_list L;

/* A key's help is wrapped under its description column, so the list
 * scrolls by screen lines: a row of the list is one line of the screen.
 * The first lines are the legend of the marks every view uses. */
#define KEYW 14
static const char *const legend[] = {
	"marks: ! violation, X fault; in colour: violation red, fault magenta, initial state cyan",
	"* the run shown (runs); @N: the current state; the title line: view > run",
};
#define NLEGEND (sizeof legend / sizeof legend[0])

static size_t n_lines(int cols)
{
	const struct wb_key_entry *e;
	size_t n = 0, all = wb_keys(&e);
	for (size_t i = 0; i < all; i++)
		if (e[i].b->keyname)
			n += (size_t)wb_wrap_count(8, cols, "               ", e[i].b->help);
	return n;
}

static int help_cols = 80;

static void help_load(struct wb *wb) { L.n = n_lines(help_cols); }

static void help_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	help_cols = cols;
	L.n = n_lines(cols);
	int y = 0;
	struct wb_text_line tl[8];
	for (size_t i = 0; i < NLEGEND && y < rows; i++) {
		size_t n = wb_text_wrap(legend[i], (size_t)cols, tl, 8);
		for (size_t k = 0; k < n && y < rows; k++)
			wb_row(w, y++, cols, A_NORMAL, "%.*s", (int)tl[k].len, legend[i] + tl[k].start);
	}
	if (y < rows)
		wb_row(w, y++, cols, A_BOLD, "%-*s %s", KEYW, "key", "what it does (where)");
	size_t body = rows > y ? (size_t)(rows - y) : 1;
	wb_list_clamp(&L, body);
	const struct wb_key_entry *e;
	size_t all = wb_keys(&e), i = 0;
	for (size_t k = 0; k < all && y < rows; k++) {
		const struct wb_binding *b = e[k].b;
		if (!b->keyname)
			continue;
		size_t n = wb_text_wrap(b->help, cols > KEYW + 9 ? (size_t)cols - KEYW - 1 : 8, tl, 8);
		for (size_t j = 0; j < n && y < rows; j++, i++)
			if (i >= L.top)
				wb_row(w, y++, cols, i == L.cur ? A_REVERSE : A_NORMAL, "%-*s %.*s", KEYW,
				       j == 0 ? b->keyname : "", (int)tl[j].len, b->help + tl[j].start);
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
