/*
 * cmd-replay.c — `cmc replay`: re-execute a trace on the model or the live
 * target and check, step by step, that what it reaches is what was recorded.
 * Without recorded fingerprints the trace is run twice and the runs are
 * compared, which is how a nondeterministic target shows itself.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

extern const struct tui_cmd tui_cmd_replay;

enum { O_JSON = 256, O_FILE };

static const struct option replay_longopts[] = {
	{"json", no_argument, NULL, O_JSON},
	{"file", required_argument, NULL, O_FILE},
	{0, 0, 0, 0},
};

struct step {
	bool seen;
	eng_fp fp, raw, canon;
	bool matched;
};

struct run {
	struct step *st;
	size_t n;
};

static void on_step(void *ctx, size_t i, const char *label, const eng_succ *s, bool matched)
{
	struct run *r = ctx;
	if (i >= r->n)
		return;
	r->st[i].seen = true;
	r->st[i].fp = s->fp;
	r->st[i].matched = matched;
	if (s->obs) {
		r->st[i].raw = s->obs->raw;
		r->st[i].canon = s->obs->canon;
	}
}

static bool parse_hex_fp(const char *s, eng_fp *fp)
{
	if (strlen(s) < 32)
		return false;
	uint64_t v[2] = {0, 0};
	for (int i = 0; i < 32; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v[i / 16] = v[i / 16] << 4 | (uint64_t)d;
	}
	fp->hi = v[0];
	fp->lo = v[1];
	return true;
}

/* What a trace file recorded for each step beyond the identity
 * fingerprint: raw and canonical, when the line has them (has[i]). */
struct recorded {
	eng_fp *raw, *canon;
	bool *has;
};

static void recorded_free(struct recorded *r)
{
	free(r->raw);
	free(r->canon);
	free(r->has);
}

/* One label per line; a tab then 32 hex digits records its fingerprint; two
 * more tab-separated fingerprints record its raw and canonical ones (as
 * `cmc replay --json` prints them; zeros: none). */
static int read_trace_file(const char *path, eng_trace *t, struct recorded *rec)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cmc replay: cannot open '%s'\n", path);
		return -1;
	}
	char line[4096];
	size_t cap = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (n == 0 || line[0] == '#')
			continue;
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
		if (tab) {
			*tab = 0;
			char *f2 = tab + 1, *t2 = strchr(f2, '\t'), *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
			bool bad = !parse_hex_fp(f2, &fp) || (t2 ? t2 - f2 : (long)strlen(f2)) != 32;
			if (!bad && t2) {
				has = true;
				bad = !t3 || t3 - (t2 + 1) != 32 || strlen(t3 + 1) != 32 ||
				      !parse_hex_fp(t2 + 1, &raw) || !parse_hex_fp(t3 + 1, &canon);
			}
			if (bad) {
				fprintf(stderr, "cmc replay: %s:%zu: expected LABEL, a tab and 32 hex digits "
					"(then optionally a tab, 32 for raw, a tab, 32 for canonical)\n",
					path, lineno);
				fclose(f);
				return -1;
			}
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

static int replay_exec(int argc, char **argv)
{
	bool json = false;
	const char *file = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", replay_longopts, NULL)) != -1) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_FILE: file = optarg; break;
		default:
			return tui_usage_error(&tui_cmd_replay, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return tui_usage_error(&tui_cmd_replay, "name a model or scenario, then the trace");
	const char *target = argv[optind++];
	eng_trace *t = eng_xcalloc(1, sizeof *t);
	struct recorded rec = {NULL, NULL, NULL};
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
	bool recorded = false;
	for (size_t i = 0; i < t->len; i++)
		recorded |= !eng_fp_zero(t->fps[i]);

	eng_opts o;
	eng_opts_default(&o);
	char err[1024];
	eng_frontend *fe = tui_open_target(target, &o, err, sizeof err);
	if (!fe) {
		fprintf(stderr, "cmc replay: %s\n", err);
		eng_trace_free(t);
		recorded_free(&rec);
		return TUI_EXIT_USAGE;
	}

	struct run r1 = {eng_xcalloc(t->len + 1, sizeof(struct step)), t->len};
	struct run r2 = {eng_xcalloc(t->len + 1, sizeof(struct step)), t->len};
	size_t div1, div2 = SIZE_MAX;
	char why[512] = "";
	long done = eng_replay(fe, t, on_step, &r1, &div1, why, sizeof why);
	/* Second run: against the recorded fingerprints if any, else the first run. */
	eng_trace t2 = *t;
	eng_fp *fps2 = NULL;
	if (!recorded) {
		fps2 = eng_xcalloc(t->len + 1, sizeof *fps2);
		for (size_t i = 0; i < t->len; i++)
			fps2[i] = r1.st[i].fp;
		t2.fps = fps2;
	}
	char why2[512] = "";
	if (div1 == SIZE_MAX)
		eng_replay(fe, &t2, on_step, &r2, &div2, why2, sizeof why2);
	/* Raw and canonical separately: the identity may cover only one. */
	size_t first_raw = SIZE_MAX, first_canon = SIZE_MAX;
	for (size_t i = 0; i < t->len && div1 == SIZE_MAX; i++) {
		if (first_raw == SIZE_MAX && !eng_fp_eq(r1.st[i].raw, r2.st[i].raw))
			first_raw = i;
		if (first_canon == SIZE_MAX && !eng_fp_eq(r1.st[i].canon, r2.st[i].canon))
			first_canon = i;
	}
	/* Raw and canonical against what the file recorded for them. */
	for (size_t i = 0; i < nrec && div1 == SIZE_MAX && first_raw == SIZE_MAX &&
			   first_canon == SIZE_MAX; i++) {
		if (!rec.has[i] || i >= (size_t)done)
			continue;
		const char *which = !eng_fp_eq(r1.st[i].raw, rec.raw[i])     ? "raw"
				    : !eng_fp_eq(r1.st[i].canon, rec.canon[i]) ? "canonical"
									       : NULL;
		if (!which)
			continue;
		if (which[0] == 'r')
			first_raw = i;
		else
			first_canon = i;
		div1 = i;
		snprintf(why, sizeof why, "step %zu (%s): %s fingerprint differs from the recorded one",
			 i + 1, t->labels[i], which);
	}
	size_t diverged = div1 != SIZE_MAX ? div1 : div2;
	if (diverged == SIZE_MAX && first_raw != SIZE_MAX) {
		diverged = first_raw;
		snprintf(why2, sizeof why2, "step %zu (%s): raw fingerprint differs between two runs",
			 first_raw + 1, t->labels[first_raw]);
	}
	if (diverged == SIZE_MAX && first_canon != SIZE_MAX) {
		diverged = first_canon;
		snprintf(why2, sizeof why2, "step %zu (%s): canonical fingerprint differs between two runs",
			 first_canon + 1, t->labels[first_canon]);
	}
	const char *reason = div1 != SIZE_MAX ? why : why2;

	if (json) {
		printf("{\"target\": ");
		tui_json_str(stdout, target);
		printf(", \"steps\": %zu, \"replayed\": %ld, \"reproduced\": %s, \"diverged_at\": ",
		       t->len, done, diverged == SIZE_MAX ? "true" : "false");
		if (diverged == SIZE_MAX)
			printf("null");
		else
			printf("%zu", diverged + 1);
		printf(", \"reason\": ");
		tui_json_str(stdout, diverged == SIZE_MAX ? NULL : reason);
		printf(", \"trace\": [");
		for (size_t i = 0; i < t->len; i++) {
			char a[33], b[33], d[33];
			printf("%s{\"label\": ", i ? ", " : "");
			tui_json_str(stdout, t->labels[i]);
			printf(", \"fp\": \"%s\", \"raw\": \"%s\", \"canonical\": \"%s\"}",
			       eng_fp_hex(r1.st[i].fp, a), eng_fp_hex(r1.st[i].raw, b),
			       eng_fp_hex(r1.st[i].canon, d));
		}
		printf("]}\n");
	} else {
		for (size_t i = 0; i < t->len && i < (size_t)done; i++) {
			char a[33];
			printf("%3zu  %s  ", i + 1, eng_fp_hex(r1.st[i].fp, a));
			tui_escape(stdout, t->labels[i], strlen(t->labels[i]), 200);
			if (!eng_fp_zero(r1.st[i].raw) || !eng_fp_zero(r1.st[i].canon)) {
				char b[33], d[33];
				printf("  raw %.12s canonical %.12s", eng_fp_hex(r1.st[i].raw, b),
				       eng_fp_hex(r1.st[i].canon, d));
			}
			putchar('\n');
		}
		if (diverged == SIZE_MAX)
			printf("replay: all %zu steps reproduced%s\n", t->len,
			       recorded ? " the recorded fingerprints" : " (two runs agree)");
		else
			printf("replay: diverged: %s%s\n", reason,
			       div1 == SIZE_MAX && !recorded ? " (the target is nondeterministic)" : "");
	}
	free(r1.st);
	free(r2.st);
	free(fps2);
	recorded_free(&rec);
	eng_trace_free(t);
	fe->ops->destroy(fe);
	return diverged == SIZE_MAX ? TUI_EXIT_OK : TUI_EXIT_VIOLATION;
}

const struct tui_cmd tui_cmd_replay = {
	.name = "replay",
	.usage = "replay [--json] [--file TRACE] MODEL|SCENARIO [LABEL...]",
	.summary = "re-execute a trace and check every step reaches what was recorded",
	.help = "  --file TRACE    labels one per line; a tab and 32 hex digits after a label\n"
		"                  give the fingerprint recorded for that step, and two\n"
		"                  more (tab-separated) its raw and canonical fingerprints\n"
		"  --json          print one JSON object\n"
		"Without recorded fingerprints the trace runs twice and the runs must agree.\n"
		"Exit 0 when reproduced, 1 when a step diverges, 2 on usage errors.\n",
	.exec = replay_exec,
};
