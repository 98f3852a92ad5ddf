/*
 * defer.c — an expansion's successors held until the frontend returns.
 *
 * A frontend whose successors carry observations (process mode) is slow,
 * and its next() can fail part way: interrupted by SIGINT, or a target that
 * misbehaved.  Admitting successors as they come would then leave a state
 * half expanded: some successors numbered and stored, the rest never, and
 * the store's record of which states are expanded (runs.expanded_below)
 * would be wrong for --resume.  So from its first successor with an
 * observation on, an expansion's successors are copied here, and admitted
 * in order only once next() returned 0; when it fails, none is, and the
 * state is left whole for a later run to expand.  parallel.c does the same
 * for each slot of a chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "fpset.h"
#include "search_int.h"
#include "util.h"

/* Owns its bytes and strings.  Invariant: x.obs is &o iff has_obs. */
struct deferred {
	eng_succ x;
	eng_obs o;
	bool has_obs;
};

static void *dup_or_null(const void *p, size_t n)
{
	return p ? eng_xmemdup(p, n ? n : 1) : NULL;
}

static char *str_or_null(const char *s) { return s ? eng_xstrdup(s) : NULL; }

void eng__defer_put(eng_search *s, const eng_succ *x, uint32_t depth)
{
	/* the cheap cases the frontend may let go of at once, as x_cb() */
	if (x->wanted && x->state &&
	    (x->terminal || (s->o.max_depth && depth >= s->o.max_depth) ||
	     fpset_get(s->set, x->fp) != ENG_NO_STATE))
		*x->wanted = false;
	if (s->ndefer == s->defer_cap) {
		s->defer_cap = s->defer_cap ? 2 * s->defer_cap : 16;
		s->defer = eng_xrealloc(s->defer, s->defer_cap * sizeof *s->defer);
	}
	struct deferred *d = &s->defer[s->ndefer++];
	memset(d, 0, sizeof *d);
	d->x.fp = x->fp;
	d->x.state = dup_or_null(x->state, x->state_len);
	d->x.state_len = x->state ? x->state_len : 0;
	d->x.label = eng_labels_intern(s->labels, x->label);
	d->x.property = str_or_null(x->property);
	d->x.violation = str_or_null(x->violation);
	d->x.terminal = x->terminal;
	if (x->obs) {
		d->o = *x->obs;
		d->o.raw_bytes = dup_or_null(x->obs->raw_bytes, x->obs->raw_len);
		d->o.canon_rec = dup_or_null(x->obs->canon_rec, x->obs->canon_len);
		d->o.reply = dup_or_null(x->obs->reply, x->obs->reply_len);
		d->o.files_sum = dup_or_null(x->obs->files_sum, x->obs->files_len);
		d->o.fault = str_or_null(x->obs->fault);
		d->has_obs = true;
		d->x.obs = &d->o;
	}
}

/* Free every entry; those from first_unused on were never admitted: the
 * frontend may let go of what it keeps for them. */
static void release(eng_search *s, size_t first_unused)
{
	for (size_t i = 0; i < s->ndefer; i++) {
		struct deferred *d = &s->defer[i];
		if (i >= first_unused && d->x.state && s->fe->ops->forget)
			s->fe->ops->forget(s->fe, d->x.state, d->x.state_len);
		free((void *)d->x.state);
		free((void *)d->x.property);
		free((void *)d->x.violation);
		if (d->has_obs) {
			free((void *)d->o.raw_bytes);
			free((void *)d->o.canon_rec);
			free((void *)d->o.reply);
			free((void *)d->o.files_sum);
			free((void *)d->o.fault);
		}
	}
	s->ndefer = 0;
}

bool eng__defer_admit(eng_search *s, uint32_t from, uint32_t depth)
{
	bool go = true;
	size_t i = 0;
	for (; i < s->ndefer && go; i++) {
		struct deferred *d = &s->defer[i];
		bool wanted = true;
		if (d->x.state && s->fe->ops->forget)
			d->x.wanted = &wanted;
		go = eng__admit(s, &d->x, from, depth, ENG_NO_STATE);
		d->x.wanted = NULL;
		if (!wanted)
			s->fe->ops->forget(s->fe, d->x.state, d->x.state_len);
	}
	eng__edges_flush(s); /* their observations are ours until release() */
	release(s, i);
	return go;
}

void eng__defer_drop(eng_search *s) { release(s, 0); }

void eng__defer_free(eng_search *s)
{
	s->ndefer = 0; /* dropped already: see expand() */
	free(s->defer);
	s->defer = NULL;
	s->defer_cap = 0;
}
