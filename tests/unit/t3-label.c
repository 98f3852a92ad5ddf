/*
 * t3-label.c — the label escapers of viz/label.c: every byte 0..255 in,
 * only printable ASCII out; a plain label keeps no backslash escape that
 * Graphviz would expand; an HTML-like label keeps no markup; the cut at
 * `max` bytes is marked; and the escaped text survives a round trip through
 * cgraph (agmemread of a graph written by agwrite) unchanged.
 */
#include <graphviz/cgraph.h>
#include <stdlib.h>
#include <string.h>

#include "../../viz/internal.h" /* viz/ private: the escapers under test */
#include "tap.h"

static bool all_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* In a plain label every backslash must start a doubled pair, so Graphviz
 * shows it rather than reading \N, \G, \l, \n ... */
static bool backslashes_doubled(const char *s)
{
	for (; *s; s++)
		if (*s == '\\') {
			if (s[1] != '\\')
				return false;
			s++;
		}
	return true;
}

int main(void)
{
	unsigned char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;

	viz_buf b = {0};
	viz_label_bytes(&b, all, sizeof all, sizeof all);
	ok(all_printable(viz_buf_str(&b)), "plain: all 256 byte values come out printable ASCII");
	ok(backslashes_doubled(viz_buf_str(&b)), "plain: every backslash is doubled");
	ok(strstr(viz_buf_str(&b), "\\\\x1b") != NULL, "plain: ESC shows as \\x1b");
	ok(strstr(viz_buf_str(&b), "\\\\xff") != NULL, "plain: 0xff shows as \\xff");

	viz_buf h = {0};
	viz_html_bytes(&h, all, sizeof all, sizeof all);
	ok(all_printable(viz_buf_str(&h)), "html: all 256 byte values come out printable ASCII");
	ok(!strpbrk(viz_buf_str(&h), "<>\""), "html: no < > or \" survives");
	const char *amp = viz_buf_str(&h);
	bool ents = true;
	for (const char *p = strchr(amp, '&'); p; p = strchr(p + 1, '&'))
		ents &= strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
			strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&quot;", 6) == 0 ||
			strncmp(p, "&#39;", 5) == 0;
	ok(ents, "html: every & starts one of our entities");

	viz_buf c = {0};
	viz_label_bytes(&c, "abcdefgh", 8, 3);
	ok(strcmp(viz_buf_str(&c), "abc...") == 0, "a cut at max bytes is marked: '%s'", viz_buf_str(&c));
	viz_buf_reset(&c);
	viz_label_bytes(&c, "abc", 3, 3);
	ok(strcmp(viz_buf_str(&c), "abc") == 0, "no mark when nothing is cut");
	viz_buf_reset(&c);
	viz_label_bytes(&c, NULL, 0, 10);
	ok(strcmp(viz_buf_str(&c), "") == 0, "empty input, empty label");

	/* Round trip: a node labelled with the escaped bytes, written and read
	 * back by cgraph, has the same label. */
	Agraph_t *g = agopen("t", Agdirected, NULL);
	Agnode_t *n = agnode(g, "s0", 1);
	agsafeset(n, "label", (char *)viz_buf_str(&b), "");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	agwrite(g, f);
	fclose(f);
	Agraph_t *back = agmemread(text);
	ok(back != NULL, "the written graph parses");
	Agnode_t *n2 = back ? agnode(back, "s0", 0) : NULL;
	ok(n2 && strcmp(agget(n2, "label"), viz_buf_str(&b)) == 0, "the label reads back unchanged");
	if (back)
		agclose(back);
	agclose(g);
	free(text);
	viz_buf_free(&b);
	viz_buf_free(&h);
	viz_buf_free(&c);
	return tap_done();
}
