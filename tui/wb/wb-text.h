/*
 * wb-text.h — fitting printable text into a number of columns (wb-text.c):
 * paths elided in the middle, messages wrapped, key hints and header
 * fields dropped whole, least important first.  No curses here, so the
 * unit test (tests/unit/t4-text.c) reaches it.  Every function takes text
 * already escaped (printable ASCII: a byte is a column) and writes a
 * NUL-terminated result no longer than `width` nor than dstlen - 1.
 */
#ifndef CMC_TUI_WB_TEXT_H
#define CMC_TUI_WB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#define WB_TEXT_MAX 1024  /* longest text the functions shorten */
#define WB_TEXT_FIELDS 24 /* most fields in one line */

/* s in at most `width` columns: when longer, the middle of the directory
 * part becomes "..." and the file name stays whole
 * ("share/ex...les/list/list-bug.scn" -> "share/...list-bug.scn"); a file
 * name that alone does not fit keeps its start and its end around "...".
 * Returns dst. */
char *wb_text_elide_path(char *dst, size_t dstlen, const char *s, size_t width);

/* One line of a wrapped text: s[start .. start + len). */
struct wb_text_line {
	size_t start, len;
};
/* Wrap s into lines of at most `width` columns, breaking at spaces; a word
 * that would leave more than half a line empty (a hex blob) is cut at the
 * width instead; the spaces at a break are dropped.  Fills at
 * most `max` lines and returns how many (at least 1 when max > 0: an empty
 * text is one empty line).  When the text needs more than `max` lines the
 * rest is not shown: callers size `max` from the rows they have. */
size_t wb_text_wrap(const char *s, size_t width, struct wb_text_line *lines, size_t max);

/* A key-hint line ("Enter:open /:jump 2:levels r:run"): a hint is a word
 * holding ':' and the words after it up to the next such word.  Keeps the
 * hints, in order, up to the first one that does not fit whole: hints are
 * listed most important first, and none is ever shown cut.  Returns dst. */
char *wb_text_fit_hints(char *dst, size_t dstlen, const char *hints, size_t width);

/* One piece of a line, with its own separators in `text` (" | 16
 * distinct").  rank 0: always kept; otherwise the line drops the highest
 * rank first (of equal ranks, the later one) until the rest fits. */
struct wb_text_field {
	const char *text; /* NULL or "": absent */
	int rank;
};
/* The fields kept, in order; a field dropped on the way comes back when
 * the room a wider one left makes it fit.  When the rank-0 fields alone
 * are too wide the line is cut at `width`.  Returns dst. */
char *wb_text_fit_fields(char *dst, size_t dstlen, const struct wb_text_field *f, size_t n,
			 size_t width);

#endif
