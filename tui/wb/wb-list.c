/*
 * wb-list.c — the scrollable list (wb-list.h): moves, the layout for a
 * window, and the validator of its rules.
 */
#include "engine/check.h"
#include "wb-list.h"

bool wb_list_is_valid(const struct wb_list *l, size_t rows)
{
	if (l->n == 0) {
		CMC_VALID(l->cur == 0 && l->top == 0, "wb_list empty: cur %zu and top %zu, expected 0",
			  l->cur, l->top);
		return true;
	}
	CMC_VALID(l->cur < l->n, "wb_list selection: cur %zu beyond the count %zu", l->cur, l->n);
	CMC_VALID(l->top < l->n, "wb_list scroll: top %zu beyond the count %zu", l->top, l->n);
	if (rows == 0)
		return true;
	CMC_VALID(l->top <= l->cur && l->cur - l->top < rows,
		  "wb_list window: cur %zu not shown in rows %zu..%zu", l->cur, l->top, l->top + rows - 1);
	CMC_VALID(l->top == 0 || l->top + rows <= l->n,
		  "wb_list scroll: top %zu leaves rows blank (%zu rows of %zu)", l->top, rows, l->n);
	return true;
}

void wb_list_move(struct wb_list *l, enum wb_list_move m, size_t page)
{
	if (l->n == 0)
		return;
	switch (m) {
	case WB_LIST_UP:
		if (l->cur > 0)
			l->cur--;
		break;
	case WB_LIST_DOWN:
		if (l->cur + 1 < l->n)
			l->cur++;
		break;
	case WB_LIST_PAGE_UP:
		l->cur = l->cur > page ? l->cur - page : 0;
		break;
	case WB_LIST_PAGE_DOWN:
		l->cur = l->cur + page < l->n ? l->cur + page : l->n - 1;
		break;
	case WB_LIST_FIRST:
		l->cur = 0;
		break;
	case WB_LIST_LAST:
		l->cur = l->n - 1;
		break;
	}
	CMC_ASSERT_INTERNAL(wb_list_is_valid(l, 0));
}

void wb_list_clamp(struct wb_list *l, size_t rows)
{
	if (l->n == 0) {
		l->cur = l->top = 0;
		return;
	}
	if (rows == 0)
		rows = 1;
	if (l->cur >= l->n)
		l->cur = l->n - 1;
	if (l->cur < l->top)
		l->top = l->cur;
	if (l->cur >= l->top + rows)
		l->top = l->cur - rows + 1;
	if (l->top + rows > l->n)
		l->top = l->n > rows ? l->n - rows : 0;
	CMC_ASSERT_EXPENSIVE(wb_list_is_valid(l, rows));
}
