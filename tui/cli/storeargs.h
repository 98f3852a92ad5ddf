/*
 * storeargs.h — what the commands that read the store share (runs, show,
 * trace, compare, diff): opening the database named by --db read-only,
 * resolving a run argument (latest by default), and printing fingerprints
 * and traces for humans or as JSON.  All target bytes pass through
 * tui_escape() or the JSON writer (json.h).
 */
#ifndef CMC_TUI_STOREARGS_H
#define CMC_TUI_STOREARGS_H

#include "cmd.h"
#include "store/store.h"

/* The options they take, filled from c->options (storeopts.c);
 * operands start at optind. */
struct tui_store_opts {
	const char *db, *run, *file;
	bool json, bytes, heap_graph, files;
};
/* 0, or TUI_EXIT_USAGE after printing the usage error. */
int tui_store_opts_parse(const struct tui_cmd *c, int argc, char **argv, struct tui_store_opts *o);

/* Open for reading; on failure prints "cmc NAME: why" and returns NULL
 * (the caller exits TUI_EXIT_USAGE). */
store *tui_store_open(const struct tui_cmd *c, const char *db);
/* A run id from `arg`, or the latest run when arg is NULL.  0 on success;
 * TUI_EXIT_USAGE after printing why. */
int tui_store_run(const struct tui_cmd *c, store *st, const char *arg, int64_t *run);
/* A non-negative decimal id. */
bool tui_parse_id(const char *s, int64_t *out);
/* A fingerprint's hex for humans; "-" when zero. */
const char *tui_fp_text(eng_fp fp, char buf[33]);
/* A trace, one step a line ("  N  LABEL  state ID  fp"), or as a JSON
 * object (init_state, init_fp, steps: [{step, label, state, fp}]). */
void tui_trace_print(FILE *out, const store_trace *t);
void tui_trace_json(struct tui_json *j, const store_trace *t);
/* A state's observation blob (at most max bytes), escaped and quoted
 * ("(none)" when absent), or as a JSON string (null when absent). */
void tui_blob_print(FILE *out, store *st, eng_fp hash, size_t max);
void tui_blob_json(struct tui_json *j, store *st, eng_fp hash, size_t max);

/*
 * checkstore.c — `cmc check`'s use of the store: --db FILE, --no-store,
 * --resume RUN.  begin() opens the database, begins a run (or, resuming,
 * cuts the stored run back to its last clean point and seeds the search
 * with it) and attaches the writer; end() records how the run ended.
 * begin() returns NULL with *rc = 0 when the store is off, NULL with
 * *rc = TUI_EXIT_USAGE after printing why on an error.
 */
struct tui_check_store;
/* raw_cap: store_opts.raw_cap (--raw-cap; 0: the store's default);
 * no_rows: store_opts.no_rows (--no-sql-rows). */
/* space: what decides the state space (runs.space, one key=value a line);
 * resuming, a stored space that differs is refused with exit 2, naming
 * each option and both values, unless force: the run then goes on and
 * tui_check_store_forced() is true (report it bounded). */
struct tui_check_store *tui_check_store_begin(const char *db, bool no_store, size_t raw_cap,
					      bool no_rows, const char *resume, const char *space,
					      bool force,
					      eng_search *s, eng_frontend *fe,
					      const char *target, const eng_opts *o, int argc,
					      char **argv, int *rc);
bool tui_check_store_forced(const struct tui_check_store *cs);
/* The run being written, or 0 (cs NULL: not stored). */
int64_t tui_check_store_run(const struct tui_check_store *cs);
/* status: complete / interrupted / violation / error.  Returns 0, or
 * TUI_EXIT_USAGE when the store failed (printed).  Frees cs. */
int tui_check_store_end(struct tui_check_store *cs, const char *status, const eng_stats *st);

/*
 * A run's identity (checkstore.c): how its states were told apart, "raw",
 * "canonical", "raw+canonical", "heap-graph" or "raw+heap-graph".  Recorded
 * once the run has ended, as the line identity=MODE of runs.space (the
 * store has no column for it; --resume ignores the key): record() does
 * nothing for a model or a target that never ran, and returns -1 when the
 * store failed.  tui_run_identity() reads it into buf (for runs stored
 * before: their --hash), or NULL when unknown.  tui_identity_canon() is
 * what the identity's canonical side counts: "heap-graph" or "canonical".
 */
int tui_run_record_identity(store *st, int64_t run, eng_frontend *fe);
const char *tui_run_identity(store *st, int64_t run, char *buf, size_t len);
const char *tui_identity_canon(const char *identity);

#endif
