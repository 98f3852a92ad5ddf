/*
 * opts.c — the option tables (opts.h): the parser built on getopt_long
 * and the help generated from the same entries; and numbers on the
 * command line: digits with an optional suffix, nothing else (no sign, no
 * trailing junk, no overflow).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check.h"
#include "cmd.h"
#include "opts.h"

static bool parse(const char *s, uint64_t *out, uint64_t unit)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	uint64_t mul = 1;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mul = unit; end++; break;
	case 'm': case 'M': mul = unit * unit; end++; break;
	case 'g': case 'G': mul = unit * unit * unit; end++; break;
	default: return false;
	}
	if (*end)
		return false;
	if (v && mul > UINT64_MAX / v)
		return false;
	*out = v * mul;
	return true;
}

bool tui_parse_u64(const char *s, uint64_t *out) { return parse(s, out, 1000); }
bool tui_parse_size(const char *s, uint64_t *out) { return parse(s, out, 1024); }

/* ---- option tables ---------------------------------------------------- */

#define MAX_OPTS 48

static void *field(void *args, size_t off) { return (char *)args + off; }

static int take(const struct tui_cmd *c, const struct tui_option *o, void *args, const char *arg)
{
	uint64_t v;
	switch (o->type) {
	case TUI_OPT_BOOL_: *(bool *)field(args, o->off) = true; break;
	case TUI_OPT_SET_INT_: *(int *)field(args, o->off) = o->set; break;
	case TUI_OPT_STRING_: *(const char **)field(args, o->off) = arg; break;
	case TUI_OPT_COUNT_:
	case TUI_OPT_SIZE_:
		if (!(o->type == TUI_OPT_COUNT_ ? tui_parse_u64(arg, &v) : tui_parse_size(arg, &v)) ||
		    v < o->min || (o->max && v > o->max))
			return tui_usage_error(c, "--%s: expected %s, got '%s'", o->long_name, o->expected, arg);
		*(uint64_t *)field(args, o->off) = v;
		break;
	case TUI_OPT_CALLBACK_: return o->cb(c, args, arg);
	case TUI_OPT_TEXT_:
	case TUI_OPT_END_: break;
	}
	if (o->seen >= 0)
		*(bool *)field(args, (size_t)o->seen) = true;
	return 0;
}

int tui_options_parse(const struct tui_cmd *c, int argc, char **argv, void *args)
{
	struct option lo[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2], *sp = shorts;
	size_t n = 0;
	if (c->options_first)
		*sp++ = '+';
	const struct tui_option *opts = c->options;
	for (size_t i = 0; opts[i].type != TUI_OPT_END_; i++) {
		const struct tui_option *o = &opts[i];
		if (o->type == TUI_OPT_TEXT_)
			continue;
		CMC_ASSERT(n < MAX_OPTS);
		if (o->long_name)
			lo[n++] = (struct option){o->long_name, o->arg ? required_argument : no_argument,
						  NULL, 256 + (int)i};
		if (o->short_name) {
			*sp++ = o->short_name;
			if (o->arg)
				*sp++ = ':';
		}
	}
	lo[n] = (struct option){0, 0, 0, 0};
	*sp = 0;
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct tui_option *o = NULL;
		if (ch >= 256)
			o = &opts[ch - 256];
		else
			for (size_t i = 0; ch != '?' && ch != ':' && opts[i].type != TUI_OPT_END_; i++)
				if (opts[i].short_name == ch)
					o = &opts[i];
		if (!o)
			return tui_usage_error(c, "unknown option '%s'", argv[optind - 1]);
		int rc = take(c, o, args, optarg);
		if (rc)
			return rc;
	}
	return 0;
}

void tui_options_help(const struct tui_cmd *c, FILE *out)
{
	for (const struct tui_option *o = c->options; o->type != TUI_OPT_END_; o++) {
		if (o->type == TUI_OPT_TEXT_) {
			fputs(o->help, out);
			continue;
		}
		if (!o->help)
			continue;
		int col = o->col ? o->col : c->help_col ? c->help_col : 22;
		int w;
		if (o->left)
			w = fprintf(out, "  %s", o->left);
		else if (o->short_name)
			w = fprintf(out, "  -%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
				    o->arg ? o->arg : "");
		else
			w = fprintf(out, "  --%s%s%s", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (w + 2 > col) {
			fputc('\n', out);
			w = 0;
		}
		for (const char *h = o->help; *h; h++) {
			for (; w < col; w++)
				fputc(' ', out);
			const char *nl = strchr(h, '\n');
			size_t len = nl ? (size_t)(nl - h) : strlen(h);
			fwrite(h, 1, len, out);
			fputc('\n', out);
			w = 0;
			h += len;
			if (!*h)
				break;
		}
	}
}
