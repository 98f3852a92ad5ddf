/*
 * svgfit.c — does the text of a Graphviz SVG fit its boxes when another
 * renderer draws it?  Graphviz sizes boxes with its own font metrics; a
 * viewer (rsvg, a browser) draws the text with whatever font it resolves,
 * and the text can spill out.  This helper measures what the second
 * renderer really drew:
 *
 *   svgfit prep IN.svg OUT.svg   OUT holds only IN's non-blank <text>
 *                                elements, in IN's coordinates, each
 *                                filled with its own colour (its index + 1)
 *   rsvg-convert -f svg OUT.svg > R.svg
 *                                (cairo writes each text as one filled path)
 *   svgfit check IN.svg R.svg    reads the ink box of each text back from
 *                                R.svg (by colour) and checks, for IN:
 *     - the text of a node lies inside the smallest shape of that node that
 *       holds its anchor (a box, an HTML table cell or the table);
 *     - a cluster's title lies inside the cluster's box, and no edge of the
 *       picture passes through the title;
 *     - the caption lies inside the picture.
 *   Each problem is printed as one line; exit 1 when there is one, 2 when a
 *   file does not read as expected.
 *
 * Only the subset of SVG that Graphviz and cairo write is understood:
 * <g class=...>, <polygon points>, <path d> (absolute M, C, L, Z), <ellipse>,
 * <text> on one element.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 0.5 /* ink may come this close to a box edge (user units) */

typedef struct box {
	double x0, y0, x1, y1;
} box;

enum { G_NONE, G_GRAPH, G_NODE, G_CLUSTER, G_EDGE };

typedef struct shape {
	int group;                 /* index of its class group */
	int kind;                  /* G_* of that group */
	box b;
	double *pt;                /* its points (a path's: M p0 C p1 p2 p3 ...) */
	size_t npt;
	int is_path;
} shape;

typedef struct text {
	int group, kind;
	double x, y, size;
	char *attrs;               /* the element's attributes, verbatim */
	char *body;                /* its content, verbatim (escaped) */
	box ink;
	int have_ink;
} text;

static shape *shapes;
static size_t nshapes;
static text *texts;
static size_t ntexts;
static double tr_s = 1, tr_x, tr_y; /* the graph group's transform */
static char viewbox[128], transform[128];

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "svgfit: cannot read %s\n", path);
		exit(2);
	}
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	size_t k;
	while ((k = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap)
			s = realloc(s, cap *= 2);
	}
	s[n] = 0;
	fclose(f);
	return s;
}

/* The value of attribute `name` in the tag text [p, end), copied into out. */
static int attr(const char *p, const char *end, const char *name, char *out, size_t outlen)
{
	size_t k = strlen(name);
	for (const char *q = p; q + k + 2 < end; q++) {
		if ((q == p || isspace((unsigned char)q[-1])) && strncmp(q, name, k) == 0 && q[k] == '=' &&
		    (q[k + 1] == '"' || q[k + 1] == '\'')) {
			char quote = q[k + 1];
			const char *v = q + k + 2, *e = memchr(v, quote, (size_t)(end - v));
			if (!e)
				return 0;
			size_t n = (size_t)(e - v) < outlen - 1 ? (size_t)(e - v) : outlen - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return 1;
		}
	}
	return 0;
}

/* Every number in s, as (x, y) pairs. */
static double *numbers(const char *s, size_t *npt)
{
	size_t cap = 64, n = 0;
	double *v = malloc(cap * sizeof *v);
	while (*s) {
		if (isdigit((unsigned char)*s) || ((*s == '-' || *s == '.') && s[1] && (isdigit((unsigned char)s[1]) || s[1] == '.'))) {
			char *e;
			double d = strtod(s, &e);
			if (e == s) {
				s++;
				continue;
			}
			if (n == cap)
				v = realloc(v, (cap *= 2) * sizeof *v);
			v[n++] = d;
			s = e;
		} else {
			s++;
		}
	}
	*npt = n / 2;
	return v;
}

static box bounds(const double *pt, size_t n)
{
	box b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < n; i++) {
		b.x0 = fmin(b.x0, pt[2 * i]);
		b.x1 = fmax(b.x1, pt[2 * i]);
		b.y0 = fmin(b.y0, pt[2 * i + 1]);
		b.y1 = fmax(b.y1, pt[2 * i + 1]);
	}
	return b;
}

static void add_shape(int group, int kind, double *pt, size_t n, int is_path)
{
	if (!n) {
		free(pt);
		return;
	}
	shapes = realloc(shapes, (nshapes + 1) * sizeof *shapes);
	shapes[nshapes++] = (shape){group, kind, bounds(pt, n), pt, n, is_path};
}

/* Graphviz's SVG: the groups, their shapes and texts. */
static void read_graphviz(const char *path)
{
	char *s = slurp(path);
	int stack_kind[64], stack_group[64], depth = 0, groups = 0;
	stack_kind[0] = G_NONE;
	stack_group[0] = -1;
	char v[1 << 16];
	for (char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
		char *end = strchr(p, '>');
		if (!end)
			break;
		int kind = depth ? stack_kind[depth] : G_NONE, group = depth ? stack_group[depth] : -1;
		if (strncmp(p, "<svg", 4) == 0) {
			attr(p, end, "viewBox", viewbox, sizeof viewbox);
		} else if (strncmp(p, "<g ", 3) == 0 || strncmp(p, "<g>", 3) == 0) {
			if (depth + 1 >= 64)
				exit(2);
			if (attr(p, end, "class", v, sizeof v)) {
				kind = strcmp(v, "graph") == 0 ? G_GRAPH : strcmp(v, "node") == 0 ? G_NODE
					: strcmp(v, "cluster") == 0 ? G_CLUSTER : strcmp(v, "edge") == 0 ? G_EDGE : kind;
				group = groups++;
				if (kind == G_GRAPH && attr(p, end, "transform", transform, sizeof transform)) {
					char *q = strstr(transform, "scale(");
					if (q)
						tr_s = strtod(q + 6, NULL);
					q = strstr(transform, "translate(");
					if (q)
						sscanf(q + 10, "%lf %lf", &tr_x, &tr_y);
				}
			}
			depth++;
			stack_kind[depth] = kind;
			stack_group[depth] = group;
		} else if (strncmp(p, "</g", 3) == 0) {
			if (depth)
				depth--;
		} else if (strncmp(p, "<polygon", 8) == 0 && attr(p, end, "points", v, sizeof v)) {
			size_t n;
			double *pt = numbers(v, &n);
			add_shape(group, kind, pt, n, 0);
		} else if (strncmp(p, "<path", 5) == 0 && attr(p, end, "d", v, sizeof v)) {
			size_t n;
			double *pt = numbers(v, &n);
			add_shape(group, kind, pt, n, 1);
		} else if (strncmp(p, "<ellipse", 8) == 0) {
			char cx[32], cy[32], rx[32], ry[32];
			if (attr(p, end, "cx", cx, 32) && attr(p, end, "cy", cy, 32) && attr(p, end, "rx", rx, 32) &&
			    attr(p, end, "ry", ry, 32)) {
				double *pt = malloc(4 * sizeof *pt);
				pt[0] = atof(cx) - atof(rx), pt[1] = atof(cy) - atof(ry);
				pt[2] = atof(cx) + atof(rx), pt[3] = atof(cy) + atof(ry);
				add_shape(group, kind, pt, 2, 0);
			}
		} else if (strncmp(p, "<text", 5) == 0) {
			char *close = strstr(end, "</text>");
			if (!close)
				break;
			char x[32] = "0", y[32] = "0", size[32] = "14";
			attr(p, end, "x", x, 32);
			attr(p, end, "y", y, 32);
			attr(p, end, "font-size", size, 32);
			texts = realloc(texts, (ntexts + 1) * sizeof *texts);
			text *t = &texts[ntexts++];
			memset(t, 0, sizeof *t);
			t->group = group;
			t->kind = kind;
			t->x = atof(x), t->y = atof(y), t->size = atof(size);
			t->attrs = strndup(p + 5, (size_t)(end - p - 5));
			t->body = strndup(end + 1, (size_t)(close - end - 1));
			p = close;
		}
	}
	free(s);
}

static int blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s) && strncmp(s, "&#160;", 6) != 0)
			return 0;
		else if (*s == '&')
			s += 5;
	return 1;
}

static void prep(const char *out)
{
	FILE *f = fopen(out, "w");
	if (!f)
		exit(2);
	double vb[4] = {0, 0, 1000, 1000};
	sscanf(viewbox, "%lf %lf %lf %lf", &vb[0], &vb[1], &vb[2], &vb[3]);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"%s\">\n"
		   "<g transform=\"%s\">\n",
		vb[2], vb[3], viewbox, transform);
	for (size_t i = 0; i < ntexts; i++) {
		text *t = &texts[i];
		if (blank(t->body))
			continue;
		/* the element as Graphviz wrote it, its fill replaced by the
		 * index colour */
		char *a = strdup(t->attrs), *fill = strstr(a, " fill=\"");
		if (fill) {
			char *e = strchr(fill + 7, '"');
			memset(fill, ' ', (size_t)(e - fill + 1));
		}
		unsigned c = (unsigned)i + 1;
		fprintf(f, "<text%s fill=\"#%06x\">%s</text>\n", a, c, t->body);
		free(a);
	}
	fprintf(f, "</g>\n</svg>\n");
	fclose(f);
}

/* cairo's SVG: each path's fill colour names a text; its points give the ink. */
static void read_rendered(const char *path)
{
	char *s = slurp(path);
	for (char *p = strstr(s, "<path"); p; p = strstr(p + 1, "<path")) {
		char *end = strchr(p, '>');
		if (!end)
			break;
		char *d = strstr(p, " d=\"");
		char *fill = strstr(p, "fill:rgb(");
		if (!d || !fill || d > end || fill > end)
			continue;
		double r, g, b;
		if (sscanf(fill + 9, "%lf%%,%lf%%,%lf%%", &r, &g, &b) != 3)
			continue;
		unsigned c = (unsigned)lround(r * 2.55) << 16 | (unsigned)lround(g * 2.55) << 8 |
			     (unsigned)lround(b * 2.55);
		if (c == 0 || c > ntexts)
			continue;
		char *de = strchr(d + 4, '"');
		*de = 0;
		size_t n;
		double *pt = numbers(d + 4, &n);
		*de = '"';
		for (size_t i = 0; i < n; i++) { /* back into the graph's coordinates */
			pt[2 * i] = pt[2 * i] / tr_s - tr_x;
			pt[2 * i + 1] = pt[2 * i + 1] / tr_s - tr_y;
		}
		text *t = &texts[c - 1];
		box b0 = bounds(pt, n);
		if (t->have_ink) {
			t->ink.x0 = fmin(t->ink.x0, b0.x0), t->ink.y0 = fmin(t->ink.y0, b0.y0);
			t->ink.x1 = fmax(t->ink.x1, b0.x1), t->ink.y1 = fmax(t->ink.y1, b0.y1);
		} else if (n) {
			t->ink = b0;
			t->have_ink = 1;
		}
		free(pt);
	}
	free(s);
}

static int inside(box in, box out, double m)
{
	return in.x0 >= out.x0 + m && in.x1 <= out.x1 - m && in.y0 >= out.y0 + m && in.y1 <= out.y1 - m;
}

static double area(box b) { return (b.x1 - b.x0) * (b.y1 - b.y0); }

static int problems;

static void report(const text *t, const char *what, box b)
{
	problems++;
	char body[96];
	snprintf(body, sizeof body, "%s", t->body);
	printf("\"%s\" (%.1f,%.1f)-(%.1f,%.1f) %s (%.1f,%.1f)-(%.1f,%.1f)\n", body, t->ink.x0, t->ink.y0,
	       t->ink.x1, t->ink.y1, what, b.x0, b.y0, b.x1, b.y1);
}

/* Does the cubic Bezier path pt (M p0 C p1 p2 p3 ...) enter box b? */
static int path_enters(const double *pt, size_t n, box b)
{
	for (size_t k = 0; k + 3 < n; k += 3) {
		const double *p = pt + 2 * k;
		for (int i = 0; i <= 32; i++) {
			double u = i / 32.0, a = (1 - u) * (1 - u) * (1 - u), bb = 3 * u * (1 - u) * (1 - u),
			       c = 3 * u * u * (1 - u), d = u * u * u;
			double x = a * p[0] + bb * p[2] + c * p[4] + d * p[6];
			double y = a * p[1] + bb * p[3] + c * p[5] + d * p[7];
			if (x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1)
				return 1;
		}
	}
	return 0;
}

static void check(void)
{
	for (size_t i = 0; i < ntexts; i++) {
		text *t = &texts[i];
		if (blank(t->body))
			continue;
		if (!t->have_ink) {
			problems++;
			printf("\"%.60s\": the second renderer drew nothing for it\n", t->body);
			continue;
		}
		if (t->kind == G_EDGE)
			continue; /* edge labels float beside their edge */
		/* the anchor: on the baseline, a third of the size up */
		double ax = t->x, ay = t->y - t->size / 3;
		const shape *best = NULL;
		for (size_t k = 0; k < nshapes; k++) {
			const shape *s = &shapes[k];
			if (s->group != t->group)
				continue;
			if (ax < s->b.x0 || ax > s->b.x1 || ay < s->b.y0 || ay > s->b.y1)
				continue;
			if (!best || area(s->b) < area(best->b))
				best = s;
		}
		if (!best) {
			problems++;
			printf("\"%.60s\": no box of its own holds it\n", t->body);
			continue;
		}
		if (!inside(t->ink, best->b, MARGIN))
			report(t, "spills out of", best->b);
		if (t->kind != G_CLUSTER)
			continue;
		for (size_t k = 0; k < nshapes; k++)
			if (shapes[k].kind == G_EDGE && shapes[k].is_path && shapes[k].npt >= 4 &&
			    path_enters(shapes[k].pt, shapes[k].npt, t->ink))
				report(t, "is crossed by an edge, in", shapes[k].b);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "prep") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: svgfit prep IN.svg OUT.svg | svgfit check IN.svg RENDERED.svg\n");
		return 2;
	}
	read_graphviz(argv[2]);
	if (!ntexts) {
		fprintf(stderr, "svgfit: %s: no text\n", argv[2]);
		return 2;
	}
	if (strcmp(argv[1], "prep") == 0) {
		prep(argv[3]);
		return 0;
	}
	read_rendered(argv[3]);
	check();
	return problems ? 1 : 0;
}
