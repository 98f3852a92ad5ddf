/*
 * json.c — JSON strings for --json output.  Labels and messages may carry
 * target bytes, so every byte outside printable ASCII is escaped: the output
 * is valid JSON (and plain ASCII) whatever the target wrote.
 */
#include "cmd.h"

void tui_json_bytes(FILE *out, const void *p, size_t n)
{
	const unsigned char *b = p;
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

void tui_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	size_t n = 0;
	while (s[n])
		n++;
	tui_json_bytes(out, s, n);
}
