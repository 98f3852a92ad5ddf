/*
 * t4-list.c — the workbench's scrollable list (tui/wb/wb-list.c): driven
 * through moves, count changes and layouts for windows of every height,
 * its validator holds at every step; broken on purpose in a child process,
 * the validator aborts naming the rule.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/check.h"
#include "tap.h"
#include "aborts.h"
#include "wb/wb-list.h"


/* ---- moves ------------------------------------------------------------------ */

static void moves(void)
{
	struct wb_list l = {100, 0, 0};
	for (int i = 0; i < 5; i++)
		wb_list_move(&l, WB_LIST_DOWN, 9);
	ok(l.cur == 5 && wb_list_is_valid(&l, 0), "down 5 times: row 5 (cur %zu)", l.cur);
	wb_list_move(&l, WB_LIST_PAGE_DOWN, 9);
	wb_list_clamp(&l, 10);
	ok(l.cur == 14 && l.top == 5 && wb_list_is_valid(&l, 10),
	   "a page down in 10 rows: row 14 shown from row 5 (cur %zu top %zu)", l.cur, l.top);
	wb_list_move(&l, WB_LIST_LAST, 9);
	ok(l.cur == 99 && wb_list_is_valid(&l, 0), "last: row 99, the bounds hold before the layout");
	wb_list_clamp(&l, 10);
	ok(l.top == 90 && wb_list_is_valid(&l, 10), "laid out: the last page (top %zu)", l.top);
	wb_list_move(&l, WB_LIST_DOWN, 9);
	ok(l.cur == 99, "down at the last row stays");
	wb_list_move(&l, WB_LIST_PAGE_UP, 200);
	wb_list_move(&l, WB_LIST_UP, 9);
	wb_list_clamp(&l, 10);
	ok(l.cur == 0 && l.top == 0 && wb_list_is_valid(&l, 10), "a long page up, then up: row 0");

	struct wb_list e = {0, 0, 0};
	for (int m = WB_LIST_UP; m <= WB_LIST_LAST; m++)
		wb_list_move(&e, (enum wb_list_move)m, 9);
	wb_list_clamp(&e, 10);
	ok(e.cur == 0 && e.top == 0 && wb_list_is_valid(&e, 10), "an empty list: every move is nothing");

	l = (struct wb_list){100, 99, 90};
	l.n = 10; /* the count shrank (another run): the next layout brings it back */
	wb_list_clamp(&l, 4);
	ok(l.cur == 9 && l.top == 6 && wb_list_is_valid(&l, 4),
	   "the count shrinks under the selection: the layout keeps the rules (cur %zu top %zu)", l.cur, l.top);
	l = (struct wb_list){3, 2, 0};
	wb_list_clamp(&l, 10);
	ok(l.top == 0 && wb_list_is_valid(&l, 10), "fewer rows than the window: top 0");
}

/* Random moves, count changes and window heights: the bounds after each
 * move, the layout after each clamp. */
static void random_walk(void)
{
	unsigned seed = 12345;
	struct wb_list l = {0, 0, 0};
	size_t bad = 0, steps = 20000;
	for (size_t i = 0; i < steps; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = (seed >> 8) % 100;
		size_t rows = 1 + (seed >> 16) % 40;
		if (r < 5) {
			l.n = (seed >> 4) % 300; /* then laid out before any move, as each draw does */
			wb_list_clamp(&l, rows);
			bad += !wb_list_is_valid(&l, rows);
		} else if (r < 30) {
			wb_list_clamp(&l, rows);
			bad += !wb_list_is_valid(&l, rows);
		} else {
			wb_list_move(&l, (enum wb_list_move)(r % 6), rows > 1 ? rows - 1 : 1);
			bad += !wb_list_is_valid(&l, 0);
		}
	}
	ok(bad == 0, "%zu random moves, count changes and layouts: the rules hold at each", steps);
}

/* ---- broken on purpose ------------------------------------------------------- */

static void break_list(void *arg)
{
	int how = *(int *)arg;
	struct wb_list l = {100, 50, 45};
	size_t rows = 10;
	switch (how) {
	case 0: l.cur = 100; rows = 0; break;         /* selection past the count */
	case 1: l = (struct wb_list){0, 1, 0}; break; /* an empty list with a selection */
	case 2: l.top = 51; break;                    /* the selection above the window */
	case 3: l.top = 40; break;                    /* the selection below the window */
	case 4: l.top = 95; l.cur = 96; break;        /* a blank page at the end */
	case 5: l.top = 100; l.cur = 99; rows = 0; break; /* top past the count */
	}
	wb_list_is_valid(&l, rows);
}

static void break_then_move(void *arg)
{
	struct wb_list l = {10, 5, 10}; /* top past the count: a move does not mend it */
	wb_list_move(&l, WB_LIST_UP, 1);
}

static void broken(void)
{
	static const char *const rule[] = {"wb_list selection", "wb_list empty", "wb_list window",
					   "wb_list window", "wb_list scroll: top 95 leaves rows blank",
					   "wb_list scroll: top 100 beyond"};
	static const char *const what[] = {"cur past the count", "an empty list with a selection",
					   "the selection above the window",
					   "the selection below the window", "a blank page at the end",
					   "top past the count"};
	for (int how = 0; how < 6; how++) {
		char d[80];
		snprintf(d, sizeof d, "wb_list broken (%s)", what[how]);
		aborts(break_list, &how, rule[how], d);
	}
#if CMC_CHECK >= 3
	aborts(break_then_move, NULL, "wb_list scroll: top 10 beyond", "CHECK=3: a move on a broken list");
#else
	(void)break_then_move;
	printf("ok %d - CHECK=3: a move on a broken list # SKIP built with CHECK=%d\n", ++tap_n, CMC_CHECK);
#endif
}

int main(void)
{
	moves();
	random_walk();
	broken();
	return tap_done();
}
