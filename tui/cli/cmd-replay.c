/*
 * cmd-replay.c — `cmc replay`: re-execute a trace on the model or the live
 * target, judge every property at every step as `cmc check` does, and say
 * whether the trace proves its violation (exit 1), ran clean (0) or did not
 * reproduce what was recorded (3).  Each step is compared with the
 * fingerprint recorded for it; without recorded fingerprints the trace runs
 * twice and the runs are compared, which is how a nondeterministic target
 * shows itself.
 *
 * Trace files (`cmc trace --file` writes them): blank lines and lines
 * starting with '#' are ignored; before the first label, `init N` (the Nth
 * initial state, from 0) or `init FP` (32 hex digits) selects the initial
 * state and `expect PROPERTY` names the violation the trace should end in;
 * then one label per line, optionally a tab and its 32-hex fingerprint, and
 * optionally a tab, the raw and a tab, the canonical fingerprint.
 *
 * The user's SIGINT, SIGTERM or SIGHUP stops it: the steps seen so far are
 * shown, the targets killed, and it exits 128 + the signal (nothing is
 * stored).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "proc/proc.h"
#include "engine/util.h"

extern const struct tui_cmd tui_cmd_replay;

struct replay_opts {
	bool json, no_deadlock;
	const char *file, *init, *expect, *exec;
};

#define A struct replay_opts
static const struct tui_option replay_options[] = {
	TUI_OPT_STRING(0, "file", A, file, "TRACE",
		       "the trace: `cmc trace --file` writes one; one label a\n"
		       "line, a tab and 32 hex digits after a label give its\n"
		       "recorded fingerprint, two more (tab-separated) its raw\n"
		       "and canonical ones; `init N|FP` and `expect PROPERTY`\n"
		       "lines before the first label select the initial state\n"
		       "and name the violation the trace should end in"),
	TUI_OPT_STRING(0, "init", A, init, "N|FP",
		       "start from the Nth initial state (from 0) or the one\n"
		       "with this fingerprint (default: the file's, else the first)"),
	TUI_OPT_STRING(0, "expect", A, expect, "PROPERTY", "the trace should end in this property's violation"),
	TUI_OPT_STRING(0, "exec", A, exec, "fork|replay",
		       "process mode: fork snapshots (default) or stateless replay"),
	TUI_OPT_BOOL(0, "no-deadlock", A, no_deadlock, "a last state without successors is not a violation"),
	TUI_OPT_BOOL(0, "json", A, json, "print one JSON object"),
	TUI_OPT_TEXT("Every state reached is judged as `cmc check` judges it; replay stops at the\n"
		     "first property that fails.  Without recorded fingerprints the trace runs twice\n"
		     "and the runs must agree.  Exit 0: replayed, nothing violated (and nothing\n"
		     "expected); 1: violation reproduced (the last line says which, where); 2: usage\n"
		     "or input error, or the target failed; 3: did not reproduce (a step diverged or\n"
		     "was not enabled, the runs disagree, or the expected violation did not come);\n"
		     "130, 143, 129: interrupted by SIGINT, SIGTERM, SIGHUP.\n"),
	TUI_OPT_END(),
};
#undef A

/* One step (0: the initial state) as one run saw it. */
struct step {
	bool seen;
	eng_step_outcome outcome;
	eng_fp fp, raw, canon;
	bool fault;
	char fault_what[200]; /* how the target ended, when it faulted */
	char *violated;     /* "PROPERTY: message; ..." or NULL */
};

struct run {
	struct step *st;    /* len + 1 entries */
	size_t n;
};

static void run_free(struct run *r)
{
	for (size_t i = 0; r->st && i < r->n; i++)
		free(r->st[i].violated);
	free(r->st);
}

static void on_step(void *ctx, const eng_replay_step *s)
{
	struct run *r = ctx;
	if (s->step >= r->n)
		return;
	struct step *d = &r->st[s->step];
	d->seen = true;
	d->outcome = s->outcome;
	d->fault = s->fault;
	if (s->succ) {
		d->fp = s->succ->fp;
		const eng_obs *ob = s->succ->obs;
		if (ob) {
			d->raw = ob->raw;
			d->canon = ob->canon;
		}
		if (ob && (ob->flags & ENG_OBS_SIGNALED))
			snprintf(d->fault_what, sizeof d->fault_what, "the target died on signal %d (%s)",
				 ob->term_signal, strsignal(ob->term_signal));
		else if (ob && (ob->flags & ENG_OBS_FAULT))
			snprintf(d->fault_what, sizeof d->fault_what, "%s",
				 ob->fault ? ob->fault : "the target faulted");
	}
	if (s->nviolated) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			eng_die("out of memory");
		for (size_t i = 0; i < s->nviolated; i++)
			fprintf(m, "%s%s: %s", i ? "; " : "", s->property[i], s->message[i]);
		fclose(m);
		d->violated = buf;
	}
}

/* ---- trace files ------------------------------------------------------ */

/* What a trace file recorded beyond labels and identity fingerprints. */
struct recorded {
	eng_fp *raw, *canon;   /* per step (zero: none) */
	bool *has;             /* the line gave raw and canonical */
	long init_index;       /* `init N`; -1: none */
	char *expect;          /* `expect PROPERTY`; NULL: none */
};

static void recorded_free(struct recorded *r)
{
	free(r->raw);
	free(r->canon);
	free(r->has);
	free(r->expect);
}

/* Exactly 32 hex digits up to the end of the field. */
static bool parse_hex_fp(const char *s, size_t n, eng_fp *fp)
{
	if (n != 32)
		return false;
	uint64_t v[2] = {0, 0};
	for (int i = 0; i < 32; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return false;
		v[i / 16] = v[i / 16] << 4 | (uint64_t)d;
	}
	fp->hi = v[0];
	fp->lo = v[1];
	return true;
}

static int bad_line(FILE *f, const char *path, size_t lineno, const char *what)
{
	fprintf(stderr, "cmc replay: %s:%zu: %s\n", path, lineno, what);
	fclose(f);
	return -1;
}

/* A header line (`init ...`, `expect ...`): 1 when it was one, 0 when the
 * line is a label, -1 on an error (reported). */
static int header_line(FILE *f, const char *path, size_t lineno, const char *line, eng_trace *t,
		       struct recorded *rec)
{
	if (strncmp(line, "init ", 5) == 0) {
		const char *a = line + 5;
		size_t n = strlen(a);
		char *end;
		if (n == 32) {
			if (!parse_hex_fp(a, n, &t->init_fp))
				return bad_line(f, path, lineno, "expected `init` and 32 hex digits or an index");
			if (eng_fp_zero(t->init_fp))
				return bad_line(f, path, lineno, "the initial state's fingerprint is all zeros "
						"(a fingerprint is never zero)");
			return 1;
		}
		long v = n && a[0] >= '0' && a[0] <= '9' ? strtol(a, &end, 10) : -1;
		if (v < 0 || *end)
			return bad_line(f, path, lineno, "expected `init` and 32 hex digits or an index");
		rec->init_index = v;
		return 1;
	}
	if (strncmp(line, "expect ", 7) == 0) {
		if (!line[7] || strchr(line + 7, '\t'))
			return bad_line(f, path, lineno, "expected `expect` and a property name");
		free(rec->expect);
		rec->expect = eng_xstrdup(line + 7);
		return 1;
	}
	return 0;
}

static int read_trace_file(const char *path, eng_trace *t, struct recorded *rec)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cmc replay: cannot open '%s'\n", path);
		return -1;
	}
	static const char want[] = "expected LABEL, then optionally a tab and 32 hex digits (its "
				   "fingerprint), then optionally a tab and 32 for raw, a tab and 32 "
				   "for canonical";
	char line[4096];
	size_t cap = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		else if (!feof(f))
			return bad_line(f, path, lineno, "line longer than 4094 bytes");
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (n == 0 || line[0] == '#')
			continue;
		if (t->len == 0) {
			int h = header_line(f, path, lineno, line, t, rec);
			if (h < 0)
				return -1;
			if (h)
				continue;
		}
		if (t->len == cap) {
			cap = cap ? 2 * cap : 16;
			t->labels = eng_xrealloc(t->labels, cap * sizeof *t->labels);
			t->fps = eng_xrealloc(t->fps, cap * sizeof *t->fps);
			rec->raw = eng_xrealloc(rec->raw, cap * sizeof *rec->raw);
			rec->canon = eng_xrealloc(rec->canon, cap * sizeof *rec->canon);
			rec->has = eng_xrealloc(rec->has, cap * sizeof *rec->has);
		}
		eng_fp fp = {0, 0}, raw = {0, 0}, canon = {0, 0};
		bool has = false;
		char *tab = strchr(line, '\t');
		if (tab == line)
			return bad_line(f, path, lineno, want);
		if (tab) {
			*tab = 0;
			char *f1 = tab + 1, *t2 = strchr(f1, '\t');
			char *f2 = t2 ? t2 + 1 : NULL, *t3 = f2 ? strchr(f2, '\t') : NULL;
			char *f3 = t3 ? t3 + 1 : NULL;
			bool bad = !parse_hex_fp(f1, t2 ? (size_t)(t2 - f1) : strlen(f1), &fp);
			if (!bad && t2) {
				has = true;
				bad = !t3 || !parse_hex_fp(f2, (size_t)(t3 - f2), &raw) ||
				      !parse_hex_fp(f3, strlen(f3), &canon);
			}
			if (bad)
				return bad_line(f, path, lineno, want);
			if (eng_fp_zero(fp))
				return bad_line(f, path, lineno, "the fingerprint is all zeros (a fingerprint "
						"is never zero; leave it out to record none)");
		}
		t->labels[t->len] = eng_xstrdup(line);
		t->fps[t->len] = fp;
		rec->raw[t->len] = raw;
		rec->canon[t->len] = canon;
		rec->has[t->len] = has;
		t->len++;
	}
	fclose(f);
	return 0;
}

/* ---- output ----------------------------------------------------------- */

static const char *outcome_name(eng_step_outcome o, bool two_runs)
{
	switch (o) {
	case ENG_STEP_MATCHED: return two_runs ? "agreed" : "matched";
	case ENG_STEP_UNRECORDED: return "taken";
	case ENG_STEP_DIVERGED: return "DIVERGED";
	case ENG_STEP_NOT_TAKEN: return "NOT ENABLED";
	case ENG_STEP_ERROR: return "ERROR";
	}
	return "?";
}

static void print_fps(const char *what, eng_fp fp, eng_fp raw, eng_fp canon)
{
	char a[33], b[33], c[33];
	printf("        %-12s %s", what, eng_fp_zero(fp) ? "(nothing reached)" : eng_fp_hex(fp, a));
	if (!eng_fp_zero(raw) || !eng_fp_zero(canon))
		printf("  raw %s  canonical %s", eng_fp_hex(raw, b), eng_fp_hex(canon, c));
	putchar('\n');
}

struct replay_args {
	bool json, two_runs;
	const char *target;
	const eng_trace *t;
	const struct recorded *rec;
	size_t nrec;            /* steps the file recorded raw/canonical for */
	const struct run *r1;   /* the judging run */
	const struct run *r2;   /* two_runs: the second run; else NULL */
	size_t odd_step;        /* a raw/canonical divergence the caller found */
	const char *odd_what;   /* "raw" or "canonical" */
	const eng_replay_result *res;
	int code;
	const char *verdict;
	int signal;             /* the user's signal that interrupted it, or 0 */
};

static void print_human(const struct replay_args *a)
{
	const eng_trace *t = a->t;
	for (size_t i = 0; i <= t->len; i++) {
		const struct step *s = &a->r1->st[i];
		const struct step *s2 = a->r2 ? &a->r2->st[i] : NULL;
		if (!s->seen)
			break;
		eng_step_outcome o = s2 && s2->seen && s->outcome != ENG_STEP_NOT_TAKEN ? s2->outcome
											   : s->outcome;
		bool odd = a->odd_step == i;
		char fp[33];
		printf("%4zu  %-11s  %s  ", i,
		       odd					  ? "DIVERGED"
		       : s->fault && o != ENG_STEP_DIVERGED	  ? "FAULT"
		       : i == 0 && o == ENG_STEP_NOT_TAKEN	  ? "NOT FOUND"
		       : a->signal && o == ENG_STEP_ERROR	  ? "INTERRUPTED"
								  : outcome_name(o, a->two_runs),
		       eng_fp_zero(s->fp) ? "--------------------------------" : eng_fp_hex(s->fp, fp));
		if (i)
			tui_escape(stdout, t->labels[i - 1], strlen(t->labels[i - 1]), 200);
		else
			fputs("(initial state)", stdout);
		if (!eng_fp_zero(s->raw) || !eng_fp_zero(s->canon)) {
			char b[33], d[33];
			printf("  raw %.12s canonical %.12s", eng_fp_hex(s->raw, b), eng_fp_hex(s->canon, d));
		}
		putchar('\n');
		if (o == ENG_STEP_DIVERGED || odd) {
			eng_fp want = i ? t->fps[i - 1] : t->init_fp;
			eng_fp wraw = {0, 0}, wcanon = {0, 0};
			if (i && i <= a->nrec && a->rec->has[i - 1]) {
				wraw = a->rec->raw[i - 1];
				wcanon = a->rec->canon[i - 1];
			}
			if (a->two_runs)
				print_fps("first run", s->fp, s->raw, s->canon);
			else
				print_fps("expected", want, wraw, wcanon);
			if (a->two_runs && s2)
				print_fps("second run", s2->fp, s2->raw, s2->canon);
			else
				print_fps("actual", s->fp, s->raw, s->canon);
		} else if (o == ENG_STEP_NOT_TAKEN && i == 0 && !eng_fp_zero(t->init_fp)) {
			print_fps("expected", t->init_fp, (eng_fp){0, 0}, (eng_fp){0, 0});
		}
		if (s->fault) {
			printf("        %-12s ", "fault");
			tui_escape(stdout, s->fault_what, strlen(s->fault_what), 200);
			putchar('\n');
		}
		if (s->violated) {
			printf("        %-12s ", "violated");
			tui_escape(stdout, s->violated, strlen(s->violated), 1024);
			putchar('\n');
		}
	}
	printf("%s\n", a->verdict);
}

static const char *outcome_json(eng_step_outcome o)
{
	switch (o) {
	case ENG_STEP_MATCHED: return "matched";
	case ENG_STEP_UNRECORDED: return "unrecorded";
	case ENG_STEP_DIVERGED: return "diverged";
	case ENG_STEP_NOT_TAKEN: return "not_taken";
	case ENG_STEP_ERROR: return "error";
	}
	return "?";
}

static void json_step(struct tui_json *j, const struct replay_args *a, size_t i)
{
	const struct step *s = &a->r1->st[i];
	const struct step *s2 = a->r2 ? &a->r2->st[i] : NULL;
	char f[33], r[33], c[33];
	tui_json_object(j);
	tui_json_u64(tui_json_key(j, "step"), i);
	tui_json_string(tui_json_key(j, "label"), i ? a->t->labels[i - 1] : NULL);
	/* label, fp, raw, canonical first and as strings: older scripts read
	 * them in that order */
	tui_json_string(tui_json_key(j, "fp"), eng_fp_hex(s->fp, f));
	tui_json_string(tui_json_key(j, "raw"), eng_fp_hex(s->raw, r));
	tui_json_string(tui_json_key(j, "canonical"), eng_fp_hex(s->canon, c));
	eng_step_outcome o = s2 && s2->seen && s->outcome != ENG_STEP_NOT_TAKEN ? s2->outcome : s->outcome;
	tui_json_string(tui_json_key(j, "outcome"),
			a->odd_step == i ? "diverged" : !s->seen ? "not_replayed"
			: a->signal && o == ENG_STEP_ERROR ? "interrupted" : outcome_json(o));
	tui_json_fp(tui_json_key(j, "expected"),
		    a->two_runs ? (eng_fp){0, 0} : i ? a->t->fps[i - 1] : a->t->init_fp);
	if (s2)
		tui_json_fp(tui_json_key(j, "second_run"), s2->fp);
	tui_json_string(tui_json_key(j, "fault"), s->fault ? s->fault_what : NULL);
	tui_json_string(tui_json_key(j, "violated"), s->violated);
	tui_json_end(j);
}

static void print_json(const struct replay_args *a)
{
	const eng_replay_result *res = a->res;
	static const char *const verdicts[] = {"ok", "violation", "error", "not_reproduced"};
	struct tui_json j;
	tui_json_begin(&j, stdout);
	tui_json_object(&j);
	tui_json_string(tui_json_key(&j, "target"), a->target);
	tui_json_u64(tui_json_key(&j, "steps"), a->t->len);
	tui_json_u64(tui_json_key(&j, "replayed"), res->taken);
	tui_json_string(tui_json_key(&j, "verdict"), a->signal ? "interrupted" : verdicts[a->code]);
	tui_json_i64(tui_json_key(&j, "exit"), a->code);
	tui_json_bool(tui_json_key(&j, "interrupted"), a->signal);
	tui_json_string(tui_json_key(&j, "signal"), a->signal ? tui_signal_name(a->signal) : NULL);
	tui_json_string(tui_json_key(&j, "message"), a->verdict);
	tui_json_string(tui_json_key(&j, "expect"), a->rec->expect);
	tui_json_key(&j, "violation");
	if (res->violated == SIZE_MAX) {
		tui_json_null(&j);
	} else {
		tui_json_object(&j);
		tui_json_string(tui_json_key(&j, "property"), res->property);
		tui_json_string(tui_json_key(&j, "message"), res->message);
		tui_json_u64(tui_json_key(&j, "step"), res->violated);
		tui_json_string(tui_json_key(&j, "label"),
				res->violated ? a->t->labels[res->violated - 1] : NULL);
		tui_json_bool(tui_json_key(&j, "fault"), res->fault);
		tui_json_end(&j);
	}
	tui_json_key(&j, "diverged_at");
	if (res->diverged == SIZE_MAX)
		tui_json_null(&j);
	else
		tui_json_u64(&j, res->diverged);
	tui_json_string(tui_json_key(&j, "reason"), res->diverged == SIZE_MAX ? NULL : res->why);
	tui_json_key(&j, "divergence");
	if (res->diverged == SIZE_MAX) {
		tui_json_null(&j);
	} else {
		tui_json_object(&j);
		tui_json_u64(tui_json_key(&j, "step"), res->diverged);
		tui_json_string(tui_json_key(&j, "how"), outcome_json(res->how));
		tui_json_fp(tui_json_key(&j, "expected"), res->expected);
		tui_json_fp(tui_json_key(&j, "actual"), res->actual);
		tui_json_end(&j);
	}
	json_step(tui_json_key(&j, "init"), a, 0);
	tui_json_array(tui_json_key(&j, "trace"));
	for (size_t i = 1; i <= a->t->len; i++)
		json_step(&j, a, i);
	tui_json_end(&j);
	tui_json_end(&j);
	tui_json_finish(&j);
}

/* ---- the command ------------------------------------------------------ */

/* A divergence the engine's run did not see (another run, or raw and
 * canonical against the file): the first one becomes the result's. */
static void note_divergence(eng_replay_result *res, size_t step, eng_fp want, eng_fp got,
			    const char *fmt, const char *label, const char *what)
{
	if (res->diverged != SIZE_MAX && res->diverged <= step)
		return;
	res->diverged = step;
	res->how = ENG_STEP_DIVERGED;
	res->expected = want;
	res->actual = got;
	if (step)
		snprintf(res->why, sizeof res->why, "step %zu (%s): %s", step, label, fmt);
	else
		snprintf(res->why, sizeof res->why, "the initial state: %s", fmt);
	(void)what;
}

/*
 * A label no action of the target can ever give is a mistake in the
 * command, not a trace that diverged: a usage error naming the labels the
 * target knows.  A scenario's labels are exactly its ops, checked before
 * the replay.  A model's successors may carry labels of their own, usually
 * built on the action's name ("Prepare(r1)"), but not necessarily: a
 * model's label is judged only when the replay could not take it, and is
 * known when it is an action's name or starts with one followed by
 * something that is not part of a name.
 */
static bool label_known(eng_frontend *fe, const char *label)
{
	bool model = strcmp(fe->ops->kind, "model") == 0;
	unsigned n = fe->ops->n_actions(fe);
	for (unsigned i = 0; i < n; i++) {
		const char *a = fe->ops->action_name(fe, i);
		size_t k = a ? strlen(a) : 0;
		if (!a || strncmp(label, a, k) != 0)
			continue;
		char c = label[k];
		if (c == 0 || (model && !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
					  (c >= 'A' && c <= 'Z'))))
			return true;
	}
	return false;
}

/* Labels from..to-1 of t; true after the usage error for the first unknown. */
static bool unknown_label(eng_frontend *fe, const eng_trace *t, size_t from, size_t to,
			  const char *target)
{
	if (!fe->ops->n_actions || !fe->ops->action_name || fe->ops->n_actions(fe) == 0)
		return false;
	for (size_t i = from; i < to && i < t->len; i++) {
		if (label_known(fe, t->labels[i]))
			continue;
		fprintf(stderr, "cmc replay: step %zu: '", i + 1);
		tui_escape(stderr, t->labels[i], strlen(t->labels[i]), 64);
		fputs("' is no operation of ", stderr);
		tui_escape(stderr, target, strlen(target), 200);
		fputs("; it knows ", stderr);
		unsigned n = fe->ops->n_actions(fe);
		for (unsigned k = 0; k < n; k++) {
			const char *a = fe->ops->action_name(fe, k);
			fputs(k ? ", " : "", stderr);
			tui_escape(stderr, a ? a : "?", a ? strlen(a) : 1, 64);
		}
		fputs("\n", stderr);
		fprintf(stderr, "usage: cmc %s\n", tui_cmd_replay.usage);
		return true;
	}
	return false;
}

static int replay_exec(int argc, char **argv)
{
	struct replay_opts ro = {0};
	int rc = tui_options_parse(&tui_cmd_replay, argc, argv, &ro);
	if (rc)
		return rc;
	bool json = ro.json, no_deadlock = ro.no_deadlock;
	const char *file = ro.file, *init = ro.init, *expect = ro.expect, *exec = ro.exec;
	if (optind >= argc)
		return tui_usage_error(&tui_cmd_replay, "name a model or scenario, then the trace");
	const char *target = argv[optind++];
	eng_trace *t = eng_xcalloc(1, sizeof *t);
	struct recorded rec = {NULL, NULL, NULL, -1, NULL};
	if (file && read_trace_file(file, t, &rec) < 0) {
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}
	size_t nrec = t->len; /* steps the file gave (rec covers those) */
	for (; optind < argc; optind++) {
		t->labels = eng_xrealloc(t->labels, (t->len + 1) * sizeof *t->labels);
		t->fps = eng_xrealloc(t->fps, (t->len + 1) * sizeof *t->fps);
		t->labels[t->len] = eng_xstrdup(argv[optind]);
		t->fps[t->len] = (eng_fp){0, 0};
		t->len++;
	}
	if (init) {
		char *end;
		t->init_fp = (eng_fp){0, 0};
		rec.init_index = -1;
		if (strlen(init) == 32) {
			if (!parse_hex_fp(init, 32, &t->init_fp) || eng_fp_zero(t->init_fp)) {
				eng_trace_free(t);
				recorded_free(&rec);
				return tui_usage_error(&tui_cmd_replay, "--init: expected an index or 32 hex "
						       "digits (not all zero), got '%s'", init);
			}
		} else if (init[0] >= '0' && init[0] <= '9' && (rec.init_index = strtol(init, &end, 10)) >= 0 &&
			   !*end) {
		} else {
			eng_trace_free(t);
			recorded_free(&rec);
			return tui_usage_error(&tui_cmd_replay, "--init: expected an index or 32 hex digits, "
					       "got '%s'", init);
		}
	}
	if (expect) {
		free(rec.expect);
		rec.expect = eng_xstrdup(expect);
	}
	bool recorded = !eng_fp_zero(t->init_fp);
	for (size_t i = 0; i < t->len; i++)
		recorded |= !eng_fp_zero(t->fps[i]);

	eng_opts eo;
	eng_opts_default(&eo);
	char err[1024];
	eng_frontend *fe = tui_open_target(target, &eo, err, sizeof err);
	if (!fe) {
		fprintf(stderr, "cmc replay: %s\n", err);
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}
	if (exec && (strcmp(fe->ops->kind, "process") != 0 ||
		     proc_override(fe, "exec", exec, err, sizeof err) < 0)) {
		fprintf(stderr, "cmc replay: %s\n", strcmp(fe->ops->kind, "process") != 0
							  ? "--exec applies to scenarios, not models" : err);
		fe->ops->destroy(fe);
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}

	bool model = strcmp(fe->ops->kind, "model") == 0;
	if (!model && unknown_label(fe, t, 0, t->len, target)) {
		fe->ops->destroy(fe);
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}

	eng_replay_opts o;
	eng_replay_opts_default(&o);
	o.init_index = rec.init_index;
	o.check_deadlock = !no_deadlock;
	o.expect = rec.expect;
	o.fn = on_step;
	struct run r1 = {eng_xcalloc(t->len + 1, sizeof(struct step)), t->len + 1};
	struct run r2 = {NULL, 0};
	eng_replay_result res, res2;
	o.ctx = &r1;
	/* SIGINT, SIGTERM, SIGHUP: the wait for the target returns at once
	 * (proc_interrupt()), the replay stops with what it saw; a target's
	 * own signal is its fault (tui/cli/signals.c). */
	tui_signals_stop(NULL);
	eng_replay(fe, t, &o, &res);
	if (model && !res.error && res.how == ENG_STEP_NOT_TAKEN && res.diverged != SIZE_MAX &&
	    res.diverged >= 1 && unknown_label(fe, t, res.diverged - 1, res.diverged, target)) {
		run_free(&r1);
		fe->ops->destroy(fe);
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}

	/* Nothing recorded: a second run must reach what the first reached,
	 * step by step, from the same initial state. */
	bool two_runs = !recorded && !res.error && r1.st[0].seen && !tui_signals_caught();
	if (two_runs) {
		size_t upto = res.taken;
		eng_trace t2 = {upto, t->labels, eng_xcalloc(t->len + 1, sizeof(eng_fp)), r1.st[0].fp};
		for (size_t i = 0; i < upto; i++)
			t2.fps[i] = r1.st[i + 1].fp;
		r2 = (struct run){eng_xcalloc(t->len + 1, sizeof(struct step)), t->len + 1};
		o.ctx = &r2;
		o.init_index = -1;
		eng_replay(fe, &t2, &o, &res2);
		if (res2.error) {
			res.error = true;
			res.diverged = res2.diverged;
			snprintf(res.why, sizeof res.why, "second run: %.490s", res2.why);
		} else if (res2.diverged != SIZE_MAX) {
			size_t k = res2.diverged;
			note_divergence(&res, k, res2.expected, res2.actual,
					res2.how == ENG_STEP_NOT_TAKEN
						? "the action is not enabled in the second run (the target is "
						  "nondeterministic)"
						: "two runs reached different states (the target is "
						  "nondeterministic)",
					k ? t->labels[k - 1] : NULL, NULL);
		}
		free(t2.fps);
	}
	/* Raw and canonical separately: the identity may cover only one. */
	size_t odd_step = SIZE_MAX;
	const char *odd_what = NULL;
	for (size_t i = 0; i <= t->len && !res.error; i++) {
		const struct step *s = &r1.st[i];
		if (!s->seen)
			break;
		eng_fp wraw = {0, 0}, wcanon = {0, 0}, graw = s->raw, gcanon = s->canon;
		bool have = false;
		if (two_runs && r2.st[i].seen) {
			have = true;
			wraw = s->raw;
			wcanon = s->canon;
			graw = r2.st[i].raw;
			gcanon = r2.st[i].canon;
		} else if (!two_runs && i && i <= nrec && rec.has[i - 1]) {
			have = true;
			wraw = rec.raw[i - 1];
			wcanon = rec.canon[i - 1];
		}
		if (!have)
			continue;
		const char *which = !eng_fp_eq(wraw, graw) ? "raw" : !eng_fp_eq(wcanon, gcanon) ? "canonical" : NULL;
		if (!which)
			continue;
		char why[128];
		snprintf(why, sizeof why, two_runs ? "the %s fingerprint differs between two runs (the "
			 "target is nondeterministic)" : "the %s fingerprint differs from the recorded one",
			 which);
		bool first = res.diverged == SIZE_MAX || res.diverged > i;
		note_divergence(&res, i, which[0] == 'r' ? wraw : wcanon, which[0] == 'r' ? graw : gcanon, why,
				i ? t->labels[i - 1] : NULL, which);
		if (first) {
			odd_step = i;
			odd_what = which;
		}
		break;
	}

	char verdict[1024];
	int code = tui_replay_verdict(t, t->len, &res, rec.expect, verdict, sizeof verdict);
	int sig = tui_signals_which();
	if (sig) { /* what it saw is shown, but nothing is proven either way */
		code = TUI_EXIT_SIGNAL(sig);
		snprintf(verdict, sizeof verdict, "interrupted by %s after %zu of %zu step%s: the replay "
			 "proves nothing", tui_signal_name(sig), res.taken, t->len, tui_s(t->len));
	}
	struct replay_args a = {json, two_runs, target, t, &rec, nrec, &r1, two_runs ? &r2 : NULL,
				odd_step, odd_what, &res, code, verdict, sig};
	if (json)
		print_json(&a);
	else
		print_human(&a);
	run_free(&r1);
	run_free(&r2);
	recorded_free(&rec);
	size_t steps = t->len;
	eng_trace_free(t);
	fe->ops->destroy(fe);
	if (sig)
		fprintf(stderr, "cmc replay: interrupted by %s after %zu of %zu step%s\n",
			tui_signal_name(sig), res.taken, steps, tui_s(steps));
	return code;
}

const struct tui_cmd tui_cmd_replay = {
	.name = "replay",
	.usage = "replay [OPTIONS] MODEL|SCENARIO [LABEL...]",
	.summary = "re-execute a trace, check every property at every step, prove its violation",
	.options = replay_options,
	.exec = replay_exec,
};
