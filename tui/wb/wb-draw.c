/*
 * wb-draw.c — drawing helpers the workbench's views share: the one escaping
 * function every untrusted byte passes through before it reaches ncurses,
 * padded rows, wrapped rows, colour pairs with a monochrome fallback
 * (NO_COLOR, terminals without colour) and the marks beside a state.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wb-text.h"
#include "wb.h"

int wb_attr(struct wb *wb, int pair)
{
	if (wb->color)
		return COLOR_PAIR(pair) | (pair == WB_C_HDR || pair == WB_C_BAD || pair == WB_C_FAULT ? A_BOLD : 0);
	switch (pair) {
	case WB_C_HDR: return A_REVERSE;
	case WB_C_STATUS: return A_REVERSE;
	case WB_C_BAD: return A_BOLD;
	case WB_C_DIFF: return A_REVERSE;
	case WB_C_ERR: return A_BOLD;
	case WB_C_FAULT: return A_BOLD | A_UNDERLINE;
	default: return A_NORMAL;
	}
}

char *wb_escape(char *dst, size_t dstlen, const void *src, size_t n)
{
	const unsigned char *b = src;
	size_t o = 0;
	bool cut = false;
	if (dstlen == 0)
		return dst;
	for (size_t i = 0; i < n; i++) {
		char tmp[5];
		unsigned c = b[i];
		if (c == '\n')
			strcpy(tmp, "\\n");
		else if (c == '\t')
			strcpy(tmp, "\\t");
		else if (c == '\\')
			strcpy(tmp, "\\\\");
		else if (c < 0x20 || c >= 0x7f)
			snprintf(tmp, sizeof tmp, "\\x%02x", c);
		else {
			tmp[0] = (char)c;
			tmp[1] = 0;
		}
		size_t k = strlen(tmp);
		if (o + k > dstlen - 1) {
			cut = true;
			break;
		}
		memcpy(dst + o, tmp, k);
		o += k;
	}
	if (cut && dstlen >= 4) {
		if (o > dstlen - 4)
			o = dstlen - 4;
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = 0;
	return dst;
}

int wb_state_attr(struct wb *wb, int status, bool initial, bool selected)
{
	int a = status == STORE_VIOLATION ? wb_attr(wb, WB_C_BAD)
		: status == STORE_FAULT   ? wb_attr(wb, WB_C_FAULT)
		: initial                 ? wb_attr(wb, WB_C_INIT)
					  : (int)A_NORMAL;
	return selected ? a | (int)A_REVERSE : a;
}

char wb_state_mark(int status)
{
	return status == STORE_VIOLATION ? WB_MARK_VIOLATION : status == STORE_FAULT ? WB_MARK_FAULT : ' ';
}

static int wrap_lines(int cols, const char *lead, const char *text, struct wb_text_line *l, int max)
{
	size_t ll = strlen(lead);
	size_t width = cols > (int)ll + 8 ? (size_t)cols - ll : 8;
	return (int)wb_text_wrap(text, width, l, (size_t)max);
}

int wb_wrap_count(int maxrows, int cols, const char *lead, const char *text)
{
	struct wb_text_line l[64];
	if (maxrows <= 0)
		return 0;
	return wrap_lines(cols, lead, text, l, maxrows < 64 ? maxrows : 64);
}

int wb_wrap_rows(WINDOW *w, int y, int maxrows, int cols, int attr, const char *lead, const char *text)
{
	struct wb_text_line l[64];
	if (maxrows <= 0)
		return 0;
	int n = wrap_lines(cols, lead, text, l, maxrows < 64 ? maxrows : 64);
	int ll = (int)strlen(lead);
	for (int i = 0; i < n; i++)
		wb_row(w, y + i, cols, attr, "%-*s%.*s", ll, i == 0 ? lead : "", (int)l[i].len,
		       text + l[i].start);
	return n;
}

void wb_row(WINDOW *w, int y, int cols, int attr, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* Trusted text only reaches here, but stay defensive: no control bytes. */
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	size_t n = strlen(line);
	if (cols <= 0)
		return;
	if (n > (size_t)cols)
		n = (size_t)cols;
	wattrset(w, attr);
	mvwaddnstr(w, y, 0, line, (int)n);
	for (int x = (int)n; x < cols; x++)
		mvwaddch(w, y, x, ' ');
	wattrset(w, A_NORMAL);
}

char *wb_fp_short(eng_fp fp, char buf[16])
{
	if (eng_fp_zero(fp)) {
		strcpy(buf, "-");
		return buf;
	}
	char hex[33];
	eng_fp_hex(fp, hex);
	memcpy(buf, hex, 12);
	buf[12] = 0;
	return buf;
}

const char *wb_status_name(int status)
{
	switch (status) {
	case STORE_OK: return "ok";
	case STORE_VIOLATION: return "VIOLATION";
	case STORE_FAULT: return "FAULT";
	default: return "?";
	}
}
