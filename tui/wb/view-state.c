/*
 * view-state.c — one state whole: how it was reached (its trace from the
 * initial state), its fingerprints and status, the reply bytes and the
 * canonical record (text where printable, hex otherwise), the allocator's
 * summary, and the operations that lead on from it.  Enter on an operation
 * takes it now on the live target (stepping by hand); the state reached
 * joins the stored graph and becomes current.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/util.h"
#include "proc/proc.h"
#include "wb.h"

#define INFO_MAX 12

/* One row of the operations list: a stored successor, or an operation of
 * the frontend not taken from here yet (to == ENG_NO_STATE).  An operation
 * not taken that cannot be taken here says why in `why` (a once-only
 * operation the path took already, an input the path closed, an action
 * that was tried and was not enabled); "" when it may be. */
struct op_row {
	char *label;      /* raw label, for applying */
	uint32_t to;
	int status;       /* of `to` (STORE_OK when not taken yet) */
	bool tree;        /* the edge that discovered `to` */
	char why[96];     /* escaped */
};

/* Operations tried by hand that were not enabled in their state (the
 * frontend said so): remembered for the session, so the row says it. */
#define REFUSED_MAX 64
static struct {
	uint32_t state;
	char *label;
} refused[REFUSED_MAX];
static size_t nrefused;
static uint32_t try_state = ENG_NO_STATE; /* the last operation taken by hand */
static char *try_label;

static struct {
	struct wb_list l;
	uint32_t id;      /* the state loaded, ENG_NO_STATE: none */
	bool found;
	char info[INFO_MAX][512];
	int ninfo;
	int status;       /* the state's */
	bool initial;
	struct op_row *ops;
	size_t nops;
	/* Browsing, a state without stored successors: what it means. */
	const char *none_why; /* NULL: it has some, or operations are listed */
} V = {.id = ENG_NO_STATE};

static void clear_ops(void)
{
	for (size_t i = 0; i < V.nops; i++)
		free(V.ops[i].label);
	free(V.ops);
	V.ops = NULL;
	V.nops = 0;
}

static struct op_row *add_op(const char *label, uint32_t to, bool tree)
{
	V.ops = eng_xrealloc(V.ops, (V.nops + 1) * sizeof *V.ops);
	V.ops[V.nops] = (struct op_row){eng_xstrdup(label ? label : ""), to, STORE_OK, tree, ""};
	return &V.ops[V.nops++];
}

void wb_state_refused(void)
{
	if (try_state == ENG_NO_STATE || !try_label)
		return;
	if (nrefused == REFUSED_MAX) { /* full: the oldest goes */
		free(refused[0].label);
		memmove(refused, refused + 1, (REFUSED_MAX - 1) * sizeof refused[0]);
		nrefused--;
	}
	refused[nrefused].state = try_state;
	refused[nrefused++].label = try_label;
	try_label = NULL;
	try_state = ENG_NO_STATE;
	V.id = ENG_NO_STATE; /* reload: the row says it now */
}

static bool was_refused(uint32_t state, const char *label)
{
	for (size_t i = 0; i < nrefused; i++)
		if (refused[i].state == state && !strcmp(refused[i].label, label))
			return true;
	return false;
}

/* Why operation `name` cannot be taken at the end of path t (its labels
 * from the initial state), into why ("" when nothing on the path stops
 * it): a process scenario's once-only operation taken already, or an
 * input closed by an eof operation. */
static void why_not(struct wb *wb, const char *name, const store_trace *t, char *why, size_t len)
{
	why[0] = 0;
	if (!wb->fe || strcmp(wb->fe->ops->kind, "process") != 0 || !t)
		return;
	int kind = proc_op_kind(wb->fe, name);
	for (size_t i = 0; i < t->len; i++) {
		const char *l = t->labels[i] ? t->labels[i] : "";
		char el[40];
		wb_escape(el, sizeof el, l, strlen(l));
		if (proc_op_kind(wb->fe, l) == PROC_OP_EOF) {
			snprintf(why, len, "not enabled: step %zu (%.24s) closed the input", i + 1, el);
			return;
		}
		if (kind != PROC_OP_REPEAT && kind >= 0 && !strcmp(l, name)) {
			snprintf(why, len, "once only: taken at step %zu of this path", i + 1);
			return;
		}
	}
}

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	if (V.ninfo == INFO_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(V.info[V.ninfo++], sizeof V.info[0], fmt, ap);
	va_end(ap);
}

static bool printable(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((b[i] < 0x20 || b[i] >= 0x7f) && b[i] != '\n' && b[i] != '\t')
			return false;
	return true;
}

/* Observation bytes as one line: escaped text where printable, else hex. */
/* The declared state files (share/scenario.md "Files in the state"): one
 * line each from their stored summary ("KIND SIZE HASH PATH"), the first
 * few; `cmc show` lists them all. */
#define FILES_SHOWN 8
static void files_lines(struct wb *wb, eng_fp h)
{
	if (eng_fp_zero(h))
		return;
	uint8_t *d = NULL;
	size_t n = 0, full = 0;
	wb_lock(wb);
	int rc = store_blob(wb->st, h, &d, &n, &full);
	wb_unlock(wb);
	if (rc != 0)
		return;
	size_t shown = 0, more = 0;
	for (uint8_t *line = d, *end = d + n; line < end;) {
		uint8_t *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		if (shown < FILES_SHOWN) {
			char esc[300];
			wb_escape(esc, sizeof esc, line, (size_t)(nl - line));
			info("%-6s %s", shown ? "" : "files", esc);
			shown++;
		} else
			more++;
		line = nl + 1;
	}
	if (more)
		info("       ... %zu more (cmc show lists them all)", more);
	free(d);
}

static void blob_line(struct wb *wb, const char *what, eng_fp h)
{
	if (eng_fp_zero(h)) {
		info("%-6s (none)", what);
		return;
	}
	uint8_t *d = NULL;
	size_t n = 0, full = 0;
	wb_lock(wb);
	int rc = store_blob(wb->st, h, &d, &n, &full);
	wb_unlock(wb);
	if (rc != 0) {
		info("%-6s (not stored)", what);
		return;
	}
	char out[400];
	if (printable(d, n)) {
		char esc[300];
		wb_escape(esc, sizeof esc, d, n);
		snprintf(out, sizeof out, "\"%s\"", esc);
	} else {
		size_t o = 0;
		for (size_t i = 0; i < n && o + 4 < sizeof out - 8; i++)
			o += (size_t)snprintf(out + o, sizeof out - o, "%02x", d[i]);
		if (o + 4 >= sizeof out - 8)
			snprintf(out + o, sizeof out - o, "...");
	}
	info("%-6s %zu bytes%s: %s", what, full, full > n ? " (capped)" : "", out);
	free(d);
}

static void state_load(struct wb *wb)
{
	clear_ops();
	V.ninfo = 0;
	V.found = false;
	if (V.id != wb->cur)
		V.l.cur = V.l.top = 0;
	V.id = wb->cur;
	if (V.id == ENG_NO_STATE)
		return;
	store_state s;
	store_trace t = {0};
	store_edge *e = NULL;
	size_t ne = 0;
	wb_lock(wb);
	int rc = store_state_get(wb->st, wb->run, V.id, &s);
	int trc = rc == 0 ? store_trace_to(wb->st, wb->run, V.id, &t) : -1;
	if (rc == 0)
		store_successors(wb->st, wb->run, V.id, &e, &ne);
	wb_unlock(wb);
	if (rc != 0)
		return;
	V.found = true;
	V.status = s.status;
	V.initial = s.parent == ENG_NO_STATE;
	bool have_trace = trc == 0;
	/* Browsing a stored run, a state without successors either ended
	 * (the target exited or died: none by design) or was never expanded
	 * (the search stopped before it: a bound, a violation, a stop), as
	 * `cmc show` says: its operations are unknown, not none. */
	V.none_why = NULL;
	if (ne == 0 && !wb_can_step(wb)) {
		if (s.obs_flags & ENG_OBS_SIGNALED)
			V.none_why = "none (the target died)";
		else if (s.obs_flags & ENG_OBS_EXITED)
			V.none_why = "none (the target exited)";
		else if (s.obs_flags & ENG_OBS_CLOSED)
			V.none_why = "none (the target closed the connection)";
		else if (s.id >= wb->ri.expanded_below)
			V.none_why = "not expanded (the search ended before it reached this state: "
				     "a bound, a violation or a stop)";
		else
			V.none_why = "none";
	}

	char fp[33], raw[16], canon[16], lab[80] = "";
	if (s.label)
		wb_escape(lab, sizeof lab, s.label, strlen(s.label));
	if (s.parent == ENG_NO_STATE)
		info("state %u  depth %u  initial state  status %s", s.id, s.depth, wb_status_name(s.status));
	else
		info("state %u  depth %u  from %u by %s  status %s", s.id, s.depth, s.parent, lab,
		     wb_status_name(s.status));
	info("fp %s  raw %s  canon %s", eng_fp_hex(s.fp, fp), wb_fp_short(s.raw_fp, raw),
	     wb_fp_short(s.canon_fp, canon));
	if (trc == 0) {
		char line[512];
		size_t o = (size_t)snprintf(line, sizeof line, "trace  ");
		if (t.len == 0)
			o += (size_t)snprintf(line + o, sizeof line - o, "(initial state)");
		for (size_t i = 0; i < t.len && o < sizeof line - 1; i++) {
			char el[64];
			wb_escape(el, sizeof el, t.labels[i], strlen(t.labels[i]));
			o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? " > " : "", el);
		}
		info("%s", line);
	}
	blob_line(wb, "reply", s.reply_blob);
	blob_line(wb, "canon", s.canon_blob);
	files_lines(wb, s.files_blob);
	if (s.obs_flags & ENG_OBS_ALLOC) {
		int fails = __builtin_popcount(s.alloc_failed & s.alloc_checked);
		info("alloc  %d of %d invariants hold%s", __builtin_popcount(s.alloc_checked) - fails,
		     __builtin_popcount(s.alloc_checked), fails ? " (a: which fail)" : "");
	}
	if (s.obs_flags & ENG_OBS_EXITED)
		info("exit   the target exited with status %d", s.exit_status);
	if (s.obs_flags & ENG_OBS_SIGNALED)
		info("signal the target died on signal %d", s.term_signal);
	if ((s.obs_flags & ENG_OBS_CLOSED) && !(s.obs_flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED)))
		info("conn   the target closed the connection: only a reconnect op reaches it");
	if (s.fault && *s.fault) {
		char f[200];
		wb_escape(f, sizeof f, s.fault, strlen(s.fault));
		info("fault  %s", f);
	}
	store_state_clear(&s);

	for (size_t i = 0; i < ne; i++) {
		add_op(e[i].label, e[i].to, e[i].new_state);
		store_state t;
		wb_lock(wb);
		if (store_state_get(wb->st, wb->run, e[i].to, &t) == 0) {
			V.ops[V.nops - 1].status = t.status;
			store_state_clear(&t);
		}
		wb_unlock(wb);
	}
	/* Actions not taken yet from here.  A model's action may label its
	 * successors itself ("Prepare(r1)" for Prepare): those count as
	 * taken, and taking the action by its name yields all of them. */
	if (wb_can_step(wb))
		for (unsigned a = 0; a < wb->n_actions; a++) {
			bool seen = false;
			size_t al = strlen(wb->actions[a]);
			for (size_t i = 0; i < ne && !seen; i++)
				seen = e[i].label && !strncmp(e[i].label, wb->actions[a], al) &&
				       (e[i].label[al] == 0 || e[i].label[al] == '(');
			if (seen)
				continue;
			struct op_row *o = add_op(wb->actions[a], ENG_NO_STATE, false);
			why_not(wb, wb->actions[a], have_trace ? &t : NULL, o->why, sizeof o->why);
			if (!o->why[0] && was_refused(V.id, wb->actions[a]))
				snprintf(o->why, sizeof o->why, "not enabled here (tried)");
		}
	if (have_trace)
		store_trace_clear(&t);
	store_edges_free(e, ne);
	V.l.n = V.nops;

	/* A model's state printed by the model itself (the worker replays it). */
	if (wb_can_step(wb) && wb->fe->ops->print && !wb_busy(wb)) {
		wb_lock(wb);
		bool have = wb->describe && wb->describe_id == V.id;
		wb_unlock(wb);
		if (!have)
			wb_submit(wb, WB_J_DESCRIBE, V.id, NULL, 0);
	}
}

static void state_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (V.id != wb->cur)
		state_load(wb);
	if (!V.found) {
		wb_row(w, 0, cols, A_NORMAL, "no state %s", wb->cur == ENG_NO_STATE ? "selected" : "stored with that id");
		return;
	}
	/* Each line wrapped under its 7-column caption ("trace  ", "reply  "),
	 * a long one taking at most a third of the rows. */
	int y = 0, most = rows / 3 > 1 ? rows / 3 : 1;
	for (int i = 0; i < V.ninfo && y < rows; i++) {
		const char *t = V.info[i];
		char lead[8] = "";
		bool caption = strlen(t) > 7 && t[6] == ' ' && t[0] != ' ' && strcspn(t, " ") < 7;
		if (caption) {
			memcpy(lead, t, 7);
			lead[7] = 0;
			t += 7;
		}
		int attr = i == 0 ? wb_state_attr(wb, V.status, V.initial, false) | (int)A_BOLD : (int)A_NORMAL;
		y += wb_wrap_rows(w, y, rows - y < most ? rows - y : most, cols, attr, lead, t);
	}
	wb_lock(wb);
	if (wb->describe && wb->describe_id == V.id && y < rows) {
		char d[300];
		wb_escape(d, sizeof d, wb->describe, strlen(wb->describe));
		wb_row(w, y++, cols, A_NORMAL, "print  %s", d);
	}
	wb_unlock(wb);
	if (y >= rows)
		return;
	if (V.nops == 0 && V.none_why) {
		wb_wrap_rows(w, y, rows - y, cols, A_BOLD, "operations: ", V.none_why);
		return;
	}
	wb_row(w, y++, cols, A_BOLD, "operations (%zu)%s", V.nops,
	       wb_can_step(wb) ? "  Enter: take it now on the live target  e: take all  b: back"
			       : "  Enter: go to the successor");
	size_t body = (size_t)(rows - y);
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top; i < V.nops && y < rows; i++) {
		struct op_row *o = &V.ops[i];
		char lab[64], to[64];
		wb_escape(lab, sizeof lab, o->label, strlen(o->label));
		if (o->to == ENG_NO_STATE && o->why[0])
			snprintf(to, sizeof to, "(%.44s)", o->why);
		else if (o->to == ENG_NO_STATE)
			snprintf(to, sizeof to, "(not taken yet)");
		else
			snprintf(to, sizeof to, "-> %u%s", o->to, o->tree ? " (discovered here)" : "");
		wb_row(w, y++, cols, wb_state_attr(wb, o->status, false, i == V.l.cur), "%c %-30s %s",
		       wb_state_mark(o->status), lab, to);
	}
}

static struct wb_list *state_list(struct wb *wb) { return &V.l; }

static void state_activate(struct wb *wb)
{
	if (V.nops == 0 || V.l.cur >= V.nops)
		return;
	struct op_row *o = &V.ops[V.l.cur];
	char lab[64];
	wb_escape(lab, sizeof lab, o->label, strlen(o->label));
	if (wb_can_step(wb) && o->to == ENG_NO_STATE && o->why[0]) {
		wb_msg(wb, true, "%s cannot be taken from state %u: %s", lab, V.id, o->why);
	} else if (wb_can_step(wb)) {
		if (wb_submit(wb, WB_J_APPLY, V.id, o->label, 0)) {
			free(try_label);
			try_label = eng_xstrdup(o->label);
			try_state = V.id;
			wb_msg(wb, false, "taking %s from state %u...", lab, V.id);
		}
	} else if (o->to != ENG_NO_STATE) {
		wb_goto_state(wb, o->to);
	}
}

const struct wb_view wb_view_state = {
	.name = "state",
	.hint = "Enter:take op e:expand b:back n:graph a:alloc",
	.hint_browse = "Enter:go to its successor b:back n:graph a:alloc",
	.load = state_load,
	.draw = state_draw,
	.list = state_list,
	.activate = state_activate,
	.enter = "take the selected operation now (browsing: go to where it leads)",
};
