/*
 * json.c — the JSON writer (json.h): separators from the writer's state,
 * strings escaped byte by byte.
 */
#include <string.h>

#include "engine/check.h"

#include "json.h"

void tui_json_begin(struct tui_json *j, FILE *out)
{
	*j = (struct tui_json){.out = out};
}

void tui_json_finish(struct tui_json *j)
{
	CMC_ASSERT(j->depth == 0 && !j->keyed);
	fputc('\n', j->out);
}

static void escaped(FILE *out, const unsigned char *b, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned c = b[i];
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc((int)c, out);
		}
	}
	fputc('"', out);
}

/* Before a value: the separator its place asks for. */
static void value(struct tui_json *j)
{
	if (j->keyed) {
		j->keyed = false;
		return;
	}
	if (j->depth == 0)
		return;
	CMC_ASSERT(!j->level[j->depth - 1].object); /* an object member needs a key */
	struct tui_json_level *l = &j->level[j->depth - 1];
	fputs(l->any ? l->between : l->first, j->out);
	l->any = true;
}

static void open(struct tui_json *j, char c, bool object, const char *first, const char *between)
{
	value(j);
	CMC_ASSERT(j->depth < TUI_JSON_DEPTH);
	j->level[j->depth++] = (struct tui_json_level){
		.object = object, .first = first, .between = between};
	fputc(c, j->out);
}

void tui_json_object(struct tui_json *j) { open(j, '{', true, "", ", "); }
void tui_json_array(struct tui_json *j) { open(j, '[', false, "", ", "); }
void tui_json_array_lines(struct tui_json *j) { open(j, '[', false, "\n  ", ",\n  "); }

void tui_json_array_sep(struct tui_json *j, const char *first, const char *between)
{
	open(j, '[', false, first, between);
}

void tui_json_end(struct tui_json *j)
{
	CMC_ASSERT(j->depth > 0 && !j->keyed);
	j->depth--;
	fputc(j->level[j->depth].object ? '}' : ']', j->out);
}

struct tui_json *tui_json_key(struct tui_json *j, const char *key)
{
	CMC_ASSERT(j->depth > 0 && j->level[j->depth - 1].object && !j->keyed);
	if (j->level[j->depth - 1].any)
		fputs(j->level[j->depth - 1].between, j->out);
	j->level[j->depth - 1].any = true;
	escaped(j->out, (const unsigned char *)key, strlen(key));
	fputs(": ", j->out);
	j->keyed = true;
	return j;
}

void tui_json_bytes(struct tui_json *j, const void *p, size_t n)
{
	value(j);
	escaped(j->out, p, n);
}

void tui_json_string(struct tui_json *j, const char *s)
{
	if (!s) {
		tui_json_null(j);
		return;
	}
	size_t n = 0;
	while (s[n])
		n++;
	tui_json_bytes(j, s, n);
}

void tui_json_u64(struct tui_json *j, uint64_t v)
{
	value(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void tui_json_i64(struct tui_json *j, int64_t v)
{
	value(j);
	fprintf(j->out, "%lld", (long long)v);
}

void tui_json_number(struct tui_json *j, const char *fmt, double v)
{
	value(j);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(j->out, fmt, v);
#pragma GCC diagnostic pop
}

void tui_json_bool(struct tui_json *j, bool v)
{
	value(j);
	fputs(v ? "true" : "false", j->out);
}

void tui_json_null(struct tui_json *j)
{
	value(j);
	fputs("null", j->out);
}

void tui_json_state(struct tui_json *j, uint32_t id)
{
	if (id == ENG_NO_STATE)
		tui_json_null(j);
	else
		tui_json_u64(j, id);
}

void tui_json_fp(struct tui_json *j, eng_fp fp)
{
	char hex[33];
	tui_json_string(j, eng_fp_zero(fp) ? NULL : eng_fp_hex(fp, hex));
}
