/*
 * opts.h — a command's options, one table: each entry holds the option,
 * where its value goes (a field of the command's argument struct, by
 * offset) and its help line, so `cmc CMD --help` is generated from the
 * same entries the parser reads.  A table ends with TUI_OPT_END().
 *
 *	struct sim_args { bool json; uint64_t walks; };
 *	static const struct tui_option sim_options[] = {
 *		TUI_OPT_COUNT(0, "walks", struct sim_args, walks, "N",
 *			      "number of walks (default 100)"),
 *		TUI_OPT_BOOL(0, "json", struct sim_args, json, "print one JSON object"),
 *		TUI_OPT_END(),
 *	};
 *
 * Help: each entry is a line "  --name ARG" padded to the command's help
 * column (struct tui_cmd.help_col), then its help; a '\n' in the help
 * starts a continuation line at that column; a left part too long for the
 * column puts the help on the next line.  .left replaces the generated
 * left part (two options sharing a line), .help NULL hides an entry (its
 * partner documents it), TUI_OPT_TEXT() adds text as it is.
 */
#ifndef CMC_TUI_OPTS_H
#define CMC_TUI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tui_cmd;

enum tui_opt_type {
	TUI_OPT_END_,
	TUI_OPT_BOOL_,     /* bool = true */
	TUI_OPT_SET_INT_,  /* int = .set */
	TUI_OPT_STRING_,   /* const char * = the argument */
	TUI_OPT_COUNT_,    /* uint64_t: digits, k/M/G (x1000); within [min, max] */
	TUI_OPT_SIZE_,     /* uint64_t: digits, K/M/G (x1024) */
	TUI_OPT_CALLBACK_, /* .cb(the args struct, the argument or NULL) */
	TUI_OPT_TEXT_,     /* no option: .help printed as it is */
};

struct tui_option {
	enum tui_opt_type type;
	char short_name;      /* 'o' for -o, or 0 */
	const char *long_name;
	size_t off;           /* the field in the command's argument struct */
	const char *arg;      /* "N", "FILE"; NULL: the option takes none */
	const char *help;     /* NULL: not listed */
	const char *left;     /* the help's left part when not "--name ARG" */
	int col;              /* this line's help column, when not the command's */
	int set;              /* TUI_OPT_SET_INT_ */
	uint64_t min, max;    /* TUI_OPT_COUNT_: bounds (max 0: none) */
	const char *expected; /* COUNT/SIZE: "a count" in "--x: expected a count, got 'y'" */
	ptrdiff_t seen;       /* >= 0: a bool field set when the option is given */
	/* 0, or TUI_EXIT_USAGE after printing why (tui_usage_error) */
	int (*cb)(const struct tui_cmd *c, void *args, const char *arg);
};

#define TUI_OPT_(t, s, l, ...) {.type = (t), .short_name = (s), .long_name = (l), .seen = -1, __VA_ARGS__}
#define TUI_OPT_BOOL(s, l, T, f, h) TUI_OPT_(TUI_OPT_BOOL_, s, l, .off = offsetof(T, f), .help = (h))
#define TUI_OPT_SET_INT(s, l, T, f, v, h) \
	TUI_OPT_(TUI_OPT_SET_INT_, s, l, .off = offsetof(T, f), .set = (v), .help = (h))
#define TUI_OPT_STRING(s, l, T, f, a, h) \
	TUI_OPT_(TUI_OPT_STRING_, s, l, .off = offsetof(T, f), .arg = (a), .help = (h))
#define TUI_OPT_CALLBACK(s, l, a, fn, h) TUI_OPT_(TUI_OPT_CALLBACK_, s, l, .arg = (a), .cb = (fn), .help = (h))
#define TUI_OPT_TEXT(h) {.type = TUI_OPT_TEXT_, .help = (h), .seen = -1}
#define TUI_OPT_END() {.type = TUI_OPT_END_, .seen = -1}

/* A count or a size (COUNT: k/M/G x1000; SIZE: K/M/G x1024) into a
 * uint64_t field; have: a bool field set when given (or -1). */
#define TUI_OPT_COUNT(s, l, T, f, a, lo, hi, exp, have, h)                                       \
	{.type = TUI_OPT_COUNT_, .short_name = (s), .long_name = (l), .off = offsetof(T, f),       \
	 .arg = (a), .min = (lo), .max = (hi), .expected = (exp), .seen = (have), .help = (h)}
#define TUI_OPT_SIZE(s, l, T, f, a, exp, have, h)                                               \
	{.type = TUI_OPT_SIZE_, .short_name = (s), .long_name = (l), .off = offsetof(T, f),        \
	 .arg = (a), .expected = (exp), .seen = (have), .help = (h)}
#define TUI_SEEN(T, f) ((ptrdiff_t)offsetof(T, f))

/* Parse argv (argv[0] the command's name) against c->options into args;
 * operands start at optind.  0, or TUI_EXIT_USAGE after printing the
 * usage error ("unknown option '--x'", "--x: expected ..."). */
int tui_options_parse(const struct tui_cmd *c, int argc, char **argv, void *args);
/* The options' help lines, as `cmc help CMD` prints them. */
void tui_options_help(const struct tui_cmd *c, FILE *out);

/* A count with an optional k/M/G (x1000) or, for sizes, K/M/G (x1024)
 * suffix; false when `s` is not one. */
bool tui_parse_u64(const char *s, uint64_t *out);
bool tui_parse_size(const char *s, uint64_t *out);

#endif
