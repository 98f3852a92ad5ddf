/*
 * escape.c — untrusted bytes on their way to a terminal.  Nothing a target
 * wrote reaches the terminal as is except printable ASCII: no escape
 * sequence, no control byte, no invalid UTF-8 can take effect.
 */
#include "cmd.h"

void tui_escape(FILE *out, const void *p, size_t n, size_t max)
{
	const unsigned char *b = p;
	size_t lim = n < max ? n : max;
	for (size_t i = 0; i < lim; i++) {
		unsigned c = b[i];
		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\\')
			fputs("\\\\", out);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc((int)c, out);
	}
	if (n > lim)
		fprintf(out, "...(%zu more bytes)", n - lim);
}
