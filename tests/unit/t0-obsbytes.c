/*
 * t0-obsbytes.c — an observation's bytes reach listeners only when one of
 * them reads them (cmc.h, eng_listener.no_obs_bytes), on one job as on
 * two.  A frontend of three states in a row whose every successor carries
 * an observation with a raw window of 256 KiB, a canonical record and a
 * reply (as a process target's does): with only a listener that says it
 * never reads bytes, every state it is shown comes with fingerprints and
 * flags and without bytes; with a listener that reads them too, both see
 * the frontend's bytes whole.  The one-thread search once copied the raw
 * window of every successor though nobody read it (issue 21: a megabyte a
 * successor, half the fork executor's time at a 1 MiB heap).
 */
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "tap.h"

#define RAW (256u * 1024)

static unsigned char raw[RAW];
static const char canon[] = "canon-record";
static const char reply[] = "OK\n";

static bool emit(eng_succ_fn fn, void *ctx, unsigned char v)
{
	static unsigned char st[3];
	st[v] = v;
	eng_obs o = {0};
	o.raw = eng_fp_of(raw, sizeof raw);
	o.raw_bytes = raw;
	o.raw_len = sizeof raw;
	o.canon = eng_fp_of(canon, sizeof canon);
	o.canon_rec = (const uint8_t *)canon;
	o.canon_len = sizeof canon;
	o.reply = (const uint8_t *)reply;
	o.reply_len = sizeof reply - 1;
	o.flags = ENG_OBS_CANON | ENG_OBS_ALLOC;
	eng_succ x = {0};
	x.label = "step";
	x.state = &st[v];
	x.state_len = 1;
	x.fp = eng_fp_of(&st[v], 1);
	x.obs = &o;
	return fn(ctx, &x);
}

static int f_initial(eng_frontend *fe, eng_succ_fn fn, void *ctx)
{
	emit(fn, ctx, 0);
	return 0;
}

static int f_next(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx)
{
	unsigned char v = *(const unsigned char *)state;
	if (v < 2)
		emit(fn, ctx, (unsigned char)(v + 1));
	return 0;
}

static eng_frontend *f_clone(eng_frontend *fe) { return fe; }

static const struct eng_frontend_ops fake_ops = {
	.kind = "process",
	.initial = f_initial,
	.next = f_next,
	.clone = f_clone,
};

/* What one listener saw of the states after the initial one. */
struct seen {
	unsigned states, with_fp, with_bytes, whole;
};

static void on_state(void *ctx, const eng_state_info *s)
{
	struct seen *w = ctx;
	if (s->parent == ENG_NO_STATE)
		return;
	const eng_obs *o = s->obs;
	w->states++;
	if (o && !eng_fp_zero(o->raw) && !eng_fp_zero(o->canon) && (o->flags & ENG_OBS_CANON))
		w->with_fp++;
	if (o && (o->raw_bytes || o->canon_rec || o->reply || o->raw_len || o->canon_len || o->reply_len))
		w->with_bytes++;
	if (o && o->raw_len == RAW && o->raw_bytes && !memcmp(o->raw_bytes, raw, RAW) &&
	    o->canon_len == sizeof canon && !memcmp(o->canon_rec, canon, sizeof canon) &&
	    o->reply_len == sizeof reply - 1 && !memcmp(o->reply, reply, sizeof reply - 1))
		w->whole++;
}

static void run(unsigned jobs, bool reader, struct seen *quiet, struct seen *reads)
{
	struct eng_frontend fe = {&fake_ops, true, "obsbytes"};
	eng_opts o;
	eng_opts_default(&o);
	o.jobs = jobs;
	eng_search *s = eng_search_new(&fe, &o);
	memset(quiet, 0, sizeof *quiet);
	memset(reads, 0, sizeof *reads);
	eng_listener a = {0};
	a.on_state = on_state;
	a.ctx = quiet;
	a.no_obs_bytes = true;
	eng_search_listen(s, &a);
	if (reader) {
		eng_listener b = {0};
		b.on_state = on_state;
		b.ctx = reads;
		eng_search_listen(s, &b);
	}
	eng_search_run(s);
	eng_search_free(s);
}

int main(void)
{
	for (size_t i = 0; i < RAW; i++)
		raw[i] = (unsigned char)(i * 7 + 1);
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		struct seen q, r;
		run(jobs, false, &q, &r);
		ok(q.states == 2 && q.with_fp == 2, "--jobs %u, nobody reads bytes: 2 states, fingerprints and flags "
		   "on each (%u, %u)", jobs, q.states, q.with_fp);
		ok(q.with_bytes == 0, "... and no bytes carried to them (%u with bytes)", q.with_bytes);
		run(jobs, true, &q, &r);
		ok(r.states == 2 && r.whole == 2, "--jobs %u, a listener reads bytes: each state's whole (%u of %u)",
		   jobs, r.whole, r.states);
		ok(q.whole == 2, "... the other listener is shown the same (%u)", q.whole);
	}
	return tap_done();
}
