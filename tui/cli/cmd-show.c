/*
 * cmd-show.c — `cmc show STATE`: one stored state whole: its status, both
 * fingerprints (and the one that deduplicated it), the trace from the
 * initial state, its observations (escaped: never raw target bytes), the
 * allocator status, and its successors.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "statefiles.h"
#include "storeargs.h"

extern const struct tui_cmd tui_cmd_show;

static const struct tui_option show_options[] = {
	TUI_OPT_STRING(0, "run", struct tui_store_opts, run, "R", "the run (default: the latest)"),
	TUI_OPT_STRING(0, "db", struct tui_store_opts, db, "FILE", "the database (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "json", struct tui_store_opts, json, "one JSON object"),
	TUI_OPT_END(),
};

static const char *status_name(int s)
{
	return s == STORE_VIOLATION ? "violation" : s == STORE_FAULT ? "fault" : "ok";
}

#define SHOW_MAX 4096 /* bytes of an observation printed */

/* A state without stored successors was never expanded when the search
 * stopped before it (a bound, a violation, an interruption): its
 * successors are unknown, not none.  A state that ended (the target
 * exited or died) has none by design. */
static bool never_expanded(store *st, int64_t run, const store_state *s, size_t ne)
{
	if (ne || (s->obs_flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_CLOSED)))
		return false;
	store_run r;
	if (store_run_get(st, run, &r) != 0)
		return false;
	bool never = s->id >= r.expanded_below;
	store_run_clear(&r);
	return never;
}

static void show_json(store *st, int64_t run, const store_state *s, const store_trace *t,
		      const store_edge *e, size_t ne)
{
	struct tui_json j;
	tui_json_begin(&j, stdout);
	tui_json_object(&j);
	tui_json_i64(tui_json_key(&j, "run"), run);
	tui_json_u64(tui_json_key(&j, "state"), s->id);
	tui_json_u64(tui_json_key(&j, "depth"), s->depth);
	tui_json_string(tui_json_key(&j, "status"), status_name(s->status));
	tui_json_state(tui_json_key(&j, "parent"), s->parent);
	tui_json_string(tui_json_key(&j, "label"), s->label);
	tui_json_fp(tui_json_key(&j, "fp"), s->fp);
	tui_json_fp(tui_json_key(&j, "raw_fp"), s->raw_fp);
	tui_json_fp(tui_json_key(&j, "canon_fp"), s->canon_fp);
	tui_json_u64(tui_json_key(&j, "obs_flags"), s->obs_flags);
	if (s->obs_flags & ENG_OBS_EXITED)
		tui_json_i64(tui_json_key(&j, "exit_status"), s->exit_status);
	if (s->obs_flags & ENG_OBS_SIGNALED)
		tui_json_i64(tui_json_key(&j, "signal"), s->term_signal);
	if (s->obs_flags & ENG_OBS_CLOSED)
		tui_json_bool(tui_json_key(&j, "closed"), true);
	tui_json_string(tui_json_key(&j, "fault"), s->fault);
	if (s->obs_flags & ENG_OBS_ALLOC) {
		tui_json_u64(tui_json_key(&j, "alloc_checked"), s->alloc_checked);
		tui_json_u64(tui_json_key(&j, "alloc_failed"), s->alloc_failed);
	}
	tui_blob_json(tui_json_key(&j, "reply"), st, s->reply_blob, SHOW_MAX);
	tui_blob_json(tui_json_key(&j, "canonical_record"), st, s->canon_blob, SHOW_MAX);
	tui_json_fp(tui_json_key(&j, "raw_blob"), s->raw_blob);
	struct tui_state_files fs;
	if (tui_state_files_load(st, s->files_blob, &fs)) {
		tui_json_array(tui_json_key(&j, "state_files"));
		for (size_t i = 0; i < fs.n; i++)
			tui_state_file_json(&j, &fs.f[i]);
		tui_json_end(&j);
		tui_state_files_free(&fs);
	}
	tui_trace_json(tui_json_key(&j, "trace"), t);
	tui_json_bool(tui_json_key(&j, "expanded"), !never_expanded(st, run, s, ne));
	tui_json_array(tui_json_key(&j, "successors"));
	for (size_t i = 0; i < ne; i++) {
		tui_json_object(&j);
		tui_json_string(tui_json_key(&j, "label"), e[i].label);
		tui_json_u64(tui_json_key(&j, "to"), e[i].to);
		tui_json_bool(tui_json_key(&j, "new"), e[i].new_state);
		tui_json_end(&j);
	}
	tui_json_end(&j);
	tui_json_end(&j);
	tui_json_finish(&j);
}

/* A model state through the model's own printer, when the run's model is
 * one this cmc can open (built in, or a .so still at its path). */
static void print_model_state(store *st, int64_t run, uint32_t id)
{
	store_run r;
	if (store_run_get(st, run, &r) != 0)
		return;
	uint8_t *bytes;
	size_t len;
	if (r.kind && strcmp(r.kind, "model") == 0 && r.source_path &&
	    tui_target_is_model(r.source_path) &&
	    store_state_bytes(st, run, id, &bytes, &len) == 0) {
		eng_opts o;
		eng_opts_default(&o);
		char err[256];
		eng_frontend *fe = tui_open_target(r.source_path, &o, err, sizeof err);
		if (fe && fe->ops->print) {
			fputs("state            ", stdout);
			fe->ops->print(fe, bytes, len, stdout);
			putchar('\n');
		}
		if (fe)
			fe->ops->destroy(fe);
		free(bytes);
	}
	store_run_clear(&r);
}

static void show_text(store *st, int64_t run, const store_state *s, const store_trace *t,
		      const store_edge *e, size_t ne)
{
	char buf[33];
	printf("run %lld, state %u: depth %u, %s\n", (long long)run, s->id, s->depth,
	       status_name(s->status));
	print_model_state(st, run, s->id);
	printf("fingerprint      %s\n", tui_fp_text(s->fp, buf));
	printf("raw              %s\n", tui_fp_text(s->raw_fp, buf));
	printf("canonical        %s\n", tui_fp_text(s->canon_fp, buf));
	if (s->obs_flags & ENG_OBS_EXITED)
		printf("exited           status %d\n", s->exit_status);
	if (s->obs_flags & ENG_OBS_SIGNALED)
		printf("killed by        signal %d\n", s->term_signal);
	if ((s->obs_flags & ENG_OBS_CLOSED) && !(s->obs_flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED)))
		printf("connection       closed by the target: no operation reaches it but a reconnect\n");
	if (s->fault) {
		fputs("fault            ", stdout);
		tui_escape(stdout, s->fault, strlen(s->fault), SHOW_MAX);
		putchar('\n');
	}
	if (s->obs_flags & ENG_OBS_ALLOC)
		printf("allocator        %u invariants checked (mask 0x%x), failing mask 0x%x\n",
		       (unsigned)__builtin_popcount(s->alloc_checked), s->alloc_checked,
		       s->alloc_failed);
	if (!eng_fp_zero(s->reply_blob)) {
		fputs("reply            ", stdout);
		tui_blob_print(stdout, st, s->reply_blob, SHOW_MAX);
		putchar('\n');
	}
	if (!eng_fp_zero(s->canon_blob)) {
		fputs("canonical record ", stdout);
		tui_blob_print(stdout, st, s->canon_blob, SHOW_MAX);
		putchar('\n');
	}
	if (!eng_fp_zero(s->raw_blob)) {
		uint8_t *d;
		size_t len, full;
		if (store_blob(st, s->raw_blob, &d, &len, &full) == 0) {
			printf("raw snapshot     %zu bytes%s (`cmc compare --bytes` shows them)\n",
			       full, full > len ? ", cut to the raw cap" : "");
			free(d);
		}
	}
	struct tui_state_files fs;
	if (tui_state_files_load(st, s->files_blob, &fs)) {
		for (size_t i = 0; i < fs.n; i++) {
			fputs(i ? "                 " : "state files      ", stdout);
			tui_state_file_text(&fs.f[i]);
		}
		tui_state_files_free(&fs);
	}
	printf("trace (%zu step%s):\n", t->len, tui_s(t->len));
	tui_trace_print(stdout, t);
	if (never_expanded(st, run, s, ne))
		puts("successors: not expanded (the search ended before it reached this state: "
		     "a bound, a violation or a stop)");
	else if (ne == 0)
		puts("successors: none");
	else
		printf("successors (%zu):\n", ne);
	for (size_t i = 0; i < ne; i++) {
		fputs("  ", stdout);
		tui_escape(stdout, e[i].label, strlen(e[i].label), 64);
		printf(" -> state %u%s\n", e[i].to, e[i].new_state ? " (new)" : "");
	}
}

static int show_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_show, argc, argv, &so))
		return TUI_EXIT_USAGE;
	const char *db = so.db;
	const char *runarg = so.run;
	bool json = so.json;
	int64_t id;
	if (optind != argc - 1)
		return tui_usage_error(&tui_cmd_show, "expected one state id");
	if (!tui_parse_id(argv[optind], &id) || id >= ENG_NO_STATE)
		return tui_usage_error(&tui_cmd_show, "expected a state id, got '%s'", argv[optind]);
	store *st = tui_store_open(&tui_cmd_show, db);
	if (!st)
		return TUI_EXIT_USAGE;
	int64_t run;
	int rc = tui_store_run(&tui_cmd_show, st, runarg, &run);
	store_state s;
	store_trace t;
	store_edge *e = NULL;
	size_t ne = 0;
	if (rc == 0 && store_state_get(st, run, (uint32_t)id, &s) != 0) {
		fprintf(stderr, "cmc show: %s\n", store_error(st));
		rc = TUI_EXIT_USAGE;
	} else if (rc == 0) {
		if (store_trace_to(st, run, s.id, &t) != 0 ||
		    store_successors(st, run, s.id, &e, &ne) != 0) {
			fprintf(stderr, "cmc show: %s\n", store_error(st));
			rc = TUI_EXIT_USAGE;
		} else {
			if (json)
				show_json(st, run, &s, &t, e, ne);
			else
				show_text(st, run, &s, &t, e, ne);
			store_trace_clear(&t);
			store_edges_free(e, ne);
		}
		store_state_clear(&s);
	}
	store_close(st);
	return rc;
}

const struct tui_cmd tui_cmd_show = {
	.name = "show",
	.usage = "show [--run R] [--db FILE] [--json] STATE",
	.summary = "show a stored state: trace, fingerprints, observations, successors",
	.options = show_options,
	.exec = show_exec,
};
