/*
 * trace.c — rebuilding traces and states.
 *
 * The visited set keeps only fingerprints and parent ids (see fpset.c), as
 * TLC does.  A state's trace is rebuilt by walking its parents to an initial
 * state, then re-deriving each step forward: expand the state, find the
 * successor whose fingerprint is the next one on the path, take its label and
 * bytes.  This costs one expansion per step, only when a trace is asked for,
 * and checks on the way that the frontend is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "search_int.h"
#include "util.h"

void eng_trace_free(eng_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->len; i++)
		free(t->labels[i]);
	free(t->labels);
	free(t->fps);
	free(t);
}

struct find {
	eng_fp want;
	bool found;
	char *label;
	void *state;
	size_t len;
};

static bool find_cb(void *ctx, const eng_succ *x)
{
	struct find *f = ctx;
	if (!x->state || !eng_fp_eq(x->fp, f->want))
		return true;
	f->found = true;
	f->label = x->label ? eng_xstrdup(x->label) : NULL;
	f->state = eng_xmemdup(x->state, x->state_len);
	f->len = x->state_len;
	return false; /* stop producing: we have it */
}

/* Walk parents: ids from the initial state to `id`, in order. */
static uint32_t *path_to(eng_search *s, uint32_t id, size_t *n)
{
	size_t len = 0, cap = 16;
	uint32_t *p = eng_xmalloc(cap * sizeof *p);
	for (uint32_t cur = id; cur != ENG_NO_STATE; cur = eng_search_parent(s, cur)) {
		if (len == cap)
			p = eng_xrealloc(p, (cap *= 2) * sizeof *p);
		p[len++] = cur;
		if (len > eng_search_count(s)) { /* a cycle would be a bug in the set */
			free(p);
			return NULL;
		}
	}
	for (size_t i = 0; i < len / 2; i++) {
		uint32_t t = p[i];
		p[i] = p[len - 1 - i];
		p[len - 1 - i] = t;
	}
	*n = len;
	return p;
}

/*
 * Re-derive the path; when `t` is non-NULL fill its labels.  Returns the
 * final state's bytes (caller frees) or NULL when the frontend did not
 * reproduce the path.
 */
static void *rederive(eng_search *s, uint32_t id, eng_trace *t, size_t *out_len,
		      size_t *lost_at)
{
	eng_frontend *fe = eng_search_frontend(s);
	size_t n;
	uint32_t *path = path_to(s, id, &n);
	if (!path)
		return NULL;
	struct find f = {eng_search_fp(s, path[0]), false, NULL, NULL, 0};
	*lost_at = 0;
	if (fe->ops->initial(fe, find_cb, &f) < 0 || !f.found) {
		free(f.label);
		free(f.state);
		free(path);
		return NULL;
	}
	free(f.label);
	if (t) {
		t->init_fp = f.want;
		t->labels = eng_xcalloc(n, sizeof *t->labels);
		t->fps = eng_xcalloc(n, sizeof *t->fps);
	}
	void *state = f.state;
	size_t len = f.len;
	for (size_t i = 1; i < n; i++) {
		struct find g = {eng_search_fp(s, path[i]), false, NULL, NULL, 0};
		int rc = fe->ops->next(fe, state, len, find_cb, &g);
		free(state);
		*lost_at = i;
		if (rc < 0 || !g.found) {
			free(g.label);
			free(g.state);
			free(path);
			return NULL;
		}
		if (t) {
			t->labels[t->len] = g.label ? g.label : eng_xstrdup("?");
			t->fps[t->len] = g.want;
			t->len++;
		} else {
			free(g.label);
		}
		state = g.state;
		len = g.len;
	}
	free(path);
	*out_len = len;
	return state;
}

eng_trace *eng_search_trace(eng_search *s, uint32_t id)
{
	size_t lost_at;
	return eng__search_trace(s, id, &lost_at);
}

eng_trace *eng__search_trace(eng_search *s, uint32_t id, size_t *lost_at)
{
	*lost_at = 0;
	if (id >= eng_search_count(s))
		return NULL;
	eng_trace *t = eng_xcalloc(1, sizeof *t);
	size_t len;
	void *st = rederive(s, id, t, &len, lost_at);
	if (!st) {
		eng_trace_free(t);
		return NULL;
	}
	free(st);
	return t;
}

void *eng_search_state(eng_search *s, uint32_t id, size_t *len)
{
	if (id >= eng_search_count(s))
		return NULL;
	size_t lost_at;
	return rederive(s, id, NULL, len, &lost_at);
}
