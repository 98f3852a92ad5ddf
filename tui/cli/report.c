/*
 * report.c — the result of a check or simulation: a listener that collects
 * violations with their traces and the states found at each depth (in BFS,
 * the frontier as each level begins, with the time it began), and the
 * summary printed at the end, for humans or as one JSON object (--json).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "proc/proc.h"
#include "engine/util.h"

struct viol {
	char *property, *message;
	uint32_t state;
	uint32_t from, to;      /* the violating transition (eng_violation) */
	size_t len;
	char **labels;
	eng_fp *fps;
	eng_fp init_fp;
	bool has_trace;
	size_t lost_at;         /* !has_trace: where the target did not repeat */
};

/* Invariant: nlevels <= levels_cap; level_states[d - 1] states of depth d
 * were reported, the first of them level_first_s[d - 1] seconds after the
 * first state of the run. */
struct tui_report {
	eng_frontend *fe;
	struct viol *v;
	size_t n, cap;
	uint64_t *level_states;
	double *level_first_s;
	size_t nlevels, levels_cap;
	double t0;
	int signal;             /* the user's signal that interrupted it, or 0 */
	bool walks;             /* random walks (cmc simulate), not a search */
	uint64_t nwalks;
	uint32_t walk_depth;
};

static void rep_depth(void *ctx, uint32_t depth, uint64_t n)
{
	tui_report *r = ctx;
	size_t d = depth ? depth : 1;
	if (!r->nlevels && !r->t0)
		r->t0 = eng_now();
	if (d > r->levels_cap) {
		size_t nc = r->levels_cap ? r->levels_cap * 2 : 64;
		while (nc < d)
			nc *= 2;
		r->level_states = eng_xrealloc(r->level_states, nc * sizeof *r->level_states);
		r->level_first_s = eng_xrealloc(r->level_first_s, nc * sizeof *r->level_first_s);
		r->levels_cap = nc;
	}
	while (r->nlevels < d) {
		r->level_states[r->nlevels] = 0;
		r->level_first_s[r->nlevels] = eng_now() - r->t0;
		r->nlevels++;
	}
	r->level_states[d - 1] += n;
}

static void rep_violation(void *ctx, const eng_violation *v)
{
	tui_report *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->v = eng_xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct viol *x = &r->v[r->n++];
	memset(x, 0, sizeof *x);
	x->property = eng_xstrdup(v->property ? v->property : "?");
	x->message = eng_xstrdup(v->message ? v->message : "");
	x->state = v->state;
	x->from = v->from;
	x->to = v->to;
	x->lost_at = v->trace_lost_at;
	if (v->trace) {
		x->has_trace = true;
		x->len = v->trace->len;
		x->init_fp = v->trace->init_fp;
		x->labels = eng_xcalloc(x->len ? x->len : 1, sizeof *x->labels);
		x->fps = eng_xcalloc(x->len ? x->len : 1, sizeof *x->fps);
		for (size_t i = 0; i < x->len; i++) {
			x->labels[i] = eng_xstrdup(v->trace->labels[i]);
			x->fps[i] = v->trace->fps ? v->trace->fps[i] : (eng_fp){0, 0};
		}
	}
}

tui_report *tui_report_new(eng_frontend *fe)
{
	tui_report *r = eng_xcalloc(1, sizeof *r);
	r->fe = fe;
	return r;
}

void tui_report_free(tui_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		for (size_t k = 0; k < r->v[i].len; k++)
			free(r->v[i].labels[k]);
		free(r->v[i].labels);
		free(r->v[i].fps);
		free(r->v[i].property);
		free(r->v[i].message);
	}
	free(r->v);
	free(r->level_states);
	free(r->level_first_s);
	free(r);
}

eng_listener tui_report_listener(tui_report *r)
{
	eng_listener l = {0};
	l.on_violation = rep_violation;
	l.on_depth = rep_depth; /* (states by depth are all it keeps) */
	l.ctx = r;
	l.no_obs_bytes = true; /* depths and violations only */
	return l;
}

size_t tui_report_violations(const tui_report *r) { return r->n; }

void tui_report_interrupted(tui_report *r, int sig) { r->signal = sig; }

void tui_report_walks(tui_report *r, uint64_t walks, uint32_t depth)
{
	r->walks = true;
	r->nwalks = walks;
	r->walk_depth = depth;
}

struct show {
	eng_frontend *fe;
	FILE *out;
};

static void show_state(struct show *sh, const eng_succ *s)
{
	fputs("      ", sh->out);
	sh->fe->ops->print(sh->fe, s->state, s->state_len, sh->out);
	fputc('\n', sh->out);
}

/* Each state on the way; the initial state is step 0. */
static void show_step(void *ctx, const eng_replay_step *st)
{
	struct show *sh = ctx;
	if (st->step == 0) {
		fputs("    0: <initial state>\n", sh->out);
	} else {
		fprintf(sh->out, "    %zu: ", st->step);
		tui_escape(sh->out, st->label, strlen(st->label), 200);
		fputc('\n', sh->out);
	}
	if ((st->outcome == ENG_STEP_MATCHED || st->outcome == ENG_STEP_UNRECORDED) &&
	    st->succ->state)
		show_state(sh, st->succ);
}

static void print_trace(tui_report *r, const struct viol *v, FILE *out)
{
	if (!v->has_trace) {
		fputs("  (no trace: cmc could not rebuild it, because ", out);
		tui_say_not_repeated(out, v->lost_at);
		fputs(")\n", out);
		return;
	}
	fprintf(out, "  trace (%zu step%s):\n", v->len, tui_s(v->len));
	/* Models print each state on the way, by one replay of the trace;
	 * process targets are not re-run here (cmc replay does that). */
	if (r->fe && r->fe->ops->print && strcmp(r->fe->ops->kind, "model") == 0) {
		struct show sh = {r->fe, out};
		eng_trace t = {v->len, v->labels, v->fps, v->init_fp};
		eng_replay_opts o;
		eng_replay_opts_default(&o);
		o.fn = show_step;
		o.ctx = &sh;
		eng_replay_result res;
		eng_replay(r->fe, &t, &o, &res);
		return;
	}
	for (size_t i = 0; i < v->len; i++) {
		fprintf(out, "    %zu: ", i + 1);
		tui_escape(out, v->labels[i], strlen(v->labels[i]), 200);
		fputc('\n', out);
	}
}

/* What the frontend wants said about how it ran (process mode: which
 * fingerprint merged states, and why), or NULL. */
static const char *frontend_note(const tui_report *r)
{
	if (!r->fe || strcmp(r->fe->ops->kind, "process") != 0)
		return NULL;
	return proc_info(r->fe);
}

static void print_json(tui_report *r, const eng_stats *st, const char *what, const char *error,
		       FILE *out)
{
	struct tui_json j;
	tui_json_begin(&j, out);
	tui_json_object(&j);
	tui_json_string(tui_json_key(&j, "target"), what);
	tui_json_string(tui_json_key(&j, "kind"), r->fe ? r->fe->ops->kind : NULL);
	tui_json_u64(tui_json_key(&j, "distinct"), st->distinct);
	tui_json_u64(tui_json_key(&j, "generated"), st->generated);
	tui_json_u64(tui_json_key(&j, "transitions"), st->transitions);
	tui_json_u64(tui_json_key(&j, "depth"), st->depth);
	tui_json_u64(tui_json_key(&j, "frontier_max"), st->frontier_max);
	if (st->raw_distinct || st->canon_distinct) {
		tui_json_u64(tui_json_key(&j, "raw_distinct"), st->raw_distinct);
		tui_json_u64(tui_json_key(&j, "canonical_distinct"), st->canon_distinct);
	}
	tui_json_number(tui_json_key(&j, "elapsed_s"), "%.6f", st->elapsed_s);
	tui_json_number(tui_json_key(&j, "states_per_s"), "%.1f", st->states_per_s);
	tui_json_number(tui_json_key(&j, "transitions_per_s"), "%.1f", st->transitions_per_s);
	tui_json_u64(tui_json_key(&j, "set_bytes"), st->set_bytes);
	tui_json_number(tui_json_key(&j, "bytes_per_state"), "%.2f",
			st->distinct ? (double)st->set_bytes / (double)st->distinct : 0.0);
	tui_json_number(tui_json_key(&j, "collision_p"), "%.3g", st->collision_p);
	/* random walks never know they saw every state */
	tui_json_bool(tui_json_key(&j, "complete"), st->complete && !r->walks);
	if (r->walks)
		tui_json_u64(tui_json_key(&j, "walks"), r->nwalks);
	tui_json_bool(tui_json_key(&j, "bounded"), st->bounded);
	tui_json_bool(tui_json_key(&j, "stopped"), st->stopped);
	tui_json_bool(tui_json_key(&j, "out_of_memory"), st->out_of_memory);
	tui_json_bool(tui_json_key(&j, "interrupted"), r->signal);
	tui_json_string(tui_json_key(&j, "signal"), r->signal ? tui_signal_name(r->signal) : NULL);
	tui_json_string(tui_json_key(&j, "error"), error);
	const char *note = frontend_note(r);
	if (note)
		tui_json_string(tui_json_key(&j, "note"), note);
	if (r->fe && strcmp(r->fe->ops->kind, "process") == 0)
		tui_json_string(tui_json_key(&j, "containment"), proc_containment(r->fe));
	tui_json_array(tui_json_key(&j, "levels"));
	for (size_t i = 0; i < r->nlevels; i++) {
		tui_json_object(&j);
		tui_json_u64(tui_json_key(&j, "depth"), i + 1);
		tui_json_u64(tui_json_key(&j, "states"), r->level_states[i]);
		tui_json_number(tui_json_key(&j, "first_s"), "%.6f", r->level_first_s[i]);
		tui_json_end(&j);
	}
	tui_json_end(&j);
	tui_json_array(tui_json_key(&j, "violations"));
	for (size_t i = 0; i < r->n; i++) {
		const struct viol *v = &r->v[i];
		tui_json_object(&j);
		tui_json_string(tui_json_key(&j, "property"), v->property);
		tui_json_string(tui_json_key(&j, "message"), v->message);
		tui_json_state(tui_json_key(&j, "state"), v->state);
		tui_json_key(&j, "trace");
		if (!v->has_trace) {
			tui_json_null(&j);
			/* the step at which the target did not repeat itself */
			tui_json_u64(tui_json_key(&j, "trace_lost_at"), v->lost_at);
		} else {
			tui_json_array(&j);
			for (size_t k = 0; k < v->len; k++)
				tui_json_string(&j, v->labels[k]);
			tui_json_end(&j);
		}
		/* the violating transition: from --(the trace's last label)--> to */
		tui_json_state(tui_json_key(&j, "from"), v->from);
		tui_json_state(tui_json_key(&j, "to"), v->to);
		tui_json_end(&j);
	}
	tui_json_end(&j);
	tui_json_end(&j);
	tui_json_finish(&j);
}

/* How many raw and canonical fingerprints the states span, when that says
 * something: with canonical fingerprints (merged by them, or by both), or
 * when states with one raw fingerprint were told apart by something else
 * (the once operations already applied, how the target ended, the
 * declared state files). */
static void print_span(const eng_stats *st, const char *note, bool files, FILE *out)
{
	if (st->canon_distinct)
		fprintf(out, "; spanning %llu raw and %llu %s fingerprints",
			(unsigned long long)st->raw_distinct, (unsigned long long)st->canon_distinct,
			note && strstr(note, "heap-graph") ? "heap-graph" : "canonical");
	else if (st->raw_distinct && st->raw_distinct != st->distinct)
		fprintf(out, "; %llu distinct heap%s (raw fingerprints): states with one heap differ "
			"by %sthe once operations already applied or by how the target ended",
			(unsigned long long)st->raw_distinct, tui_s(st->raw_distinct),
			files ? "their declared state files, " : "");
}

/*
 * The visited set's memory.  Its records come in chunks of 64Ki states
 * (engine/fpset.c), so a small run's figure is the first chunk: per state
 * it means nothing (70918 bytes/state for 16 states), and is given only
 * once the states fill a few chunks.
 */
#define PER_STATE_FROM (1u << 18)

static void print_set_bytes(const eng_stats *st, FILE *out)
{
	double b = (double)st->set_bytes;
	if (b >= 1024.0 * 1024.0)
		fprintf(out, "%.1f MiB", b / (1024.0 * 1024.0));
	else
		fprintf(out, "%.1f KiB", b / 1024.0);
	fputs(" in the visited set", out);
	if (st->distinct >= PER_STATE_FROM)
		fprintf(out, " (%.1f bytes/state)", b / (double)st->distinct);
	fputc('\n', out);
}

void tui_report_print(tui_report *r, const eng_stats *st, const char *what, bool json,
		      const char *error, FILE *out)
{
	if (json) {
		print_json(r, st, what, error, out);
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct viol *v = &r->v[i];
		fprintf(out, "violation: %s", v->property);
		if (v->message[0]) {
			fputs(": ", out);
			tui_escape(out, v->message, strlen(v->message), 400);
		}
		fputc('\n', out);
		print_trace(r, v, out);
	}
	if (error)
		fprintf(out, "error: %s\n", error);
	const char *note = frontend_note(r);
	if (note)
		fprintf(out, "%s\n", note);
	fprintf(out, "%llu distinct state%s, %llu generated, depth %u",
		(unsigned long long)st->distinct, tui_s(st->distinct),
		(unsigned long long)st->generated, st->depth);
	print_span(st, note, note && proc_state_files(r->fe), out);
	fprintf(out, "\n%.3f s, %.0f states/s, %.0f transitions/s, ", st->elapsed_s,
		st->states_per_s, st->transitions_per_s);
	print_set_bytes(st, out);
	fprintf(out, "probability that two states share a fingerprint: %.3g\n", st->collision_p);
	if (r->signal)
		fprintf(out, "interrupted by %s before the end: the counts are partial\n",
			tui_signal_name(r->signal));
	else if (st->stopped)
		fprintf(out, "stopped before the end: the counts are partial\n");
	else if (st->bounded)
		fprintf(out, "bounded search: a depth or state bound cut it short\n");
	else if (r->walks && r->n == 0 && !error)
		fprintf(out, "no violation in %llu random walk%s of at most %u state%s each: they "
			"reached %llu distinct state%s; walks cannot tell whether that is every state "
			"(cmc check explores them all)\n",
			(unsigned long long)r->nwalks, tui_s(r->nwalks), r->walk_depth, tui_s(r->walk_depth),
			(unsigned long long)st->distinct, tui_s(st->distinct));
	else if (r->walks)
		;
	else if (r->n == 0 && !error)
		fprintf(out, "no violation: the whole state space was explored\n");
}
