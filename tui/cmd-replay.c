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

/* One label per line; a tab then 32 hex digits records its fingerprint. */
static int read_trace_file(const char *path, eng_trace *t)
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
		}
		eng_fp fp = {0, 0};
		char *tab = strchr(line, '\t');
		if (tab) {
			*tab = 0;
			if (!parse_hex_fp(tab + 1, &fp)) {
				fprintf(stderr, "cmc replay: %s:%zu: expected 32 hex digits after the tab\n",
					path, lineno);
				fclose(f);
				return -1;
			}
		}
		t->labels[t->len] = eng_xstrdup(line);
		t->fps[t->len] = fp;
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
	if (file && read_trace_file(file, t) < 0) {
		eng_trace_free(t);
		return TUI_EXIT_USAGE;
	}
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
	eng_trace_free(t);
	fe->ops->destroy(fe);
	return diverged == SIZE_MAX ? TUI_EXIT_OK : TUI_EXIT_VIOLATION;
}

const struct tui_cmd tui_cmd_replay = {
	.name = "replay",
	.usage = "replay [--json] [--file TRACE] MODEL|SCENARIO [LABEL...]",
	.summary = "re-execute a trace and check every step reaches what was recorded",
	.help = "  --file TRACE    labels one per line; a tab and 32 hex digits after a label\n"
		"                  give the fingerprint recorded for that step\n"
		"  --json          print one JSON object\n"
		"Without recorded fingerprints the trace runs twice and the runs must agree.\n"
		"Exit 0 when reproduced, 1 when a step diverges, 2 on usage errors.\n",
	.exec = replay_exec,
};
