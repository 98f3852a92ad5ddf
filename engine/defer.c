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

/*
 * Invariant: x.obs is &o iff has_obs; every byte and string x and o point
 * at lies in buf[0, cap), which the entry owns and keeps from one
 * expansion to the next (a process successor's raw window runs to a
 * megabyte: allocated afresh each time, its pages were faulted in again
 * for every successor).  Entries past ndefer keep their buffers for reuse.
 */
struct deferred {
	eng_succ x;
	eng_obs o;
	bool has_obs;
	unsigned char *buf;
	size_t cap;
};

/* Filling d's buffer (already large enough for every field), front to
 * back: fields are placed by offset, and the pointers into the buffer
 * set once all are in. */
struct fill {
	struct deferred *d;
	size_t at;
};

static size_t room_str(const char *s) { return s ? strlen(s) + 1 : 0; }

/* Copy n bytes of p (NULL: none) to the buffer; its offset, or SIZE_MAX. */
static size_t put(struct fill *f, const void *p, size_t n)
{
	if (!p)
		return SIZE_MAX;
	size_t off = f->at;
	if (n)
		memcpy(f->d->buf + off, p, n);
	f->at += n;
	return off;
}

static size_t put_str(struct fill *f, const char *s) { return put(f, s, s ? strlen(s) + 1 : 0); }

static const void *at_off(const struct deferred *d, size_t off) { return off == SIZE_MAX ? NULL : d->buf + off; }

void eng__defer_put(eng_search *s, const eng_succ *x, uint32_t depth)
{
	/* the cheap cases the frontend may let go of at once, as x_cb() */
	if (x->wanted && x->state &&
	    (x->terminal || (s->o.max_depth && depth >= s->o.max_depth) ||
	     fpset_get(s->set, x->fp) != ENG_NO_STATE))
		*x->wanted = false;
	if (s->ndefer == s->defer_cap) {
		size_t cap = s->defer_cap ? 2 * s->defer_cap : 16;
		s->defer = eng_xrealloc(s->defer, cap * sizeof *s->defer);
		memset(s->defer + s->defer_cap, 0, (cap - s->defer_cap) * sizeof *s->defer);
		s->defer_cap = cap;
	}
	struct deferred *d = &s->defer[s->ndefer++];
	/* the observation's bytes only when a listener reads them (as
	 * parallel.c's workers): fingerprints and flags always */
	const eng_obs *o = x->obs;
	bool bytes = o && s->obs_bytes;
	size_t need = 1 + (x->state ? x->state_len : 0) + room_str(x->property) + room_str(x->violation);
	if (bytes)
		need += o->raw_len + o->canon_len + o->reply_len + o->files_len + room_str(o->fault);
	if (need > d->cap) {
		free(d->buf);
		d->cap = need + need / 4;
		d->buf = eng_xmalloc(d->cap);
	}
	unsigned char *buf = d->buf;
	size_t cap = d->cap;
	memset(d, 0, sizeof *d);
	d->buf = buf;
	d->cap = cap;
	struct fill f = {d, 0};
	size_t st = put(&f, x->state, x->state ? x->state_len : 0);
	size_t prop = put_str(&f, x->property), viol = put_str(&f, x->violation);
	d->x.fp = x->fp;
	d->x.state_len = x->state ? x->state_len : 0;
	d->x.label = eng_labels_intern(s->labels, x->label);
	d->x.terminal = x->terminal;
	if (o) {
		d->o = *o;
		d->o.raw_bytes = d->o.canon_rec = d->o.reply = d->o.files_sum = NULL;
		d->o.raw_len = d->o.canon_len = d->o.reply_len = d->o.files_len = 0;
		d->o.fault = NULL;
		if (bytes) {
			size_t raw = put(&f, o->raw_bytes, o->raw_len), canon = put(&f, o->canon_rec, o->canon_len);
			size_t reply = put(&f, o->reply, o->reply_len), files = put(&f, o->files_sum, o->files_len);
			size_t fault = put_str(&f, o->fault);
			d->o.raw_bytes = at_off(d, raw);
			d->o.raw_len = raw == SIZE_MAX ? 0 : o->raw_len;
			d->o.canon_rec = at_off(d, canon);
			d->o.canon_len = canon == SIZE_MAX ? 0 : o->canon_len;
			d->o.reply = at_off(d, reply);
			d->o.reply_len = reply == SIZE_MAX ? 0 : o->reply_len;
			d->o.files_sum = at_off(d, files);
			d->o.files_len = files == SIZE_MAX ? 0 : o->files_len;
			d->o.fault = at_off(d, fault);
		}
		d->has_obs = true;
		d->x.obs = &d->o;
	}
	d->x.state = at_off(d, st);
	d->x.property = at_off(d, prop);
	d->x.violation = at_off(d, viol);
}

/* Empty the list (the buffers stay); entries from first_unused on were
 * never admitted: the frontend may let go of what it keeps for them. */
static void release(eng_search *s, size_t first_unused)
{
	for (size_t i = first_unused; i < s->ndefer; i++) {
		struct deferred *d = &s->defer[i];
		if (d->x.state && s->fe->ops->forget)
			s->fe->ops->forget(s->fe, d->x.state, d->x.state_len);
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
	for (size_t i = 0; i < s->defer_cap; i++)
		free(s->defer[i].buf);
	free(s->defer);
	s->defer = NULL;
	s->defer_cap = 0;
}
