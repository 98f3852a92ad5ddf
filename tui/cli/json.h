/*
 * json.h — the one writer of cmc's machine-readable output (every --json).
 *
 * The writer keeps track of where it is (inside an object or an array, how
 * many members came before) and writes the separators itself, so callers
 * say only what goes out:
 *
 *	struct tui_json j;
 *	tui_json_begin(&j, stdout);
 *	tui_json_object(&j);                             {
 *	tui_json_u64(tui_json_key(&j, "run"), 3);          "run": 3
 *	tui_json_array(tui_json_key(&j, "trace"));         , "trace": [
 *	tui_json_string(&j, "INS 1");                        "INS 1"
 *	tui_json_end(&j);                                  ]
 *	tui_json_end(&j);                                }
 *	tui_json_finish(&j);                             (a newline)
 *
 * prints {"run": 3, "trace": ["INS 1"]}.  The layout is fixed (scripts and
 * tests read it with exact spacing): ": " after a key and ", " between
 * members, all on one line; an array opened with tui_json_array_lines()
 * puts each element on a line of its own, indented by two spaces, with the
 * closing bracket right after the last element; tui_json_array_sep() takes
 * any other separators an output has always had.
 *
 * Strings: every byte outside printable ASCII is escaped (\n, \t, \r, \",
 * \\ and \u00XX for the rest), so the output is valid JSON, and plain
 * ASCII, whatever bytes a target or a database put in labels and messages.
 * A NULL string is written as null.
 *
 * Misuse (a value without a key inside an object, a key inside an array,
 * an end with nothing open, nesting deeper than TUI_JSON_DEPTH) is a
 * programmer error: CMC_ASSERT (engine/check.h).
 */
#ifndef CMC_TUI_JSON_H
#define CMC_TUI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/cmc.h"

#define TUI_JSON_DEPTH 16

struct tui_json_level {
	bool object;        /* else an array */
	bool any;           /* a member was written */
	const char *first;  /* before the first element ("" or "\n  ") */
	const char *between; /* between elements (", " or ",\n  ") */
};

struct tui_json {
	FILE *out;
	int depth; /* containers open */
	struct tui_json_level level[TUI_JSON_DEPTH];
	bool keyed; /* a key was written: its value comes next */
};

void tui_json_begin(struct tui_json *j, FILE *out);
/* Ends the document (everything closed) with a newline. */
void tui_json_finish(struct tui_json *j);

/* Containers, as a value (an array element, after a key, or the top). */
void tui_json_object(struct tui_json *j);
void tui_json_array(struct tui_json *j);
void tui_json_array_lines(struct tui_json *j);
/* An array with `first` before its first element and `between` between two
 * (whitespace and one comma: the writer does not check). */
void tui_json_array_sep(struct tui_json *j, const char *first, const char *between);
/* Close the innermost container. */
void tui_json_end(struct tui_json *j);

/* The key of the next member of the current object; returns j, so a value
 * call can take it: tui_json_bool(tui_json_key(j, "complete"), true). */
struct tui_json *tui_json_key(struct tui_json *j, const char *key);

/* Values. */
void tui_json_string(struct tui_json *j, const char *s); /* NULL: null */
void tui_json_bytes(struct tui_json *j, const void *p, size_t n);
void tui_json_u64(struct tui_json *j, uint64_t v);
void tui_json_i64(struct tui_json *j, int64_t v);
/* A number in a printf format of one argument ("%.3f" for seconds):
 * the format decides the digits the output has always had. */
void tui_json_number(struct tui_json *j, const char *fmt, double v);
void tui_json_bool(struct tui_json *j, bool v);
void tui_json_null(struct tui_json *j);

/* cmc's own values: a state id (null for ENG_NO_STATE) and a fingerprint
 * (its hex, null when zero). */
void tui_json_state(struct tui_json *j, uint32_t id);
void tui_json_fp(struct tui_json *j, eng_fp fp);

#endif
