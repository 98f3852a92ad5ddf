/*
 * storeargs.c — helpers of the store-reading commands (see storeargs.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "storeargs.h"

store *tui_store_open(const struct tui_cmd *c, const char *db)
{
	char err[600];
	store_opts o = {.readonly = true};
	store *st = store_open(db ? db : STORE_DEFAULT_PATH, &o, err, sizeof err);
	if (!st)
		fprintf(stderr, "cmc %s: %s\n", c->name, err);
	return st;
}

bool tui_parse_id(const char *s, int64_t *out)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		return false;
	*out = v;
	return true;
}

int tui_store_run(const struct tui_cmd *c, store *st, const char *arg, int64_t *run)
{
	if (!arg) {
		*run = store_latest_run(st);
		if (*run == 0) {
			fprintf(stderr, "cmc %s: %s holds no run yet (run `cmc check` first)\n",
				c->name, store_path(st));
			return TUI_EXIT_USAGE;
		}
		return 0;
	}
	store_run r;
	if (!tui_parse_id(arg, run))
		return tui_usage_error(c, "expected a run number, got '%s'", arg);
	int rc = store_run_get(st, *run, &r);
	store_run_clear(&r);
	if (rc) {
		fprintf(stderr, "cmc %s: %s\n", c->name, store_error(st));
		return TUI_EXIT_USAGE;
	}
	return 0;
}

const char *tui_fp_text(eng_fp fp, char buf[33])
{
	if (eng_fp_zero(fp))
		return "-";
	return eng_fp_hex(fp, buf);
}

void tui_fp_json(FILE *out, eng_fp fp)
{
	char buf[33];
	if (eng_fp_zero(fp))
		fputs("null", out);
	else
		fprintf(out, "\"%s\"", eng_fp_hex(fp, buf));
}

static void state_id(FILE *out, uint32_t id, bool json)
{
	if (id == ENG_NO_STATE)
		fputs(json ? "null" : "-", out);
	else
		fprintf(out, "%u", id);
}

void tui_trace_print(FILE *out, const store_trace *t, bool json)
{
	char buf[33];
	if (json) {
		fputs("{\"init_state\": ", out);
		state_id(out, t->states ? t->states[0] : ENG_NO_STATE, true);
		fputs(", \"init_fp\": ", out);
		tui_fp_json(out, t->init_fp);
		fputs(", \"steps\": [", out);
		for (size_t i = 0; i < t->len; i++) {
			fprintf(out, "%s{\"step\": %zu, \"label\": ", i ? ", " : "", i + 1);
			tui_json_str(out, t->labels[i]);
			fputs(", \"state\": ", out);
			state_id(out, t->states ? t->states[i + 1] : ENG_NO_STATE, true);
			fputs(", \"fp\": ", out);
			tui_fp_json(out, t->fps ? t->fps[i] : (eng_fp){0, 0});
			fputc('}', out);
		}
		fputs("]}", out);
		return;
	}
	fprintf(out, "  %3d  %-24s state ", 0, "(initial)");
	state_id(out, t->states ? t->states[0] : ENG_NO_STATE, false);
	fprintf(out, "  %s\n", tui_fp_text(t->init_fp, buf));
	for (size_t i = 0; i < t->len; i++) {
		fprintf(out, "  %3zu  ", i + 1);
		size_t n = 0;
		while (t->labels[i][n])
			n++;
		tui_escape(out, t->labels[i], n, 64);
		fprintf(out, "%*s state ", n < 24 ? (int)(24 - n) : 0, "");
		state_id(out, t->states ? t->states[i + 1] : ENG_NO_STATE, false);
		fprintf(out, "  %s\n", tui_fp_text(t->fps ? t->fps[i] : (eng_fp){0, 0}, buf));
	}
}

void tui_blob_print(FILE *out, store *st, eng_fp hash, size_t max, bool json)
{
	uint8_t *data;
	size_t len, full;
	if (eng_fp_zero(hash) || store_blob(st, hash, &data, &len, &full) != 0) {
		fputs(json ? "null" : "(none)", out);
		return;
	}
	if (json) {
		tui_json_bytes(out, data, len < max ? len : max);
	} else {
		fputc('"', out);
		tui_escape(out, data, len, max);
		fputc('"', out);
		if (full > len)
			fprintf(out, " (%zu of %zu bytes kept)", len, full);
	}
	free(data);
}
