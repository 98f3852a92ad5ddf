/*
 * t4-text.c — the workbench's text fitting (tui/wb/wb-text.c): paths
 * elided in the middle keep their file name, wrapped lines cover the text
 * and never pass the width, key hints are dropped whole, header fields
 * drop the least important first; every result stays within its width.
 */
#include <string.h>

#include "tap.h"
#include "wb/wb-text.h"

static void elide(void)
{
	char d[128];
	const char *a = "/home/user/src/cmc/share/examples/list/list.scn";
	const char *b = "/home/user/src/cmc/share/examples/list/list-bug.scn";
	wb_text_elide_path(d, sizeof d, a, 200);
	ok(strcmp(d, a) == 0, "a path that fits is whole (%s)", d);
	wb_text_elide_path(d, sizeof d, a, 20);
	ok(strlen(d) == 20 && strstr(d, "/list.scn") && strstr(d, "...") && strncmp(d, "/home", 5) == 0,
	   "elided to 20: the head, \"...\", the file name (%s)", d);
	char e[128];
	wb_text_elide_path(e, sizeof e, b, 20);
	ok(strcmp(d, e) != 0 && strstr(e, "list-bug.scn"),
	   "two scenarios of one folder stay apart (%s, %s)", d, e);
	wb_text_elide_path(d, sizeof d, "a-very-long-file-name-without-folder.scn", 15);
	ok(strlen(d) == 15 && strncmp(d, "a-ver", 5) == 0 && strstr(d, ".scn") && strstr(d, "..."),
	   "a file name alone too long keeps its start and end (%s)", d);
	wb_text_elide_path(d, sizeof d, a, 3);
	ok(strcmp(d, "scn") == 0, "under 4 columns: the end (%s)", d);
	wb_text_elide_path(d, 8, a, 40);
	ok(strlen(d) == 7, "dst smaller than the width: bounded by dst (%zu)", strlen(d));
	for (size_t w = 0; w < 60; w++) {
		wb_text_elide_path(d, sizeof d, b, w);
		if (strlen(d) > w) {
			ok(0, "width %zu: %zu columns", w, strlen(d));
			return;
		}
	}
	ok(1, "every width from 0 to 59: never wider");
}

static void wrap(void)
{
	const char *m = "alloc: INV-15 double free: slot 3 of chunk 2 freed twice (first by DROP)";
	struct wb_text_line l[32];
	size_t n = wb_text_wrap(m, 20, l, 32);
	bool within = true, words = true;
	size_t covered = 0;
	for (size_t i = 0; i < n; i++) {
		within &= l[i].len <= 20;
		covered += l[i].len;
		/* no word is broken: a line ends at the text's end or before a space */
		size_t end = l[i].start + l[i].len;
		words &= m[end] == 0 || m[end] == ' ';
		words &= m[l[i].start] != ' ';
	}
	ok(n == 4 && within, "wrapped at 20: %zu lines, none wider", n);
	ok(words, "lines break at spaces, none starts with one");
	ok(covered + n - 1 == strlen(m), "the lines and the spaces between them are the text");
	n = wb_text_wrap("0123456789abcdefghij", 8, l, 32);
	ok(n == 3 && l[0].len == 8 && l[2].len == 4, "a word longer than a line is cut (%zu lines)", n);
	const char *blob = "40 bytes: 4f4b1b5d303b70776e6564071b5b";
	n = wb_text_wrap(blob, 20, l, 32);
	ok(n == 2 && l[0].len == 20 && strncmp(blob, "40 bytes: 4f4b1b5d30", 20) == 0,
	   "a long word is cut at the width rather than leaving half a line empty (%zu lines)", n);
	n = wb_text_wrap(m, 20, l, 2);
	ok(n == 2, "at most max lines (%zu)", n);
	n = wb_text_wrap("", 20, l, 32);
	ok(n == 1 && l[0].len == 0, "an empty text is one empty line");
	n = wb_text_wrap("short", 80, l, 32);
	ok(n == 1 && l[0].len == 5, "a text that fits is one line");
}

static void hints(void)
{
	char d[128];
	const char *h = "Enter:open /:jump 2:levels 3:tree r:run v:violations";
	wb_text_fit_hints(d, sizeof d, h, 200);
	ok(strcmp(d, h) == 0, "hints that fit are whole (%s)", d);
	wb_text_fit_hints(d, sizeof d, h, 40);
	ok(strcmp(d, "Enter:open /:jump 2:levels 3:tree r:run") == 0, "at 40: whole hints only (%s)", d);
	wb_text_fit_hints(d, sizeof d, "Right/l:replay a step Left/h:back x:all", 25);
	ok(strcmp(d, "Right/l:replay a step") == 0, "a hint's description stays with its key (%s)", d);
	wb_text_fit_hints(d, sizeof d, h, 5);
	ok(d[0] == 0, "no hint fits: nothing, not a cut one (%s)", d);
}

static void fields(void)
{
	char d[128];
	struct wb_text_field f[] = {
		{"run 1 ", 0}, {"list.scn", 1}, {" | bfs", 4}, {" | 16 distinct", 0},
		{" 40 gen", 6}, {" 1200/s", 7}, {" d3", 2}, {" fr 5", 0},
	};
	size_t n = sizeof f / sizeof f[0];
	wb_text_fit_fields(d, sizeof d, f, n, 200);
	ok(strcmp(d, "run 1 list.scn | bfs | 16 distinct 40 gen 1200/s d3 fr 5") == 0, "all fit (%s)", d);
	wb_text_fit_fields(d, sizeof d, f, n, 40);
	ok(strcmp(d, "run 1 list.scn | 16 distinct d3 fr 5") == 0,
	   "at 40: rate, generated, order dropped, the frontier kept (%s)", d);
	struct wb_text_field g[] = {{"A", 0}, {"BBBBBBBBBB", 2}, {"cc", 3}, {"D", 0}};
	wb_text_fit_fields(d, sizeof d, g, 4, 8);
	ok(strcmp(d, "AccD") == 0, "a narrow field dropped before a wide one comes back when it fits (%s)", d);
	wb_text_fit_fields(d, sizeof d, f, n, 10);
	ok(strlen(d) == 10, "rank 0 alone too wide: cut at the width (%s)", d);
}

int main(void)
{
	elide();
	wrap();
	hints();
	fields();
	return tap_done();
}
