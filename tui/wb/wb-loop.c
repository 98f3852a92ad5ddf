/*
 * wb-loop.c — the workbench's event loop: three windows (header, body,
 * status line) drawn only when something marked the screen dirty, each with
 * wnoutrefresh and then one doupdate; keys read with a timeout so progress
 * from the worker shows while nobody types; KEY_RESIZE rebuilds the windows.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "wb-text.h"
#include "wb.h"

#define TICK_MS 100

/* ---- stderr while the screen is ncurses' --------------------------------- */

/* The engine says some things on stderr from the worker (a scenario whose
 * target writes no canonical records falls back to raw fingerprints, fork
 * snapshots unavailable, ...); written to the terminal they would land in
 * the middle of the screen and stay there until a redraw.  For the session
 * fd 2 is a pipe: each line read from it becomes the status message
 * (escaped), and when the screen is given back everything that was said
 * goes to the real stderr, in order.  Also at exit() (eng_die), so a fatal
 * message is never lost in the pipe.
 *
 * A line is a warning (the error colour) unless it is one of the notes
 * below, what a run is expected to say: those are shown once a session,
 * in the status colour (a replay starts the target again and says it
 * again: share/scenario.md has `auto` fall back to raw by design). */
#define ERR_LOG_MAX (64 * 1024)

static const char *const err_notes[] = {
	": no canonical records: falling back to raw",
};

static struct {
	int rd;          /* the pipe's read end, -1: not captured */
	int saved;       /* the real stderr */
	char *log;       /* everything said (up to ERR_LOG_MAX) */
	size_t len, dropped;
	char line[256];  /* the line being read, for the status line */
	size_t llen;
	unsigned notes_shown; /* bit i: err_notes[i] was shown */
} E = {-1, -1, NULL, 0, 0, {0}, 0, 0};

/* A note's index in err_notes, or -1 for a warning. */
static int err_note(const char *l, size_t n)
{
	for (size_t i = 0; i < sizeof err_notes / sizeof *err_notes; i++) {
		size_t k = strlen(err_notes[i]);
		if (n >= k && memcmp(l + n - k, err_notes[i], k) == 0)
			return (int)i;
	}
	return -1;
}

static void err_take(struct wb *wb, const char *b, size_t n)
{
	size_t keep = n;
	if (E.len + keep > ERR_LOG_MAX)
		keep = ERR_LOG_MAX - E.len;
	if (keep) {
		char *l = realloc(E.log, E.len + keep);
		if (l) {
			E.log = l;
			memcpy(E.log + E.len, b, keep);
			E.len += keep;
		} else {
			keep = 0;
		}
	}
	E.dropped += n - keep;
	for (size_t i = 0; i < n && wb; i++) {
		if (b[i] != '\n') {
			if (E.llen < sizeof E.line)
				E.line[E.llen++] = b[i];
			continue;
		}
		char m[sizeof wb->msg];
		wb_escape(m, sizeof m, E.line, E.llen);
		int note = err_note(E.line, E.llen);
		E.llen = 0;
		if (note >= 0 && (E.notes_shown & 1u << note))
			continue;
		if (note >= 0)
			E.notes_shown |= 1u << note;
		wb_msg(wb, note < 0, "%s", m);
	}
}

static void err_drain(struct wb *wb)
{
	char b[4096];
	ssize_t n;
	while (E.rd >= 0 && ((n = read(E.rd, b, sizeof b)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			err_take(wb, b, (size_t)n);
}

void wb_stderr_drain(struct wb *wb) { err_drain(wb); }

/* Give fd 2 back and write out what was said. */
static void err_release(void)
{
	if (E.rd < 0)
		return;
	fflush(stderr);
	dup2(E.saved, STDERR_FILENO); /* closes the pipe's last write end: EOF */
	close(E.saved);
	E.saved = -1;
	err_drain(NULL);
	close(E.rd);
	E.rd = -1;
	for (size_t o = 0; o < E.len;) {
		ssize_t w = write(STDERR_FILENO, E.log + o, E.len - o);
		if (w <= 0 && errno != EINTR)
			break;
		if (w > 0)
			o += (size_t)w;
	}
	if (E.dropped)
		fprintf(stderr, "cmc tui: %zu more bytes written to stderr were dropped\n", E.dropped);
	free(E.log);
	E.log = NULL;
	E.len = E.dropped = E.llen = 0;
}

/* From before the worker starts (wb_session_open()) until the screen is
 * given back; an exit() on the way (initscr on a terminal it cannot
 * drive, eng_die) still writes everything out. */
void wb_stderr_capture(void)
{
	static bool registered;
	int p[2];
	fflush(stderr);
	if (E.rd >= 0 || pipe2(p, O_CLOEXEC) < 0)
		return;
	E.saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (E.saved < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		if (E.saved >= 0)
			close(E.saved);
		E.saved = -1;
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	/* A writer never blocks on a full pipe (the loop drains it every
	 * tick; a worker stuck in write while the loop joins it would hang
	 * the exit): past 64 KiB between two ticks, lines are lost. */
	fcntl(STDERR_FILENO, F_SETFL, fcntl(STDERR_FILENO, F_GETFL) | O_NONBLOCK);
	E.rd = p[0];
	if (!registered)
		atexit(err_release);
	registered = true;
}

static void make_windows(struct wb *wb)
{
	if (wb->hdr)
		delwin(wb->hdr);
	if (wb->body)
		delwin(wb->body);
	if (wb->stl)
		delwin(wb->stl);
	int rows = LINES < 3 ? 3 : LINES, cols = COLS < 10 ? 10 : COLS;
	wb->hdr = newwin(1, cols, 0, 0);
	wb->body = newwin(rows - 2, cols, 1, 0);
	wb->stl = newwin(1, cols, rows - 1, 0);
	keypad(wb->body, TRUE);
	wb->dirty = true;
}

/* The title line says where you are, view > run, and how the run stands
 * (the status line adds the current state, @N).  At 80 columns it cannot
 * hold everything: the counts that matter (distinct states, the
 * frontier, the status) always stay; the name is shortened in the middle
 * (its file name stays, so two scenarios of one folder differ); then the
 * least telling fields go first (the rate, the generated count, the
 * order, the depth, the view). */
enum { WB_HDR_NAME_MIN = 12 };

static void draw_header(struct wb *wb)
{
	WINDOW *w = wb->hdr;
	int cols = getmaxx(w);
	char name[256], sname[256];
	wb_escape(name, sizeof name, wb->ri.name ? wb->ri.name : "?", wb->ri.name ? strlen(wb->ri.name) : 1);
	eng_stats p;
	bool busy;
	enum wb_job job;
	wb_lock(wb);
	bool dfs = wb->opts.order == ENG_DFS;
	p = wb->prog;
	job = wb->job;
	busy = job != WB_J_NONE;
	wb_unlock(wb);
	char run[48], view[64], f[8][64];
	snprintf(view, sizeof view, "%s > ", wb_view(wb->view)->name);
	snprintf(run, sizeof run, "run %lld %s", (long long)wb->run, wb->run_is_live ? "live " : "");
	struct wb_text_field fl[16];
	size_t n = 0;
	fl[n++] = (struct wb_text_field){view, 2};
	fl[n++] = (struct wb_text_field){run, 0};
	size_t name_at = n;
	fl[n++] = (struct wb_text_field){NULL, 1};
	if (wb->run_is_live) {
		const char *what = !busy ? "idle"
				   : job == WB_J_RUN || job == WB_J_RUN_FROM ? "SEARCHING"
				   : job == WB_J_REPLAY ? "replaying"
				   : job == WB_J_SIMULATE ? "simulating"
				   : job == WB_J_RENDER ? "rendering"
				   : job == WB_J_FIND || job == WB_J_COMPARE ? "reading"
				   : job == WB_J_INIT ? "starting" : "stepping";
		snprintf(f[0], sizeof f[0], " %s", dfs ? "dfs" : "bfs");
		snprintf(f[1], sizeof f[1], " | %s", what);
		snprintf(f[2], sizeof f[2], " | %llu distinct", (unsigned long long)p.distinct);
		snprintf(f[3], sizeof f[3], " %llu gen", (unsigned long long)p.generated);
		snprintf(f[4], sizeof f[4], " %.0f/s", p.states_per_s);
		snprintf(f[5], sizeof f[5], " d%u", p.depth);
		snprintf(f[6], sizeof f[6], " fr %llu", (unsigned long long)p.frontier);
		static const int rank[] = {3, 0, 0, 6, 7, 4, 0};
		for (int i = 0; i < 7; i++)
			fl[n++] = (struct wb_text_field){f[i], rank[i]};
	} else {
		const char *st = wb->ri.status;
		bool incomplete = strcmp(st, "interrupted") == 0 || strcmp(st, "error") == 0;
		snprintf(f[0], sizeof f[0], " | %s%s", st, incomplete ? " (INCOMPLETE)" : "");
		snprintf(f[1], sizeof f[1], " | %llu states", (unsigned long long)wb->n_states);
		snprintf(f[2], sizeof f[2], " %llu trans", (unsigned long long)wb->ri.stored_transitions);
		snprintf(f[3], sizeof f[3], ", depth %u", wb->ri.depth);
		snprintf(f[4], sizeof f[4], "%s", busy ? " | busy" : "");
		static const int rank[] = {0, 0, 6, 4, 0};
		for (int i = 0; i < 5; i++)
			fl[n++] = (struct wb_text_field){f[i], rank[i]};
	}
	/* The name gets the room the fields that always stay leave it, less
	 * each other field, most important first (the view's name, the
	 * depth, ...), while the file name still fits beside it: a long
	 * folder is elided before a count is dropped.  Never less than
	 * WB_HDR_NAME_MIN columns. */
	long room = cols;
	for (size_t i = 0; i < n; i++)
		if (i != name_at && fl[i].text && fl[i].rank == 0)
			room -= (long)strlen(fl[i].text);
	const char *slash = strrchr(name, '/');
	long want = (long)strlen(slash ? slash : name) + 4;
	if (want > (long)strlen(name))
		want = (long)strlen(name);
	for (int r = 2; r <= 7; r++)
		for (size_t i = 0; i < n; i++)
			if (i != name_at && fl[i].text && fl[i].rank == r &&
			    room - (long)strlen(fl[i].text) >= want)
				room -= (long)strlen(fl[i].text);
	wb_text_elide_path(sname, sizeof sname, name, room < WB_HDR_NAME_MIN ? WB_HDR_NAME_MIN : (size_t)room);
	fl[name_at].text = sname;
	char line[512];
	wb_text_fit_fields(line, sizeof line, fl, n, (size_t)cols);
	wb_row(w, 0, cols, wb_attr(wb, WB_C_HDR), "%s", line);
	wnoutrefresh(w);
}

enum { WB_MSG_ROWS = 4 }; /* a status message wraps over at most this many rows */

static void draw_status(struct wb *wb)
{
	WINDOW *w = wb->stl;
	int cols = getmaxx(w);
	const struct wb_view *v = wb_view(wb->view);
	if (wb->prompting) {
		wb_row(w, 0, cols, A_NORMAL, "%s%s_", wb->ptitle, wb->pbuf);
	} else if (wb->msg[0]) {
		/* A message wider than the line (a long path, a verdict) is
		 * wrapped, its first rows drawn over the bottom of the body:
		 * shown whole until the next key clears it. */
		int attr = wb_attr(wb, wb->msg_err ? WB_C_ERR : WB_C_STATUS);
		struct wb_text_line l[WB_MSG_ROWS];
		int brows = getmaxy(wb->body);
		size_t most = brows + 1 < WB_MSG_ROWS ? (size_t)brows + 1 : WB_MSG_ROWS;
		size_t n = wb_text_wrap(wb->msg, (size_t)cols, l, most);
		for (size_t i = 0; i + 1 < n; i++)
			wb_row(wb->body, brows - (int)(n - 1) + (int)i, cols, attr, "%.*s", (int)l[i].len,
			       wb->msg + l[i].start);
		if (n > 1)
			wnoutrefresh(wb->body);
		wb_row(w, 0, cols, attr, "%.*s", (int)l[n - 1].len, wb->msg + l[n - 1].start);
	} else {
		/* The view's hints, most important first, dropped whole from
		 * the end when the line is short; ? lists every key. */
		char left[128], hints[256];
		snprintf(left, sizeof left, "[%s%s] ?:keys q:quit  ", v->name, "");
		if (wb->cur != ENG_NO_STATE)
			snprintf(left, sizeof left, "[%s @%u] ?:keys q:quit  ", v->name, wb->cur);
		size_t room = (size_t)cols > strlen(left) ? (size_t)cols - strlen(left) : 0;
		const char *h = !wb_can_step(wb) && v->hint_browse ? v->hint_browse : v->hint;
		wb_text_fit_hints(hints, sizeof hints, h, room);
		wb_row(w, 0, cols, wb_attr(wb, WB_C_STATUS), "%s%s", left, hints);
	}
	wnoutrefresh(w);
}

static void draw(struct wb *wb)
{
	const struct wb_view *v = wb_view(wb->view);
	werase(wb->body);
	int rows, cols;
	getmaxyx(wb->body, rows, cols);
	v->draw(wb, wb->body, rows, cols);
	wnoutrefresh(wb->body);
	draw_header(wb);
	draw_status(wb);
	doupdate();
	wb->dirty = false;
}

void wb_prompt(struct wb *wb, const char *title, void (*done)(struct wb *, const char *))
{
	wb->prompting = true;
	wb->ptitle = title;
	wb->pdone = done;
	wb->plen = 0;
	wb->pbuf[0] = 0;
	wb->dirty = true;
}

static void prompt_key(struct wb *wb, int key)
{
	if (key == 27) {
		wb->prompting = false;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		wb->prompting = false;
		char text[sizeof wb->pbuf];
		memcpy(text, wb->pbuf, sizeof text);
		wb->msg[0] = 0;
		wb->pdone(wb, text);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (wb->plen)
			wb->pbuf[--wb->plen] = 0;
	} else if (key >= 0x20 && key < 0x7f && wb->plen + 1 < sizeof wb->pbuf) {
		wb->pbuf[wb->plen++] = (char)key;
		wb->pbuf[wb->plen] = 0;
	}
	wb->dirty = true;
}

static void init_colors(struct wb *wb)
{
	wb->color = false;
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || !has_colors())
		return;
	start_color();
	use_default_colors();
	init_pair(WB_C_HDR, COLOR_BLACK, COLOR_CYAN);
	init_pair(WB_C_STATUS, COLOR_BLACK, COLOR_WHITE);
	init_pair(WB_C_BAD, COLOR_RED, -1);
	init_pair(WB_C_GOOD, COLOR_GREEN, -1);
	init_pair(WB_C_DIFF, COLOR_BLACK, COLOR_YELLOW);
	init_pair(WB_C_DIM, COLOR_BLUE, -1);
	init_pair(WB_C_ERR, COLOR_WHITE, COLOR_RED);
	init_pair(WB_C_FAULT, COLOR_MAGENTA, -1);
	init_pair(WB_C_INIT, COLOR_CYAN, -1);
	wb->color = true;
}

static bool starting(struct wb *wb)
{
	wb_lock(wb);
	bool s = wb->job == WB_J_INIT;
	wb_unlock(wb);
	return s;
}

int wb_main(struct wb *wb)
{
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	set_escdelay(25);
	wb_stderr_capture(); /* done already by wb_session_open() */
	init_colors(wb);
	make_windows(wb);
	wb->view = WB_V_LIST;
	const struct wb_view *v0 = wb_view(wb->view);
	if (v0->load)
		v0->load(wb);
	uint64_t loaded_gen = wb->data_gen;
	wtimeout(wb->body, TICK_MS);
	while (!wb->leaving) {
		if (tui_signals_caught())
			break;
		wb_poll(wb);
		err_drain(wb);
		if (wb->data_gen != loaded_gen) {
			loaded_gen = wb->data_gen;
			const struct wb_view *v = wb_view(wb->view);
			if (v->load)
				v->load(wb);
			wb->dirty = true;
		}
		if (wb->dirty)
			draw(wb);
		/* While the live session's first job starts the target, keys
		 * wait in the terminal's queue: one that needs the engine would
		 * be answered "busy" and lost (r pressed on the first screen).
		 * Signals still end the session (signalfd, above). */
		if (starting(wb)) {
			napms(TICK_MS);
			continue;
		}
		int key = wgetch(wb->body);
		if (key == ERR)
			continue;
		if (key == KEY_RESIZE) {
			make_windows(wb);
			wtimeout(wb->body, TICK_MS);
			clearok(curscr, TRUE);
			continue;
		}
		if (wb->prompting) {
			prompt_key(wb, key);
			continue;
		}
		wb->msg[0] = 0;
		wb->dirty = true;
		const struct wb_binding *b = wb_binding_find(key, wb->view);
		if (b)
			b->fn(wb, key);
	}
	wb_msg(wb, false, "stopping...");
	draw(wb);
	endwin();
	err_release();
	return 0;
}
