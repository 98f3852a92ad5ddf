/*
 * escape.c — untrusted bytes on their way to a terminal.  Nothing a target
 * wrote, and nothing named from outside cmc (file names, scenario lines,
 * trace labels, a database's strings), reaches the terminal as is except
 * printable ASCII: no escape sequence, no control byte, no invalid UTF-8
 * can take effect.
 *
 * Two layers.  tui_escape() writes bytes unambiguously (a backslash doubles,
 * so the text can be read back) where a caller prints data.  Beneath every
 * caller, tui_escape_streams() makes cmc's own stdout and stderr filters:
 * whatever a message quotes, the stream carries printable ASCII, '\n' and
 * '\t' only, every other byte as \xHH.  Error messages are built in many
 * places (the scenario parser, the store, the engine's warnings, sqlite);
 * the stream is the one place they all pass, so no call site has to
 * remember.  The progress line, the only escape sequence cmc means to send,
 * goes to tui_stderr_raw.  The workbench (ncurses) keeps the real stdout and
 * escapes in wb-draw.c instead.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "cmd.h"

FILE *tui_stderr_raw;

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
		fprintf(out, "...(%zu more byte%s)", n - lim, tui_s(n - lim));
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The filter under a stream: the cookie is the file descriptor.  Returns
 * n (every byte taken), or 0 on a write error (the stream's error flag). */
static ssize_t filter_write(void *cookie, const char *buf, size_t n)
{
	int fd = (int)(intptr_t)cookie;
	char out[4096];
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = (unsigned char)buf[i];
		if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
			out[o++] = (char)c;
		} else {
			static const char hex[] = "0123456789abcdef";
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
		if (o > sizeof out - 4) {
			if (write_all(fd, out, o) < 0)
				return 0;
			o = 0;
		}
	}
	if (o && write_all(fd, out, o) < 0)
		return 0;
	return (ssize_t)n;
}

static FILE *filtered(int fd, int mode)
{
	cookie_io_functions_t io = {.write = filter_write};
	FILE *f = fopencookie((void *)(intptr_t)fd, "w", io);
	if (f)
		setvbuf(f, NULL, mode, BUFSIZ);
	return f;
}

void tui_escape_streams(bool out_too)
{
	tui_stderr_raw = stderr;
	FILE *e = filtered(STDERR_FILENO, _IONBF);
	if (e)
		stderr = e;
	if (!out_too)
		return;
	fflush(stdout);
	FILE *o = filtered(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	if (o)
		stdout = o;
}
