/*
 * internal.h — what viz/'s files share and nobody else sees: the growable
 * text buffer labels are built in, the escapers for untrusted bytes, the
 * renderer core (format by extension, layout, render) and the legend.
 */
#ifndef CMC_VIZ_INTERNAL_H
#define CMC_VIZ_INTERNAL_H

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "viz.h"

struct viz {
	GVC_t *gvc;                /* the process's one gvContext */
};

/* A NUL-terminated growing string.  Invariant: s[len] == 0, len < cap
 * (s may be NULL while cap == 0). */
typedef struct viz_buf {
	char *s;
	size_t len, cap;
} viz_buf;

void viz_buf_add(viz_buf *b, const char *s);
void viz_buf_addf(viz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *viz_buf_str(viz_buf *b); /* "" when empty */
void viz_buf_reset(viz_buf *b);
void viz_buf_free(viz_buf *b);

/*
 * label.c: untrusted bytes into a label.  At most `max` input bytes are
 * shown, then "..." .  Only printable ASCII passes; every other byte
 * (control bytes, invalid or valid UTF-8, DEL) becomes \xHH shown literally.
 *
 * Plain labels (viz_label_bytes): Graphviz reads backslash escapes (\n, \l,
 * \N, \G ...) in them, so a backslash is doubled and shown as one; quotes
 * are quoted by cgraph when it writes DOT.
 * HTML-like labels (viz_html_bytes): & < > " ' become entities, and no
 * backslash escape applies there.
 */
void viz_label_bytes(viz_buf *b, const void *p, size_t n, size_t max);
void viz_html_bytes(viz_buf *b, const void *p, size_t n, size_t max);
static inline void viz_html_str(viz_buf *b, const char *s, size_t max)
{
	viz_html_bytes(b, s, s ? __builtin_strlen(s) : 0, max);
}
static inline void viz_label_str(viz_buf *b, const char *s, size_t max)
{
	viz_label_bytes(b, s, s ? __builtin_strlen(s) : 0, max);
}

/*
 * select.c: the states and transitions a picture shows.
 * Invariants: states[] ascending by id, no duplicates; pos[id] == i + 1
 * exactly when states[i].id == id, else 0 (pos has n_total entries); every
 * edge in edges[] has both ends selected; out_left[i] counts the
 * transitions of states[i] that lead outside the selection.
 */
typedef struct viz_sel {
	store *st;
	int64_t run;
	uint32_t n_total;          /* states stored in the run */
	store_state *states;
	size_t n, cap;
	uint32_t *pos;
	store_edge *edges;
	size_t n_edges, cap_edges;
	uint32_t *out_left;
} viz_sel;

int viz_sel_init(viz_sel *s, store *st, int64_t run, uint32_t n_total);
void viz_sel_free(viz_sel *s);
/* Add states by id (ignored when already selected or out of range). */
int viz_sel_add(viz_sel *s, uint32_t id);
/* Every state of depth <= max_depth (0: every state). */
int viz_sel_add_depth(viz_sel *s, uint32_t max_depth);
/* States within `radius` steps of `id` along transitions either way, at most
 * `cap` states; *cut says whether the cap stopped it. */
int viz_sel_add_around(viz_sel *s, uint32_t id, uint32_t radius, size_t cap, bool *cut);
/* Sort the states and load the transitions among them. */
int viz_sel_finish(viz_sel *s, bool whole_run);

/*
 * graph.c, summary.c: the graphs a picture can be.  Each returns a new
 * cgraph graph (caller renders and agcloses it) with its legend, fills the
 * counts in res, and leaves the caption to the caller.
 */
typedef struct viz_draw {
	const store_trace *trace;  /* highlight this path, or NULL */
	bool clusters;             /* one cluster per canonical state */
	bool edge_labels;          /* operation labels on edges (off for sfdp) */
} viz_draw;
Agraph_t *viz_build_states(viz_sel *sel, const viz_draw *d, viz_result *res);
/* One node per BFS level (levels banded when there are more than `budget`). */
Agraph_t *viz_build_levels(store *st, int64_t run, const uint64_t *counts, uint32_t maxdepth,
			   uint32_t budget, viz_result *res);
/* One node per canonical state; NULL (and *too_many set) when there are more
 * than max_groups of them; NULL with *too_many false on a store error. */
Agraph_t *viz_build_collapsed(store *st, int64_t run, uint32_t n_total, size_t max_groups,
			      bool *too_many, viz_result *res);
/* A short summary of a state's identity for labels: the canonical record
 * when there is one, else a fingerprint prefix (escaped, plain label). */
void viz_state_summary(store *st, const store_state *s, viz_buf *out, bool html);

/* render.c: the Graphviz format for `path` ("svg", "png", "pdf", "dot"), or
 * NULL when its extension is none of these. */
const char *viz_format_of(const char *path);
/* Lay `g` out with `engine` and render it to `path` (a .dot file is written
 * by cgraph without layout).  Does not close `g`.  0 or -1 with err. */
int viz_render(viz *v, Agraph_t *g, const char *engine, const char *path, char *err, size_t errlen);
/*
 * The font of every label, set on the graph, its nodes and edges.  Boxes
 * are sized by Graphviz's measure of the text; a viewer draws the text with
 * the font it resolves from the SVG's font-family.  Naming one font that
 * Debian's Graphviz installs with it (fonts-dejavu-core) makes the measure
 * and the drawing agree wherever DejaVu is present; DejaVu Sans is wider
 * than the usual fallbacks (Helvetica, Arial, Liberation Sans), so a box
 * measured with it also holds the text drawn with those.  Renderers still
 * differ by a few percent (hinting), so HTML labels keep a margin
 * (viz_set_html) and plain ones Graphviz's node margin.
 */
#define VIZ_FONT "DejaVu Sans"
void viz_fonts(Agraph_t *g);

/* agsafeset with const strings. */
void viz_set(void *obj, const char *name, const char *value, const char *dflt);
/* An HTML-like label (the text must already be escaped HTML); each text
 * run gets a margin of spaces (render.c). */
void viz_set_html(Agraph_t *g, void *obj, const char *name, const char *html);

/* legend.c: the legend node (name "legend") explaining node and edge
 * styles; `what` lists the styles used (VIZ_LEG_* bits). */
enum {
	VIZ_LEG_STATES = 1u << 0,
	VIZ_LEG_TRACE = 1u << 1,
	VIZ_LEG_CLUSTERS = 1u << 2,
	VIZ_LEG_COLLAPSED = 1u << 3,
	VIZ_LEG_LEVELS = 1u << 4,
	VIZ_LEG_HEAP = 1u << 5,
	VIZ_LEG_MARKS = 1u << 6,   /* the state colours alone (initial, violation, fault) */
};
void viz_legend(Agraph_t *g, unsigned what);
/* The caption under the picture: escaped here (plain text in, any bytes). */
void viz_caption(Agraph_t *g, const char *text);

/* Colours shared by the graph and the legend. */
#define VIZ_C_VIOLATION "#f4cccc"
#define VIZ_C_VIOLATION_EDGE "#cc0000"
#define VIZ_C_FAULT "#fce5cd"
#define VIZ_C_FAULT_EDGE "#e69138"
#define VIZ_C_TRACE "#d00000"
#define VIZ_C_BACK "#3465a4"
#define VIZ_C_SEEN "#888888"
#define VIZ_C_INIT "#d9ead3"
#define VIZ_C_LIVE "#93c47d"
#define VIZ_C_FREE "#ffffff"
#define VIZ_C_POISON "#b4a7d6"
#define VIZ_C_BROKEN "#cc0000"   /* free slot whose poison was written */
#define VIZ_C_OVERRUN "#e69138"  /* live slot whose redzone was written */
#define VIZ_C_UNKNOWN "#cccccc"  /* slot bytes outside the stored window */

#endif
