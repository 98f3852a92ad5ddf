/*
 * wb-loop.c — the workbench's event loop: three windows (header, body,
 * status line) drawn only when something marked the screen dirty, each with
 * wnoutrefresh and then one doupdate; keys read with a timeout so progress
 * from the worker shows while nobody types; KEY_RESIZE rebuilds the windows.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "wb.h"

#define TICK_MS 100

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

enum { WB_HDR_NAME_MIN = 20 };

static void draw_header(struct wb *wb)
{
	WINDOW *w = wb->hdr;
	int cols = getmaxx(w);
	char head[48], tail[160], name[256];
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
	if (wb->run_is_live) {
		const char *what = !busy ? "idle"
				   : job == WB_J_RUN || job == WB_J_RUN_FROM ? "SEARCHING"
				   : job == WB_J_REPLAY ? "replaying"
				   : job == WB_J_SIMULATE ? "simulating"
				   : job == WB_J_RENDER ? "rendering"
				   : job == WB_J_FIND || job == WB_J_COMPARE ? "reading" : "stepping";
		snprintf(head, sizeof head, "cmc run %lld live ", (long long)wb->run);
		snprintf(tail, sizeof tail, " %s | %s | %llu distinct %llu gen %.0f/s d%u fr %llu",
			 dfs ? "dfs" : "bfs", what, (unsigned long long)p.distinct,
			 (unsigned long long)p.generated, p.states_per_s, p.depth,
			 (unsigned long long)p.frontier);
	} else {
		const char *st = wb->ri.status;
		bool incomplete = strcmp(st, "interrupted") == 0 || strcmp(st, "error") == 0;
		snprintf(head, sizeof head, "cmc run %lld ", (long long)wb->run);
		snprintf(tail, sizeof tail, " | %s%s | %llu states %llu trans, depth %u%s", st,
			 incomplete ? " (INCOMPLETE)" : "", (unsigned long long)wb->n_states,
			 (unsigned long long)wb->ri.stored_transitions, wb->ri.depth, busy ? " | busy" : "");
	}
	/* The counts matter more than a whole path: a name longer than the
	 * room left keeps its tail (the file) behind "...", but never less
	 * than WB_HDR_NAME_MIN columns of it (a model's name stays whole). */
	long room = (long)cols - (long)strlen(head) - (long)strlen(tail);
	wb_fit_tail(name, room < WB_HDR_NAME_MIN ? WB_HDR_NAME_MIN : (size_t)room);
	wb_row(w, 0, cols, wb_attr(wb, WB_C_HDR), "%s%s%s", head, name, tail);
	wnoutrefresh(w);
}

static void draw_status(struct wb *wb)
{
	WINDOW *w = wb->stl;
	int cols = getmaxx(w);
	const struct wb_view *v = wb_view(wb->view);
	if (wb->prompting) {
		wb_row(w, 0, cols, A_NORMAL, "%s%s_", wb->ptitle, wb->pbuf);
	} else if (wb->msg[0]) {
		wb_row(w, 0, cols, wb_attr(wb, wb->msg_err ? WB_C_ERR : WB_C_STATUS), "%s", wb->msg);
	} else {
		char cur[24] = "";
		if (wb->cur != ENG_NO_STATE)
			snprintf(cur, sizeof cur, " @%u", wb->cur);
		wb_row(w, 0, cols, wb_attr(wb, WB_C_STATUS), "[%s%s] ?:keys q:quit  %s", v->name, cur,
		       v->hint);
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
	wb->color = true;
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
		if (wb->data_gen != loaded_gen) {
			loaded_gen = wb->data_gen;
			const struct wb_view *v = wb_view(wb->view);
			if (v->load)
				v->load(wb);
			wb->dirty = true;
		}
		if (wb->dirty)
			draw(wb);
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
	return 0;
}
