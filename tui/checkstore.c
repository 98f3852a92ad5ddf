/*
 * checkstore.c — `cmc check` writing its run into the store (see
 * storeargs.h): open, begin or resume, attach the listener, end.
 */
#include <stdlib.h>
#include <string.h>

#include "storeargs.h"
#include "util.h"

struct tui_check_store {
	store *st;
	int64_t run;
};

/* The command line as one text, for runs.options. */
static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = eng_xmalloc(n), *p = s;
	for (int i = 0; i < argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	*p = 0;
	return s;
}

struct tui_check_store *tui_check_store_begin(const char *db, bool no_store, size_t raw_cap,
					      const char *resume,
					      eng_search *s, eng_frontend *fe,
					      const char *target, const eng_opts *o, int argc,
					      char **argv, int *rc)
{
	*rc = 0;
	if (no_store) {
		if (resume) {
			fprintf(stderr, "cmc check: --resume needs the store; drop --no-store\n");
			*rc = TUI_EXIT_USAGE;
		}
		return NULL;
	}
	char err[700];
	store_opts so = {.raw_cap = raw_cap, .same_thread = strcmp(fe->ops->kind, "process") == 0};
	store *st = store_open(db ? db : STORE_DEFAULT_PATH, &so, err, sizeof err);
	if (!st) {
		fprintf(stderr, "cmc check: %s\n", err);
		*rc = TUI_EXIT_USAGE;
		return NULL;
	}
	struct tui_check_store *cs = eng_xcalloc(1, sizeof *cs);
	cs->st = st;
	if (resume) {
		int64_t run;
		store_run info;
		if (!tui_parse_id(resume, &run)) {
			fprintf(stderr, "cmc check: --resume: expected a run number, got '%s'\n", resume);
			goto fail;
		}
		if (store_run_get(st, run, &info) != 0) {
			fprintf(stderr, "cmc check: --resume: %s\n", store_error(st));
			goto fail;
		}
		bool same = info.name && fe->name && strcmp(info.name, fe->name) == 0;
		store_run_clear(&info);
		if (!same) {
			fprintf(stderr, "cmc check: --resume %lld: that run checked another model or"
				" scenario than '%s'\n", (long long)run, target);
			goto fail;
		}
		if (o->order != ENG_BFS) {
			fprintf(stderr, "cmc check: --resume continues breadth-first runs only\n");
			goto fail;
		}
		store_resume r;
		if (store_resume_prepare(st, run, &r) != 0) {
			fprintf(stderr, "cmc check: --resume: %s\n", store_error(st));
			goto fail;
		}
		int bad = store_resume_search(&r, s, o->max_depth, err, sizeof err);
		store_resume_clear(&r);
		if (bad) {
			fprintf(stderr, "cmc check: --resume: %s\n", err);
			goto fail;
		}
		if (store_run_continue(st, run) < 0) {
			fprintf(stderr, "cmc check: %s\n", store_error(st));
			goto fail;
		}
		cs->run = run;
	} else {
		char *text = tui_target_text(target);
		char *opts = join_args(argc, argv);
		const char *acts[256];
		unsigned na = fe->ops->n_actions ? fe->ops->n_actions(fe) : 0;
		if (na > 256)
			na = 256;
		for (unsigned i = 0; i < na; i++)
			acts[i] = fe->ops->action_name(fe, i);
		store_run_info info = {
			.kind = fe->ops->kind,
			.name = fe->name ? fe->name : target,
			.source_path = target,
			.source_text = text,
			.options = opts,
			.order = o->order == ENG_DFS ? "dfs" : "bfs",
			.actions = acts,
			.n_actions = na,
		};
		cs->run = store_run_begin(st, &info);
		free(text);
		free(opts);
		if (cs->run < 0) {
			fprintf(stderr, "cmc check: %s\n", store_error(st));
			goto fail;
		}
	}
	eng_listener l;
	store_listener(st, s, &l);
	eng_search_listen(s, &l);
	return cs;
fail:
	store_close(st);
	free(cs);
	*rc = TUI_EXIT_USAGE;
	return NULL;
}

int64_t tui_check_store_run(const struct tui_check_store *cs) { return cs ? cs->run : 0; }

int tui_check_store_end(struct tui_check_store *cs, const char *status, const eng_stats *st)
{
	if (!cs)
		return 0;
	int rc = 0;
	bool failed = store_failed(cs->st);
	if (store_run_end(cs->st, status, st) < 0 || failed) {
		fprintf(stderr, "cmc check: the run could not be stored completely: %s\n",
			store_error(cs->st));
		rc = TUI_EXIT_USAGE;
	}
	store_close(cs->st);
	free(cs);
	return rc;
}
