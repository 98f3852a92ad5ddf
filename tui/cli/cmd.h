/*
 * cmd.h — the `cmc` program's subcommands.  Each lives in tui/cli/cmd-NAME.c,
 * exports one struct tui_cmd and keeps everything else static; the table in
 * main.c lists them.
 *
 * tui/cli holds the command line; tui/wb the workbench (`cmc tui`).  What
 * both use stays here, in cli: opening a target (target.c), the replay
 * verdict (replay-verdict.c) and the signal handling (signals.c); the
 * workbench includes this header as "cli/cmd.h".
 */
#ifndef CMC_TUI_CMD_H
#define CMC_TUI_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/cmc.h"
#include "json.h"
#include "opts.h"

/* Exit codes (see the man page): */
#define TUI_EXIT_OK 0
#define TUI_EXIT_VIOLATION 1
#define TUI_EXIT_USAGE 2
#define TUI_EXIT_NOT_REPRODUCED 3 /* cmc replay: diverged, or the violation did not come */
/* Interrupted by the user's signal sig (SIGINT 130, SIGTERM 143, SIGHUP
 * 129): the run is stored as interrupted and can be resumed. */
#define TUI_EXIT_SIGNAL(sig) (128 + (sig))

struct tui_cmd {
	const char *name;
	const char *usage;   /* "check [OPTIONS] MODEL|SCENARIO" */
	const char *summary; /* one line */
	const struct tui_option *options; /* opts.h: the parser's table and the help;
					     NULL: the command takes no options */
	int help_col;        /* the column option help starts at (0: 22) */
	bool options_first;  /* options end at the first operand (getopt's '+'):
				what follows it is an operand, even "--x" */
	int (*exec)(int argc, char **argv);
	bool terminal;       /* draws on the terminal itself (ncurses): stdout
				stays unfiltered (tui_escape_streams) */
};

extern const struct tui_cmd *const tui_cmd_table[];
const struct tui_cmd *tui_cmd_find(const char *name);

/* Print "cmc NAME: message" and the usage line; returns TUI_EXIT_USAGE. */
int tui_usage_error(const struct tui_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* target.c: open what the user named — a built-in model, a model .so, or a
 * scenario file.  NULL with a message in err (the caller exits 2). */
eng_frontend *tui_open_target(const char *arg, eng_opts *opts, char *err, size_t errlen);
/* Is `arg` a model (built-in or .so) rather than a scenario? */
bool tui_target_is_model(const char *arg);
/* Text of the scenario or model source behind `arg`, for the store. */
char *tui_target_text(const char *arg);

/* Built-in models (share/models/registry.c). */
struct cmc_model;
extern const struct cmc_model *const cmc_builtin_models[];

/* progress.c: live progress on stderr when it is a terminal, else nothing. */
eng_listener tui_progress_listener(void);

/* report.c: collect violations and print the result. */
typedef struct tui_report tui_report;
tui_report *tui_report_new(eng_frontend *fe);
void tui_report_free(tui_report *r);
eng_listener tui_report_listener(tui_report *r);
size_t tui_report_violations(const tui_report *r);
/* The run was stopped by the user's signal sig: --json says
 * "interrupted": true and names it. */
void tui_report_interrupted(tui_report *r, int sig);
/* The run was random walks (cmc simulate): the summary says what the
 * walks covered, never that the state space was explored. */
void tui_report_walks(tui_report *r, uint64_t walks, uint32_t depth);
/* Summary for humans on stdout, or one JSON object with --json. */
void tui_report_print(tui_report *r, const eng_stats *st, const char *what, bool json,
		      const char *error, FILE *out);

/* escape.c: untrusted bytes for a terminal: printable ASCII as is, the rest
 * as \n, \t, \xHH.  Writes at most `max` input bytes, then "...". */
void tui_escape(FILE *out, const void *p, size_t n, size_t max);
/* Make stderr (and stdout when out_too) filtered streams that pass only
 * printable ASCII, '\n' and '\t' and write any other byte as \xHH: the one
 * choke point every message passes.  Called once, by main(). */
void tui_escape_streams(bool out_too);
/* The unfiltered stderr, for the progress line's own escape sequences. */
extern FILE *tui_stderr_raw;

/* replay-verdict.c: one line saying what a replay of the first `steps`
 * labels of t came to (into buf), and the exit status for it.  expect:
 * the property the trace should violate, or NULL. */
int tui_replay_verdict(const eng_trace *t, size_t steps, const eng_replay_result *r,
		       const char *expect, char *buf, size_t len);
/* The plain words for a trace whose re-execution did not reach the states
 * the first execution reached: the target did not repeat itself, at which
 * step (0: its initial state), and what to try.  One sentence, no newline;
 * the command line and the workbench both say it.  SIZE_MAX: the step is
 * not known (a stored violation keeps no such step). */
void tui_say_not_repeated(FILE *m, size_t step);

/* plural.c: "" for 1, "s" otherwise: "%llu state%s". */
const char *tui_s(uint64_t n);

/* signals.c: SIGINT/SIGTERM/SIGHUP.  tui_signals_init(), first thing in
 * main(), before any thread exists: they are blocked and read from a
 * signalfd; until tui_signals_stop() they kill cmc as by default. */
void tui_signals_init(void);
/* From now on the user's stop the given search cleanly (NULL: no search;
 * they are caught all the same: simulate, replay). */
void tui_signals_stop(eng_search *s);
bool tui_signals_caught(void);
/* Nonzero once the user's signal arrived (eng_sim_opts.stop). */
const volatile sig_atomic_t *tui_signals_flag(void);
/* The user's signal that stopped the command (SIGINT, SIGTERM, SIGHUP), or
 * 0; the command then exits 128 + it (TUI_EXIT_SIGNAL). */
int tui_signals_which(void);
const char *tui_signal_name(int sig);

#endif
