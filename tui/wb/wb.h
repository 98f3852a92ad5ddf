/*
 * wb.h — the ncurses workbench (`cmc tui`): its application state, the view
 * interface and the views table, keys, and the worker thread that runs the
 * engine.
 *
 * Threads.  The UI thread owns ncurses and every field marked "UI"; it
 * never blocks on the engine.  The worker thread owns the search and the
 * frontend while a job runs (the engine is not thread-safe); it hands
 * results and progress back through the fields marked "mu", under wb.mu.
 * Two store handles: the writer (wst, live sessions only) belongs to the
 * worker; the UI reads through its own read-only handle (st), and the
 * worker syncs the writer after every job (store_sync) so states stepped by
 * hand show at once; during a search they show as the writer commits.
 *
 * Files: wb-app.c (session open/close, state shared by views), wb-worker.c
 * (jobs), wb-keys.c (the common keys and their actions), wb-loop.c (the
 * event loop, dirty flags, one doupdate), wb-draw.c (escaping and drawing
 * helpers), view-*.c (one file per view, with its own keys).
 */
#ifndef CMC_TUI_WB_H
#define CMC_TUI_WB_H

#include <curses.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/cmc.h"
#include "store/store.h"
#include "wb-list.h"

/* ---- views --------------------------------------------------------------- */

/* The views, one line each: its id (WB_V_ID) and its struct (wb_view_NAME,
 * defined in view-NAME.c).  This list is the only one: the ids, the
 * lookup (wb_view()) and the order in which the help view lists the
 * views' own keys all come from it, so a new view is its file and one
 * line here.  Ids name views for wb_go(); their values mean nothing. */
#define WB_VIEWS(X)                                                          \
	X(LIST, list)       /* states by discovery */                        \
	X(TREE, tree)       /* the shortest-trace tree */                    \
	X(LEVELS, levels)   /* states by depth */                        \
	X(STATE, state)     /* one state whole; step by hand from it */      \
	X(VIOLS, viols)     /* violations */                                 \
	X(REPLAY, replay)   /* a counterexample, replayed step by step */    \
	X(COMPARE, compare) /* canonical states and their raw variants */    \
	X(HEX, hex)         /* two raw snapshots side by side */             \
	X(GRAPH, graph)     /* neighbourhood of the current state */         \
	X(ALLOC, alloc)     /* allocator invariants and chunk map */         \
	X(RUNS, runs)       /* runs in the database */                       \
	X(HELP, help)       /* every key */

#define WB_VIEW_ID_(id, name) WB_V_##id,
enum wb_view_id { WB_VIEWS(WB_VIEW_ID_) WB_V__COUNT };
#undef WB_VIEW_ID_

struct wb;
struct wb_view {
	const char *name;  /* shown in the status line: where you are */
	const char *hint;  /* the keys that matter here, for the status line */
	/* The same without a live target to step on or search (a database
	 * browsed, or another run than the session's: wb_can_step() false),
	 * where r, e and taking an operation do nothing: only keys that work.
	 * NULL: hint. */
	const char *hint_browse;
	/* Called when the view becomes current or its data may have changed
	 * (wb.data_gen moved); may be NULL. */
	void (*load)(struct wb *wb);
	void (*draw)(struct wb *wb, WINDOW *w, int rows, int cols);
	/* The list that the movement keys move; NULL: none. */
	struct wb_list *(*list)(struct wb *wb);
	/* Enter on the selected row; may be NULL.  enter: what it does here,
	 * for the help (NULL when activate is). */
	void (*activate)(struct wb *wb);
	const char *enter;
	/* The keys this view answers beyond the common ones (wb-keys.c),
	 * declared in the view's file; ended by an entry with fn NULL.  NULL:
	 * none. */
	const struct wb_binding *keys;
};

#define WB_VIEW_DECL_(id, name) extern const struct wb_view wb_view_##name;
WB_VIEWS(WB_VIEW_DECL_)
#undef WB_VIEW_DECL_
const struct wb_view *wb_view(enum wb_view_id v);

/* ---- keys (wb-keys.c) ------------------------------------------------------ */

/* One key.  A row of the help is an entry with a keyname; entries with
 * keyname NULL are more keys for the row above (same fn). */
struct wb_binding {
	int key;
	const char *keyname; /* as shown in help; NULL: not a row of its own */
	const char *help;
	void (*fn)(struct wb *wb, int key);
	bool everywhere;     /* in a view's table: answered in every view, not
				only in its own (w renders any view's picture) */
	bool live;           /* does something only where wb_can_step(): the
				help lists it apart elsewhere */
};
#define WB_KEY(k, name, h, f) {.key = (k), .keyname = (name), .help = (h), .fn = (f)}
#define WB_KEY_LIVE(k, name, h, f) {.key = (k), .keyname = (name), .help = (h), .fn = (f), .live = true}

/* Every binding, in the order a key is looked up and the help lists them:
 * each view's own table (views in WB_VIEWS order), then the common keys.
 * owner: the view whose table holds it, WB_V__COUNT for a common key.
 * A key pressed in view v runs the first entry with that key that is
 * common, everywhere, or owned by v; so a view's key takes precedence over
 * a common one.  Returns the count; *out stays valid. */
struct wb_key_entry {
	const struct wb_binding *b;
	enum wb_view_id owner;
};
size_t wb_keys(const struct wb_key_entry **out);
const struct wb_binding *wb_binding_find(int key, enum wb_view_id v);
/* One meaning per key per view: no table holds a key twice, and no view's
 * own key is one answered everywhere (which would shadow it in the views
 * after it).  A view's own key may stand for a common one in that view.
 * True, or aborts naming the clash (check.h); checked as the list is
 * built. */
bool wb_keys_are_valid(void);
/* Is b, a common or everywhere binding, answered in view v (no key of
 * v's own stands for it there)? */
bool wb_binding_common_in(const struct wb_binding *b, enum wb_view_id v);

/* ---- jobs for the worker (wb-worker.c) ----------------------------------- */

enum wb_job {
	WB_J_NONE,
	WB_J_INIT,      /* seed the search with the initial states */
	WB_J_RUN,       /* run (or resume) the search over its frontier */
	WB_J_RUN_FROM,  /* end the live run; begin a new one whose search goes
			 * the path to job_state and queues it alone (the
			 * UI then runs it: WB_J_RUN) */
	WB_J_EXPAND,    /* expand job_state by hand */
	WB_J_APPLY,     /* apply job_label to job_state */
	WB_J_REPLAY,    /* replay the first job_steps steps of replay_trace */
	WB_J_DESCRIBE,  /* print job_state through the frontend (models) */
	WB_J_SIMULATE,  /* random walks from the initial states */
	WB_J_FIND,      /* the first state whose fingerprint starts with job_label */
	WB_J_COMPARE,   /* store_compare_run of run job_run on the worker's own handle */
	WB_J_REORDER,   /* end the live run; begin a new one searching in the other order */
	WB_J_RENDER,    /* draw wb.render to SVG through viz (minutes for big graphs) */
};

/* A picture for the worker to draw (WB_J_RENDER), from the worker's own
 * read-only store handle, so the screen keeps answering keys meanwhile. */
struct wb_render {
	bool heap;                 /* the allocator at `state`; else the graph */
	int64_t run;
	uint32_t state;
	int64_t violation;         /* highlight its trace; 0: none */
	bool raw_vs_canonical;     /* one cluster per canonical state */
	bool around_set;           /* the neighbourhood of `state`, radius 2 */
	char path[4096];           /* the SVG written: an absolute path in
				    * the picture folder (view-graph.c) */
};

/* One step of a counterexample replay as re-executed. */
struct wb_rstep {
	bool done;         /* this step has been re-executed */
	eng_step_outcome outcome;
	bool fault;        /* the target ended abnormally here */
	eng_fp got;        /* fingerprint actually reached */
	char property[64]; /* the property failing here, escaped; "" none */
	char reply[160];   /* reply bytes, escaped (process mode) */
};

#define WB_HIST 256

struct wb {
	/* ---- the session (set at open, then read-only) ---- */
	bool live;                 /* a live search; else browsing a database */
	const char *target;        /* scenario or model argument; NULL: none */
	char *db_path;
	eng_opts opts;
	bool color;
	const char *ov_key[16], *ov_val[16]; /* process-mode overrides (--hash, --set) */
	int nov;
	char **actions;            /* live: the frontend's operation names */
	unsigned n_actions;

	/* ---- shared, under mu ---- */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t worker;
	bool worker_started;
	store *st;                 /* read-only handle: UI thread (under mu) */
	store *wst;                /* the writer (live): worker thread only */
	eng_listener store_l;      /* wst's listener, wrapped by the worker */
	eng_search *search;        /* live only; the engine under the worker */
	eng_frontend *fe;          /* live: the search's; DB: opened for replay */
	enum wb_job job;           /* requested or running (WB_J_NONE: idle) */
	bool job_running;
	bool quit;
	uint32_t job_state;
	int64_t job_run;
	int64_t run_live;          /* the run the live search writes (0: none) */
	char job_label[256];
	size_t job_steps;
	eng_trace *replay_trace;   /* owned; the trace being replayed */
	struct wb_rstep *rsteps;   /* replay_trace->len + 1 entries: [0] is the
				    * initial state, [i] the state after step i */
	char replay_expect[128];   /* the violation's property ("": none) */
	size_t replay_diverged;    /* first diverging step, SIZE_MAX: none */
	int replay_code;           /* tui_replay_verdict()'s, of the last replay */
	char replay_why[512];      /* its verdict, escaped ("": not replayed) */
	eng_stats prog;            /* latest progress of the live search */
	uint64_t prog_seq;         /* bumps with every change to the graph */
	uint64_t done_seq;         /* bumps when a job finishes */
	enum wb_job done_job;
	int done_rc;
	uint32_t done_state;       /* apply: the state reached */
	char done_msg[256];
	store *rst;                /* the worker's read-only handle (heavy reads) */
	store_compare *compare;    /* WB_J_COMPARE result (owned; the UI takes it) */
	int64_t compare_run;
	struct wb_render render;   /* WB_J_RENDER's request */
	char *describe;            /* WB_J_DESCRIBE result (owned) */
	uint32_t describe_id;

	/* ---- UI thread only ---- */
	int64_t run;               /* the run shown */
	store_run ri;              /* its row, as loaded */
	bool run_is_live;          /* `run` is the one this session writes */
	uint64_t n_states;         /* states the run holds, as far as known */
	uint64_t data_gen;         /* bumps when stored data may have changed */
	uint64_t seen_prog, seen_done; /* seen_done: written under mu, which
					* the worker reads it under */
	enum wb_view_id view;
	enum wb_view_id vstack[16];
	size_t nvstack;
	uint32_t cur;              /* the current state (ENG_NO_STATE: none) */
	uint32_t hist[WB_HIST];    /* states visited, for "back" */
	size_t nhist;
	int64_t viol_id;           /* the violation opened in the replay view */
	uint32_t cmp_a, cmp_b;     /* the two states of the hex view */
	bool dirty;
	bool leaving;              /* q pressed: leave after this iteration */
	char msg[256];
	bool msg_err;
	WINDOW *hdr, *body, *stl;
	/* a one-line prompt in the status line, answered in the event loop */
	bool prompting;
	char pbuf[80];
	size_t plen;
	const char *ptitle;
	void (*pdone)(struct wb *wb, const char *text);
};

/* wb-app.c */
int wb_session_open(struct wb *wb, const char *target, const char *db, int64_t run,
		    const eng_opts *o, char *err, size_t errlen);
void wb_session_close(struct wb *wb);
/* Worker only: end the live run and begin a new one whose search goes in
 * `order` (the engine's order is fixed per search). */
int wb_session_reorder(struct wb *wb, eng_order order, char *err, size_t errlen);
/* The same, the new run's options text noting where it comes from (R). */
int wb_session_new_run(struct wb *wb, eng_order order, const char *note, char *err, size_t errlen);
void wb_lock(struct wb *wb);
void wb_unlock(struct wb *wb);
void wb_reload_run(struct wb *wb);     /* reread wb.ri and n_states */
void wb_select_run(struct wb *wb, int64_t run);
void wb_go(struct wb *wb, enum wb_view_id v);   /* push a view */
void wb_back(struct wb *wb);                    /* pop one */
void wb_goto_state(struct wb *wb, uint32_t id); /* make current, remember */
void wb_msg(struct wb *wb, bool err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Does this session's worker have a search on this run (step by hand)? */
bool wb_can_step(struct wb *wb);
/* The live run (begun by R) searches from state `from` alone: it is stored
 * interrupted, not complete, even when its search ends with nothing left
 * to expand.  ENG_NO_STATE: a whole run. */
void wb_run_set_partial(uint32_t from);
uint32_t wb_run_partial_from(void);

/* wb-loop.c: fd 2 becomes a pipe whose lines go to the status line, until
 * the screen is given back (and at exit); idempotent. */
void wb_stderr_capture(void);
/* Show what was written to fd 2 so far (UI thread): wb_poll() calls it
 * before a finished job's message, which then stays on the status line
 * over what the job said on stderr on the way. */
void wb_stderr_drain(struct wb *wb);

/* wb-worker.c */
void wb_worker_start(struct wb *wb);
void wb_worker_stop(struct wb *wb);     /* stop any search, join */
/* Submit a job; false (and a message) when the worker is busy. */
bool wb_submit(struct wb *wb, enum wb_job j, uint32_t state, const char *label, size_t steps);
/* Submit WB_J_RENDER for r; false (and a message) when busy. */
bool wb_submit_render(struct wb *wb, const struct wb_render *r);
bool wb_busy(struct wb *wb);            /* takes mu */
void wb_pause(struct wb *wb);           /* stop a running search */
/* Pick up progress and finished jobs; marks dirty.  UI thread. */
void wb_poll(struct wb *wb);
/* The engine's progress listener wrapping the store writer. */
eng_listener wb_worker_listener(struct wb *wb);

/* wb-loop.c */
int wb_main(struct wb *wb);
void wb_prompt(struct wb *wb, const char *title, void (*done)(struct wb *, const char *));

/* wb-draw.c */
enum { WB_C_HDR = 1, WB_C_STATUS, WB_C_BAD, WB_C_GOOD, WB_C_DIFF, WB_C_DIM, WB_C_ERR, WB_C_FAULT,
       WB_C_INIT };
int wb_attr(struct wb *wb, int pair); /* colour pair, or a mono fallback */
/* How a row showing a state looks, the same in every view: violations red
 * (bold without colour), faults magenta (bold underlined), the initial
 * state cyan, the selected row in reverse video over its colour, so a
 * selected violation still reads as one.  status: STORE_OK, ... */
int wb_state_attr(struct wb *wb, int status, bool initial, bool selected);
/* The text mark beside a state, for NO_COLOR and terminals without
 * colour: WB_MARK_VIOLATION, WB_MARK_FAULT, or ' '.  Listed in the help. */
#define WB_MARK_VIOLATION '!'
#define WB_MARK_FAULT 'X'
char wb_state_mark(int status);
/* Draw printable text wrapped over rows y.. (at most maxrows), each row
 * starting with `lead` on the first and as many spaces on the others;
 * returns the rows used. */
int wb_wrap_rows(WINDOW *w, int y, int maxrows, int cols, int attr, const char *lead, const char *text);
/* Rows wb_wrap_rows would use, at most maxrows. */
int wb_wrap_count(int maxrows, int cols, const char *lead, const char *text);
/* Untrusted bytes to printable ASCII (\n, \t, \\, \xHH); NUL-terminated,
 * truncated to fit dst (ending in "..." when cut).  Returns dst. */
char *wb_escape(char *dst, size_t dstlen, const void *src, size_t n);
/* Write one row of a window, padded or cut to cols; fmt output is trusted
 * text only (escape first). */
void wb_row(WINDOW *w, int y, int cols, int attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* 12 hex digits of a fingerprint ("-" for zero). */
char *wb_fp_short(eng_fp fp, char buf[16]);
const char *wb_status_name(int status);

/* view-graph.c, on the worker: draw r with store handle st; the message
 * says where the file is or why it failed.  0, or -1. */
int wb_render_run(store *st, const struct wb_render *r, char *msg, size_t len);

/* Views ask each other for a few things. */
void wb_replay_open(struct wb *wb, int64_t violation); /* view-replay.c */
void wb_levels_reset(void);                            /* view-levels.c */
void wb_tree_reset(void);                              /* view-tree.c */
void wb_help_reset(void);                              /* view-help.c: to its top */
/* view-state.c: the operation last taken by hand was not enabled (WB_J_APPLY
 * done with rc -2): its row says so from now on. */
void wb_state_refused(void);

#endif
