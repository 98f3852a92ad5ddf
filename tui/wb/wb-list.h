/*
 * wb-list.h — the workbench's scrollable list: which of n rows is selected
 * and which is at the top of the window.  Every view with rows to move
 * over keeps one; the movement keys (wb-keys.c) move it and each draw lays
 * it out for its window.  No curses here, so the unit tests reach it
 * (tests/unit/t4-list.c).
 */
#ifndef CMC_TUI_WB_LIST_H
#define CMC_TUI_WB_LIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A list of n rows; cur is the selected row, top the first row shown.
 * Always (rows 0 below: the bounds):
 *   n == 0 and cur == top == 0, or cur < n and top < n   (the count bounds both)
 * Once laid out for a window of `rows` rows (wb_list_clamp, at every draw):
 *   top <= cur < top + rows                             (the selection shows)
 *   top + rows <= n, or top == 0                        (no blank page at the end)
 * A move keeps the bounds but leaves the scroll offset to the next layout:
 * between a move and the draw that follows, top may lag behind cur.
 */
struct wb_list {
	size_t n, cur, top;
};

enum wb_list_move {
	WB_LIST_UP,
	WB_LIST_DOWN,
	WB_LIST_PAGE_UP,   /* `page` rows up, stopping at the first */
	WB_LIST_PAGE_DOWN, /* `page` rows down, stopping at the last */
	WB_LIST_FIRST,
	WB_LIST_LAST,
};

/* Move the selection; nothing on an empty list. */
void wb_list_move(struct wb_list *l, enum wb_list_move m, size_t page);
/* Lay out for a window of `rows` rows (0 counts as 1): the selection
 * brought within the count and into the window. */
void wb_list_clamp(struct wb_list *l, size_t rows);
/* The rules above: with rows 0 the bounds only, else also the layout for
 * `rows` rows.  True, or aborts naming the broken rule (check.h). */
bool wb_list_is_valid(const struct wb_list *l, size_t rows);

#endif
