/*
 * render.c — the renderer core: owns the process's one gvContext, picks the
 * output format from the file name, lays a cgraph graph out and renders it.
 * The caller builds and closes the graph; this file never sees the store.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

#ifdef __SANITIZE_ADDRESS__
/*
 * Graphviz 2.42 and the font stack under its renderers keep allocations
 * for the life of the process (gvconfig's plugin table inside gvContext,
 * HTML-label parse buffers, fontconfig and pango caches, some freed by no
 * API).  LeakSanitizer would fail every sanitized run that renders; leaks
 * allocated from inside those libraries are theirs, so they are suppressed
 * here, in every program that links the renderer.  Leaks with only our
 * frames are still reported.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\n"
	       "leak:libgvplugin_\n"
	       "leak:libfontconfig.so\n"
	       "leak:libpango\n"
	       "leak:libcairo.so\n"
	       "leak:libglib-2.0.so\n"
	       "leak:libgobject-2.0.so\n"
	       "leak:libharfbuzz.so\n";
}
#endif

viz *viz_new(void)
{
	viz *v = eng_xcalloc(1, sizeof *v);
	/* Warnings (a label too wide, overlaps) would reach the user's
	 * terminal from deep inside a layout; only errors do. */
	agseterr(AGERR);
	v->gvc = gvContext();
	if (!v->gvc)
		eng_die("cmc: Graphviz could not start (gvContext failed)");
	return v;
}

void viz_free(viz *v)
{
	if (!v)
		return;
	gvFreeContext(v->gvc);
	free(v);
}

const char *viz_format_of(const char *path)
{
	static const char *const ext[][2] = {
		{".svg", "svg"}, {".png", "png"}, {".pdf", "pdf"}, {".dot", "dot"}, {".gv", "dot"},
	};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		size_t k = strlen(ext[i][0]);
		if (n > k && strcasecmp(path + n - k, ext[i][0]) == 0)
			return ext[i][1];
	}
	return NULL;
}

void viz_set(void *obj, const char *name, const char *value, const char *dflt)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)dflt);
}

void viz_fonts(Agraph_t *g)
{
	viz_set(g, "fontname", VIZ_FONT, "");
	agattr(g, AGNODE, "fontname", VIZ_FONT);
	agattr(g, AGNODE, "fontsize", "10");
	agattr(g, AGEDGE, "fontname", VIZ_FONT);
	agattr(g, AGEDGE, "fontsize", "9");
}

/*
 * Every text run of an HTML-like label (the text between two tags) gets
 * a margin: one space per PAD_CHARS characters on either side, at least
 * one.  Graphviz counts them when it sizes the cell (SVG viewers drop them
 * when they draw, and they stay ASCII in the file); a renderer whose
 * text comes out a few percent wider than Graphviz measured (another
 * rasteriser, hinting, a fallback font) then still draws inside the cell.
 * Left-aligned text (its cell ALIGN="LEFT", or its line ended by
 * <BR ALIGN="LEFT"/>) grows to the right only, so it needs the margin on
 * that side alone; other text gets it on both.  Blank runs (swatch cells)
 * are left alone.
 */
#define PAD_CHARS 24
static void pad(viz_buf *b, size_t chars)
{
	for (size_t i = 0; i < 1 + chars / PAD_CHARS; i++)
		viz_buf_add(b, " ");
}

static void pad_runs(viz_buf *out, const char *html)
{
	const char *p = html;
	bool cell_left = false;
	while (*p) {
		if (*p == '<') {
			const char *e = strchr(p, '>');
			size_t n = e ? (size_t)(e - p + 1) : strlen(p);
			if (strncmp(p, "<TD", 3) == 0) {
				const char *a = strstr(p, "ALIGN=\"LEFT\"");
				cell_left = a && a < p + n;
			}
			viz_buf_addf(out, "%.*s", (int)n, p);
			p += n;
			continue;
		}
		size_t n = strcspn(p, "<"), chars = 0;
		bool blank = true;
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '&') { /* an entity is one character */
				const char *semi = memchr(p + i, ';', n - i);
				if (semi)
					i = (size_t)(semi - p);
			}
			blank &= p[i] == ' ';
			chars++;
		}
		bool left = cell_left || strncmp(p + n, "<BR ALIGN=\"LEFT\"", 16) == 0;
		if (!blank && !left)
			pad(out, chars);
		viz_buf_addf(out, "%.*s", (int)n, p);
		if (!blank)
			pad(out, chars);
		p += n;
	}
}

void viz_set_html(Agraph_t *g, void *obj, const char *name, const char *html)
{
	viz_buf padded = {0};
	pad_runs(&padded, html);
	char *h = agstrdup_html(g, (char *)viz_buf_str(&padded));
	viz_buf_free(&padded);
	agsafeset(obj, (char *)name, h, "");
	agstrfree(g, h);
}

int viz_render(viz *v, Agraph_t *g, const char *engine, const char *path, char *err, size_t errlen)
{
	const char *fmt = viz_format_of(path);
	if (!fmt) {
		snprintf(err, errlen, "%s: expected a file name ending in .svg, .png, .pdf or .dot", path);
		return -1;
	}
	/* Fail on an unwritable path before spending time on a layout. */
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	agattr(g, AGRAPH, "layout", (char *)engine);
	if (strcmp(fmt, "dot") == 0) {
		/* The graph itself, as cgraph writes it; the layout attribute says
		 * which engine cmc would use. */
		int rc = agwrite(g, f);
		if (fclose(f) != 0 || rc != 0) {
			snprintf(err, errlen, "%s: write failed", path);
			return -1;
		}
		return 0;
	}
	fclose(f);
	if (gvLayout(v->gvc, g, engine) != 0) {
		snprintf(err, errlen, "Graphviz layout '%s' failed (is its plugin installed?)", engine);
		return -1;
	}
	int rc = gvRenderFilename(v->gvc, g, fmt, path);
	gvFreeLayout(v->gvc, g);
	if (rc != 0) {
		snprintf(err, errlen, "%s: Graphviz could not render %s here", path, fmt);
		return -1;
	}
	return 0;
}
