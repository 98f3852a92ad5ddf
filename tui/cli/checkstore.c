/*
 * checkstore.c — `cmc check` writing its run into the store (see
 * storeargs.h): open, begin or resume, attach the listener, end.
 */
#include <stdlib.h>
#include <string.h>

#include "storeargs.h"
#include "proc/proc.h"
#include "engine/util.h"

struct tui_check_store {
	store *st;
	int64_t run;
	eng_frontend *fe;       /* the checked target: its identity is recorded at the end */
	bool forced;            /* resumed with another state space (--force) */
};

/* The value of key in a space text ("key=value" lines), or NULL. */
static const char *space_get(const char *space, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = space; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > kl && p[kl] == '=' && strncmp(p, key, kl) == 0) {
			*len = n - kl - 1;
			return p + kl + 1;
		}
		p = nl ? nl + 1 : p + n;
	}
	return NULL;
}

/* How the user names a space key. */
static const char *space_option(const char *key)
{
	static const struct { const char *key, *opt; } names[] = {
		{"depth", "--max-depth (or the scenario's depth)"},
		{"states", "--max-states (or the scenario's states)"},
		{"keep-going", "--keep-going"},
		{"deadlock", "--no-deadlock"},
		{"source", "the scenario or model text (its hash)"},
		{"set:hash", "--hash"}, {"set:merge", "--merge"}, {"set:timeout", "--timeout"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(key, names[i].key) == 0)
			return names[i].opt;
	return key;
}

/* Say how one key differs; true when it does. */
static bool space_differs(const char *old, const char *now, const char *key, int64_t run)
{
	size_t ol = 0, nl = 0;
	const char *ov = space_get(old, key, &ol), *nv = space_get(now, key, &nl);
	if ((!ov && !nv) || (ov && nv && ol == nl && memcmp(ov, nv, ol) == 0))
		return false;
	const char *opt = space_option(key);
	fprintf(stderr, "cmc check: --resume %lld: %s%s differs: the run had ", (long long)run,
		strncmp(key, "set:", 4) == 0 && opt == key ? "--set " : "",
		opt == key && strncmp(key, "set:", 4) == 0 ? key + 4 : opt);
	if (ov)
		tui_escape(stderr, ov, ol, 200);
	else
		fputs("(its default)", stderr);
	fputs(", this command has ", stderr);
	if (nv)
		tui_escape(stderr, nv, nl, 200);
	else
		fputs("(its default)", stderr);
	fputc('\n', stderr);
	return true;
}

/* Does a space text hold an option, not only what the run came to? */
static bool space_has_options(const char *space)
{
	for (const char *p = space; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && strncmp(p, "identity=", 9) != 0 && strncmp(p, "forced=", 7) != 0)
			return true;
		p = nl ? nl + 1 : p + n;
	}
	return false;
}

/* Compare every key of either space; the number that differ. */
static int space_compare(const char *old, const char *now, int64_t run)
{
	int bad = 0;
	const char *texts[2] = {old, now};
	for (int k = 0; k < 2; k++)
		for (const char *p = texts[k]; p && *p;) {
			const char *nl = strchr(p, '\n'), *eq = strchr(p, '=');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			if (eq && eq < p + n && (size_t)(eq - p) < 64) {
				char key[64];
				memcpy(key, p, (size_t)(eq - p));
				key[eq - p] = 0;
				size_t dummy;
				/* each key once: from the old text, or new in this one;
				 * forced and identity are what a run came to, not options */
				if (strcmp(key, "forced") != 0 && strcmp(key, "identity") != 0 &&
				    (k == 0 || !space_get(old, key, &dummy)))
					bad += space_differs(old, now, key, run);
			}
			p = nl ? nl + 1 : p + n;
		}
	return bad;
}

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
					      bool no_rows, const char *resume, const char *space, bool force,
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
	store_opts so = {.raw_cap = raw_cap,
			 .same_thread = strcmp(fe->ops->kind, "process") == 0,
			 .no_rows = no_rows};
	store *st = store_open(db ? db : STORE_DEFAULT_PATH, &so, err, sizeof err);
	if (!st) {
		fprintf(stderr, "cmc check: %s\n", err);
		*rc = TUI_EXIT_USAGE;
		return NULL;
	}
	struct tui_check_store *cs = eng_xcalloc(1, sizeof *cs);
	cs->st = st;
	cs->fe = fe;
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
		/* The run must go on in the state space it began in: other
		 * bounds, identities or text would mix two searches in one
		 * run and report it complete. */
		char *old = store_run_space(st, run);
		size_t dummy;
		if (old && !space_has_options(old)) {
			free(old); /* a workbench run: only its identity (tui_run_record_identity) */
			old = NULL;
		}
		if (!old) {
			fprintf(stderr, "cmc check: --resume %lld: the run does not record its options"
				" (written by an older cmc): they are not checked\n", (long long)run);
		} else if (space_compare(old, space, run)) {
			if (!force) {
				fprintf(stderr, "cmc check: --resume %lld: these change the state space;"
					" resume with the run's options, or add --force (the run is then"
					" reported bounded, never complete)\n", (long long)run);
				free(old);
				goto fail;
			}
			cs->forced = true;
		}
		if (old && space_get(old, "forced", &dummy))
			cs->forced = true;
		free(old);
		if (cs->forced) {
			size_t n = strlen(space ? space : "") + 16;
			char *sp = eng_xmalloc(n);
			snprintf(sp, n, "%s%sforced=1", space ? space : "", space && *space ? "\n" : "");
			int bad = store_run_set_space(st, run, sp);
			free(sp);
			if (bad) {
				fprintf(stderr, "cmc check: %s\n", store_error(st));
				goto fail;
			}
			fprintf(stderr, "cmc check: --resume %lld --force: the run goes on with these"
				" options and is reported bounded\n", (long long)run);
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
			.space = space,
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

bool tui_check_store_forced(const struct tui_check_store *cs) { return cs && cs->forced; }

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
	} else if (tui_run_record_identity(cs->st, cs->run, cs->fe) < 0) {
		fprintf(stderr, "cmc check: %s\n", store_error(cs->st));
		rc = TUI_EXIT_USAGE;
	}
	store_close(cs->st);
	free(cs);
	return rc;
}

/* ---- the run's identity ------------------------------------------------ */

/* How a process run's states were told apart, as proc_info() says it
 * ("merge heap-graph" -> "heap-graph"); NULL for a model or a target that
 * never ran. */
static const char *fe_identity(eng_frontend *fe)
{
	if (!fe || strcmp(fe->ops->kind, "process") != 0)
		return NULL;
	const char *info = proc_info(fe);
	return info && strncmp(info, "merge ", 6) == 0 ? info + 6 : NULL;
}

/*
 * runs.space gets the line identity=MODE once the run has ended (the
 * identity is resolved only when the target first ran: a fallback from
 * canonical to raw is known then), replacing one a resumed run had.  The
 * store has no column for it; space is the run's resolved settings, and
 * --resume ignores this key (it follows from source and set:hash).
 */
int tui_run_record_identity(store *st, int64_t run, eng_frontend *fe)
{
	const char *id = fe_identity(fe);
	if (!id || run <= 0)
		return 0;
	char *old = store_run_space(st, run);
	size_t n = (old ? strlen(old) : 0) + strlen(id) + 16;
	char *sp = eng_xmalloc(n), *q = sp;
	for (const char *p = old; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && strncmp(p, "identity=", 9) != 0) {
			memcpy(q, p, len);
			q += len;
			*q++ = '\n';
		}
		p = nl ? nl + 1 : p + len;
	}
	sprintf(q, "identity=%s", id);
	int rc = store_run_set_space(st, run, sp);
	free(sp);
	free(old);
	return rc;
}

const char *tui_run_identity(store *st, int64_t run, char *buf, size_t len)
{
	char *sp = store_run_space(st, run);
	size_t n = 0;
	const char *v = space_get(sp, "identity", &n);
	if (!v)
		v = space_get(sp, "set:hash", &n); /* a run stored before identity= */
	const char *r = NULL;
	if (v && n < len) {
		memcpy(buf, v, n);
		buf[n] = 0;
		r = buf;
	}
	free(sp);
	return r;
}

const char *tui_identity_canon(const char *identity)
{
	return identity && strstr(identity, "heap-graph") ? "heap-graph" : "canonical";
}
