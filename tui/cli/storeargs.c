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

static void state_id(FILE *out, uint32_t id)
{
	if (id == ENG_NO_STATE)
		fputs("-", out);
	else
		fprintf(out, "%u", id);
}

void tui_trace_json(struct tui_json *j, const store_trace *t)
{
	tui_json_object(j);
	tui_json_state(tui_json_key(j, "init_state"), t->states ? t->states[0] : ENG_NO_STATE);
	tui_json_fp(tui_json_key(j, "init_fp"), t->init_fp);
	tui_json_array(tui_json_key(j, "steps"));
	for (size_t i = 0; i < t->len; i++) {
		tui_json_object(j);
		tui_json_u64(tui_json_key(j, "step"), i + 1);
		tui_json_string(tui_json_key(j, "label"), t->labels[i]);
		tui_json_state(tui_json_key(j, "state"), t->states ? t->states[i + 1] : ENG_NO_STATE);
		tui_json_fp(tui_json_key(j, "fp"), t->fps ? t->fps[i] : (eng_fp){0, 0});
		tui_json_end(j);
	}
	tui_json_end(j);
	tui_json_end(j);
}

void tui_trace_print(FILE *out, const store_trace *t)
{
	char buf[33];
	fprintf(out, "  %3d  %-24s state ", 0, "(initial)");
	state_id(out, t->states ? t->states[0] : ENG_NO_STATE);
	fprintf(out, "  %s\n", tui_fp_text(t->init_fp, buf));
	for (size_t i = 0; i < t->len; i++) {
		fprintf(out, "  %3zu  ", i + 1);
		size_t n = 0;
		while (t->labels[i][n])
			n++;
		tui_escape(out, t->labels[i], n, 64);
		fprintf(out, "%*s state ", n < 24 ? (int)(24 - n) : 0, "");
		state_id(out, t->states ? t->states[i + 1] : ENG_NO_STATE);
		fprintf(out, "  %s\n", tui_fp_text(t->fps ? t->fps[i] : (eng_fp){0, 0}, buf));
	}
}

void tui_blob_print(FILE *out, store *st, eng_fp hash, size_t max)
{
	uint8_t *data;
	size_t len, full;
	if (eng_fp_zero(hash) || store_blob(st, hash, &data, &len, &full) != 0) {
		fputs("(none)", out);
		return;
	}
	fputc('"', out);
	tui_escape(out, data, len, max);
	fputc('"', out);
	if (full > len)
		fprintf(out, " (%zu of %zu byte%s kept)", len, full, tui_s(full));
	free(data);
}

void tui_blob_json(struct tui_json *j, store *st, eng_fp hash, size_t max)
{
	uint8_t *data;
	size_t len, full;
	if (eng_fp_zero(hash) || store_blob(st, hash, &data, &len, &full) != 0) {
		tui_json_null(j);
		return;
	}
	tui_json_bytes(j, data, len < max ? len : max);
	free(data);
}
