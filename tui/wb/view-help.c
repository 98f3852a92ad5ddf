/*
 * view-help.c — every key, generated from the key tables (wb_keys(): each
 * view's own, then the common ones in wb-keys.c), so the list cannot
 * drift from what the keys do.
 */
#include <string.h>

#include "wb.h"

static struct wb_list L;

static size_t n_rows(void)
{
	const struct wb_key_entry *e;
	size_t n = 0, all = wb_keys(&e);
	for (size_t i = 0; i < all; i++)
		if (e[i].b->keyname)
			n++;
	return n;
}

static void help_load(struct wb *wb) { L.n = n_rows(); }

static void help_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	L.n = n_rows();
	wb_row(w, 0, cols, A_BOLD, "%-14s %s", "key", "what it does (where)");
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&L, body);
	const struct wb_key_entry *e;
	size_t all = wb_keys(&e), i = 0;
	int y = 1;
	for (size_t k = 0; k < all && y < rows; k++) {
		const struct wb_binding *b = e[k].b;
		if (!b->keyname)
			continue;
		if (i >= L.top)
			wb_row(w, y++, cols, i == L.cur ? A_REVERSE : A_NORMAL, "%-14s %s", b->keyname,
			       b->help);
		i++;
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
