/*
 * hgtable.c — the heap graph of one stored state, by replaying its trace
 * and walking the live target (hgtable.h says why not from the store).
 * Owns nothing past a call: the frontend it opens is destroyed before it
 * returns, and proc_hg_record() is reset.
 */
#include <stdlib.h>
#include <string.h>

#include "hgtable.h"
#include "engine/util.h"

static char *dup_n(const char *p, size_t n)
{
	char *s = eng_xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/* Apply the run's overrides (runs.space's set:KEY=VALUE lines) as cmc
 * check did; 0, or -1 with err. */
static int apply_space(eng_frontend *fe, const char *space, char *err, size_t errlen)
{
	for (const char *p = space; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		if (n > 4 && !strncmp(p, "set:", 4) && eq) {
			char *key = dup_n(p + 4, (size_t)(eq - p - 4));
			char *val = dup_n(eq + 1, (size_t)(p + n - eq - 1));
			int rc = proc_override(fe, key, val, err, errlen);
			free(key);
			free(val);
			if (rc < 0)
				return -1;
		}
		p = nl ? nl + 1 : p + n;
	}
	return 0;
}

int tui_hg_replay(store *st, int64_t run, uint32_t state, proc_hg_table *t, store_trace *tr,
		  char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	memset(tr, 0, sizeof *tr);
	store_run ri;
	if (store_run_get(st, run, &ri) != 0) {
		snprintf(err, errlen, "%s", store_error(st));
		return -1;
	}
	int rc = -1;
	eng_frontend *fe = NULL;
	char *space = NULL;
	if (strcmp(ri.kind, "process") != 0 || !ri.source_path) {
		snprintf(err, errlen, "run %lld checked a model: a heap graph is a process run's",
			 (long long)run);
		goto out;
	}
	if (store_trace_to(st, run, state, tr) != 0) {
		snprintf(err, errlen, "run %lld has no state %u", (long long)run, state);
		goto out;
	}
	eng_opts eo;
	eng_opts_default(&eo);
	char why[1024];
	fe = tui_open_target(ri.source_path, &eo, why, sizeof why);
	if (!fe || strcmp(fe->ops->kind, "process") != 0) {
		snprintf(err, errlen, "run %lld's scenario %s: %s", (long long)run, ri.source_path,
			 fe ? "not a scenario" : why);
		goto out;
	}
	space = store_run_space(st, run);
	if (apply_space(fe, space, why, sizeof why) < 0) {
		snprintf(err, errlen, "run %lld's options: %s", (long long)run, why);
		goto out;
	}
	char ib[64];
	const char *idn = tui_run_identity(st, run, ib, sizeof ib);
	bool graph = idn && strstr(idn, "heap-graph");
	/* Another identity: walk anyway (the fingerprints then differ from
	 * the stored ones, which are not checked). */
	if (!graph && proc_override(fe, "hash", "heap-graph", why, sizeof why) < 0) {
		snprintf(err, errlen, "%s", why);
		goto out;
	}
	eng_fp *fps = eng_xcalloc(tr->len + 1, sizeof *fps);
	eng_trace et = {tr->len, tr->labels, fps, {0, 0}};
	if (graph) {
		memcpy(fps, tr->fps, tr->len * sizeof *fps);
		et.init_fp = tr->init_fp;
	}
	eng_replay_opts o;
	eng_replay_opts_default(&o);
	eng_replay_result res;
	proc_hg_record(t);
	int bad = eng_replay(fe, &et, &o, &res);
	proc_hg_record(NULL);
	free(fps);
	if (bad || res.error) {
		snprintf(err, errlen, "replaying state %u: %s", state, res.why);
	} else if (res.diverged != SIZE_MAX) {
		snprintf(err, errlen, "replaying state %u diverged at step %zu: %s", state,
			 res.diverged, res.why);
	} else if (res.taken != tr->len) {
		snprintf(err, errlen, "replaying state %u stopped after %zu of %zu steps", state,
			 res.taken, tr->len);
	} else if (!t->have) {
		snprintf(err, errlen, "state %u has no heap graph: %s", state,
			 t->why[0] ? t->why : "no walk ran");
	} else {
		rc = 0;
	}
out:
	free(space);
	if (fe)
		fe->ops->destroy(fe);
	store_run_clear(&ri);
	return rc;
}

size_t tui_hg_out(const proc_hg_table *t, uint32_t num, uint32_t root, size_t *first)
{
	size_t i = 0;
	while (i < t->n_edges && !(t->edges[i].from == num && (num || t->edges[i].root == root)))
		i++;
	*first = i;
	size_t n = 0;
	while (i + n < t->n_edges && t->edges[i + n].from == num &&
	       (num || t->edges[i + n].root == root))
		n++;
	return n;
}
