/*
 * view-graph.c — the neighbourhood of the current state drawn in the
 * terminal (the edges into it on the left, out of it on the right; Enter
 * moves along the selected edge), and the `w` key that renders a picture
 * through viz/: this neighbourhood, the open counterexample, the raw-vs-
 * canonical clusters or the allocator, depending on the view.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "viz/viz.h"
#include "cli/cmd.h"
#include "wb.h"

static struct {
	struct wb_list l;
	uint32_t id;
	store_edge *in, *out;
	size_t nin, nout;
	int *status;      /* [nin + nout]: the status of the state at each edge's other end */
	int self;         /* the current state's status */
} V = {.id = ENG_NO_STATE};

static int status_of(struct wb *wb, uint32_t id)
{
	store_state s;
	if (store_state_get(wb->st, wb->run, id, &s) != 0)
		return STORE_OK;
	int st = s.status;
	store_state_clear(&s);
	return st;
}

static void graph_load(struct wb *wb)
{
	store_edges_free(V.in, V.nin);
	store_edges_free(V.out, V.nout);
	V.in = V.out = NULL;
	V.nin = V.nout = 0;
	if (V.id != wb->cur)
		V.l.cur = V.l.top = 0;
	V.id = wb->cur;
	if (V.id == ENG_NO_STATE)
		return;
	wb_lock(wb);
	store_predecessors(wb->st, wb->run, V.id, &V.in, &V.nin);
	store_successors(wb->st, wb->run, V.id, &V.out, &V.nout);
	free(V.status);
	V.status = calloc(V.nin + V.nout + 1, sizeof *V.status);
	V.self = status_of(wb, V.id);
	for (size_t i = 0; V.status && i < V.nin + V.nout; i++)
		V.status[i] = status_of(wb, i < V.nin ? V.in[i].from : V.out[i - V.nin].to);
	wb_unlock(wb);
	V.l.n = V.nin + V.nout;
}

static void graph_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (V.id != wb->cur)
		graph_load(wb);
	if (V.id == ENG_NO_STATE) {
		wb_row(w, 0, cols, A_NORMAL, "no current state");
		return;
	}
	char self[3] = {wb_state_mark(V.self), ' ', 0};
	wb_row(w, 0, cols, A_BOLD | (V.self != STORE_OK ? wb_state_attr(wb, V.self, false, false) : 0),
	       "%sneighbourhood of state %u%s: %zu edge%s in, %zu out  (w: render to SVG)",
	       V.self == STORE_OK ? "" : self, V.id,
	       V.self == STORE_OK ? "" : V.self == STORE_VIOLATION ? " (VIOLATION)" : " (FAULT)", V.nin,
	       tui_s(V.nin), V.nout);
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 1; i < V.l.n && y < (size_t)rows; i++, y++) {
		bool in = i < V.nin;
		store_edge *e = in ? &V.in[i] : &V.out[i - V.nin];
		char lab[48];
		wb_escape(lab, sizeof lab, e->label ? e->label : "", e->label ? strlen(e->label) : 0);
		int st = V.status ? V.status[i] : STORE_OK;
		int attr = wb_state_attr(wb, st, false, i == V.l.cur);
		char mark = wb_state_mark(st);
		if (in)
			wb_row(w, (int)y, cols, attr, "%c%7u --%s--> [%u]%s", mark, e->from, lab, V.id,
			       e->new_state ? "  (tree edge)" : "");
		else
			wb_row(w, (int)y, cols, attr, "%c%7s [%u] --%s--> %u%s%s", mark, "", V.id, lab, e->to,
			       e->new_state ? "  (new)" : "", e->to == V.id ? "  (self-loop)" : "");
	}
}

static struct wb_list *graph_list(struct wb *wb) { return &V.l; }

static void graph_activate(struct wb *wb)
{
	if (V.l.cur >= V.l.n)
		return;
	bool in = V.l.cur < V.nin;
	uint32_t to = in ? V.in[V.l.cur].from : V.out[V.l.cur - V.nin].to;
	wb_goto_state(wb, to);
}

static void render_key(struct wb *wb, int key);

/* `w` is answered in every view (each has a picture to render); it lives
 * here, with the rendering. */
static const struct wb_binding graph_keys[] = {
	{.key = 'w', .keyname = "w", .help = "render to SVG in cmc-svg/ beside the database", .fn = render_key,
	 .everywhere = true},
	{0},
};

const struct wb_view wb_view_graph = {
	.name = "graph",
	.hint = "Enter:follow the edge w:render SVG s:state",
	.load = graph_load,
	.draw = graph_draw,
	.list = graph_list,
	.activate = graph_activate,
	.enter = "follow the selected edge to the state at its other end",
	.keys = graph_keys,
};

/*
 * The picture folder: `cmc-svg/` beside the database the workbench reads
 * (build/cmc-svg/ under `make run`, ./cmc-svg/ for the default ./cmc.db),
 * as an absolute path, so the status line says exactly where a picture
 * is.  A database with no folder (":memory:") sends pictures to
 * $XDG_CACHE_HOME/cmc-svg (~/.cache/cmc-svg).  0, or -1 when the path does
 * not fit.
 */
static int picture_dir(const struct wb *wb, char *out, size_t len)
{
	const char *db = wb->db_path;
	char dir[PATH_MAX];
	if (db && *db && strcmp(db, ":memory:") != 0) {
		const char *slash = strrchr(db, '/');
		char parent[PATH_MAX];
		if (!slash)
			snprintf(parent, sizeof parent, ".");
		else if (slash == db)
			snprintf(parent, sizeof parent, "/");
		else
			snprintf(parent, sizeof parent, "%.*s", (int)(slash - db), db);
		if (!realpath(parent, dir))
			return -1;
	} else {
		const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (cache && *cache == '/')
			snprintf(dir, sizeof dir, "%s", cache);
		else if (home && *home == '/')
			snprintf(dir, sizeof dir, "%s/.cache", home);
		else
			return -1;
	}
	int n = snprintf(out, len, "%s/cmc-svg", strcmp(dir, "/") == 0 ? "" : dir);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The `w` key: the picture for this view goes to the worker, which draws
 * it from its own store handle (Graphviz takes seconds to minutes on big
 * graphs) into the picture folder; the status line says "rendering..." and
 * then the picture's full path. */
static void render_key(struct wb *wb, int key)
{
	struct wb_render r;
	memset(&r, 0, sizeof r);
	r.run = wb->run;
	r.state = wb->cur;
	char dir[sizeof r.path - 64];
	if (picture_dir(wb, dir, sizeof dir) != 0) {
		wb_msg(wb, true, "no folder for pictures (beside the database, or $XDG_CACHE_HOME)");
		return;
	}
	if (wb->view == WB_V_ALLOC) {
		if (wb->cur == ENG_NO_STATE)
			return;
		r.heap = true;
		snprintf(r.path, sizeof r.path, "%s/cmc-heap-%lld-%u.svg", dir, (long long)wb->run, wb->cur);
	} else if (wb->view == WB_V_REPLAY && wb->viol_id) {
		r.violation = wb->viol_id;
		snprintf(r.path, sizeof r.path, "%s/cmc-violation-%lld.svg", dir, (long long)wb->viol_id);
	} else if (wb->view == WB_V_COMPARE) {
		r.raw_vs_canonical = true;
		snprintf(r.path, sizeof r.path, "%s/cmc-run-%lld-raw-vs-canonical.svg", dir, (long long)wb->run);
	} else {
		if (wb->cur == ENG_NO_STATE)
			return;
		r.around_set = true;
		snprintf(r.path, sizeof r.path, "%s/cmc-run-%lld-state-%u.svg", dir, (long long)wb->run, wb->cur);
	}
	if (wb_submit_render(wb, &r))
		wb_msg(wb, false, "rendering %s...", r.path);
}

/* On the worker thread only: one Graphviz context for the process. */
int wb_render_run(store *st, const struct wb_render *r, char *msg, size_t len)
{
	static viz *vz;
	if (!vz)
		vz = viz_new();
	char err[512] = "";
	viz_result res;
	memset(&res, 0, sizeof res);
	int rc;
	/* the picture folder, made here, off the input loop */
	char dir[sizeof r->path];
	snprintf(dir, sizeof dir, "%s", r->path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		int made = mkdir(dir, 0777);
		char *up = strrchr(dir, '/');
		if (made != 0 && errno == ENOENT && up && up != dir) { /* ~/.cache itself may be missing */
			*up = 0;
			mkdir(dir, 0777);
			*up = '/';
			made = mkdir(dir, 0777);
		}
		if (made != 0 && errno != EEXIST) {
			char e[300];
			wb_escape(e, sizeof e, dir, strlen(dir));
			snprintf(msg, len, "render failed: cannot make %.200s: %s", e, strerror(errno));
			return -1;
		}
	}
	if (r->heap) {
		viz_heap h;
		rc = viz_heap_load(st, r->run, r->state, &h, err, sizeof err);
		if (rc == 0) {
			rc = viz_heap_render(vz, &h, r->path, err, sizeof err);
			viz_heap_clear(&h);
		}
	} else {
		viz_graph_opts o;
		memset(&o, 0, sizeof o);
		o.run = r->run;
		o.violation = r->violation;
		o.raw_vs_canonical = r->raw_vs_canonical;
		o.around_set = r->around_set;
		o.around = r->state;
		o.radius = r->around_set ? 2 : 0;
		rc = viz_graph(vz, st, &o, r->path, &res, err, sizeof err);
	}
	char e[300];
	wb_escape(e, sizeof e, err, strlen(err));
	if (rc != 0) {
		snprintf(msg, len, "render failed: %.200s", e);
		return -1;
	}
	if (r->heap)
		snprintf(msg, len, "wrote %s", r->path);
	else
		snprintf(msg, len, "wrote %s: %llu states, %llu edges%s%.100s", r->path,
			 (unsigned long long)res.nodes, (unsigned long long)res.edges,
			 res.reduction[0] ? "; " : "", res.reduction);
	return 0;
}
