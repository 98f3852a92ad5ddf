/*
 * plan.c — layout choice and reduction: viz_graph() decides what a picture
 * of a run can show within the node budget and which engine lays it out.
 *
 *   selection <= budget            dot, everything selected
 *   selection <= budget * FACTOR   sfdp (scales), everything selected
 *   larger                         reduced to fit the budget:
 *     --trace: the counterexample path and its direct neighbours;
 *     --around: the neighbourhood is cut at the budget;
 *     --raw-vs-canonical: one node per canonical state (if they fit);
 *     otherwise the first levels that fit (a depth cut), or, when not even
 *     two levels fit, a summary by BFS level.
 * Whatever was done is said in the caption and in res->reduction.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

/* Collapsing reads every state; past this many it is not attempted. */
#define COLLAPSE_MAX_STATES 400000

static void say(viz_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(viz_result *res, const char *fmt, ...)
{
	size_t used = strlen(res->reduction);
	if (used && used + 2 < sizeof res->reduction) {
		strcpy(res->reduction + used, "; ");
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->reduction + used, sizeof res->reduction - used, fmt, ap);
	va_end(ap);
}

/* The trace of a violation with its states known (0, 1: none, -1). */
static int load_trace(store *st, int64_t run, const store_violation *v, store_trace *t)
{
	bool known = v->trace.states != NULL;
	for (size_t i = 0; known && i <= v->trace.len; i++)
		known = v->trace.states[i] != ENG_NO_STATE;
	if (known) {
		memset(t, 0, sizeof *t);
		t->len = v->trace.len;
		t->states = eng_xmemdup(v->trace.states, (t->len + 1) * sizeof *t->states);
		t->labels = eng_xcalloc(t->len + 1, sizeof *t->labels);
		for (size_t i = 0; i < t->len; i++)
			t->labels[i] = v->trace.labels[i] ? eng_xstrdup(v->trace.labels[i]) : NULL;
		return 0;
	}
	if (v->state == ENG_NO_STATE)
		return 1;
	return store_trace_to(st, run, v->state, t);
}

int viz_graph(viz *v, store *st, const viz_graph_opts *o, const char *path, viz_result *res,
	      char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (!viz_format_of(path)) {
		snprintf(err, errlen, "%s: expected a file name ending in .svg, .png, .pdf or .dot", path);
		return -1;
	}
	uint32_t budget = o->budget ? o->budget : VIZ_DEFAULT_BUDGET;
	uint64_t sfdp_max = (uint64_t)budget * VIZ_SFDP_FACTOR;

	/* The run, and the violation whose trace is highlighted. */
	store_violation viol;
	memset(&viol, 0, sizeof viol);
	bool have_viol = false;
	int64_t run = o->run;
	if (o->violation) {
		int rc = store_violation_get(st, o->violation, &viol);
		if (rc != 0) {
			if (rc > 0)
				snprintf(err, errlen, "%s: no violation %lld", store_path(st),
					 (long long)o->violation);
			else
				snprintf(err, errlen, "%s", store_error(st));
			return -1;
		}
		have_viol = true;
		if (run && run != viol.run) {
			snprintf(err, errlen, "violation %lld belongs to run %lld, not run %lld",
				 (long long)o->violation, (long long)viol.run, (long long)run);
			store_violation_clear(&viol);
			return -1;
		}
		run = viol.run;
	}
	if (!run)
		run = store_latest_run(st);
	store_run r;
	int rc = run ? store_run_get(st, run, &r) : 1;
	if (rc != 0) {
		if (rc < 0)
			snprintf(err, errlen, "%s", store_error(st));
		else if (!run)
			snprintf(err, errlen, "%s: no runs stored yet (run cmc check first)", store_path(st));
		else
			snprintf(err, errlen, "%s: no run %lld", store_path(st), (long long)run);
		if (have_viol)
			store_violation_clear(&viol);
		return -1;
	}
	uint32_t n_total = r.stored_states > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)r.stored_states;
	if (o->around_set && o->around >= n_total) {
		snprintf(err, errlen, "--around %u: run %lld has states 0..%u", o->around, (long long)run,
			 n_total ? n_total - 1 : 0);
		store_run_clear(&r);
		if (have_viol)
			store_violation_clear(&viol);
		return -1;
	}

	uint64_t *counts = NULL;
	uint32_t maxdepth = 0;
	store_trace trace;
	memset(&trace, 0, sizeof trace);
	bool have_trace = false;
	viz_sel sel;
	viz_sel_init(&sel, st, run, n_total);
	Agraph_t *g = NULL;
	const char *engine = "dot";
	int ret = -1;

	if (store_depth_counts(st, run, &counts, &maxdepth) < 0)
		goto store_err;
	if (have_viol) {
		rc = load_trace(st, run, &viol, &trace);
		if (rc < 0)
			goto store_err;
		have_trace = rc == 0;
		if (!have_trace)
			say(res, "violation %lld has no stored trace to highlight", (long long)o->violation);
	}

	/* How many states the request covers. */
	uint32_t depth = o->depth && o->depth < maxdepth ? o->depth : 0;
	uint64_t want = n_total;
	if (depth) {
		want = 0;
		for (uint32_t d = 1; d <= depth; d++)
			want += counts[d];
	}

	bool summary = o->summary;
	bool collapse = false;
	if (o->around_set) {
		bool cut = false;
		size_t cap = o->layout && strcmp(o->layout, "dot") == 0 ? budget : sfdp_max;
		if (viz_sel_add_around(&sel, o->around, o->radius, cap, &cut) < 0)
			goto store_err;
		if (cut)
			say(res, "neighbourhood of state %u cut at %zu states (--budget raises it)", o->around,
			    sel.n);
		if (have_trace)
			for (size_t i = 0; i <= trace.len; i++)
				if (viz_sel_add(&sel, trace.states[i]) < 0)
					goto store_err;
	} else if (!summary && want > sfdp_max && have_trace) {
		/* the path and its direct neighbours, as many as fit */
		for (size_t i = 0; i <= trace.len; i++)
			if (viz_sel_add(&sel, trace.states[i]) < 0)
				goto store_err;
		bool cut = false;
		for (size_t i = 0; i <= trace.len && sel.n < budget; i++) {
			bool c1;
			if (viz_sel_add_around(&sel, trace.states[i], 1, budget - sel.n, &c1) < 0)
				goto store_err;
			cut |= c1;
		}
		say(res, "%llu states: drawn the counterexample and %s its neighbours (%zu states)",
		    (unsigned long long)want, cut ? "some of" : "all", sel.n);
	} else if (!summary && want > sfdp_max) {
		if (o->raw_vs_canonical && n_total <= COLLAPSE_MAX_STATES && !depth) {
			collapse = true;
		} else {
			uint32_t fit = 0;
			uint64_t sum = 0;
			while (fit < maxdepth && sum + counts[fit + 1] <= budget)
				sum += counts[++fit];
			if (fit >= 2) {
				say(res, "%llu states: drawn the first %u levels (%llu states), not levels %u-%u",
				    (unsigned long long)want, fit, (unsigned long long)sum, fit + 1,
				    depth ? depth : maxdepth);
				depth = fit;
				want = sum;
			} else {
				summary = true;
			}
		}
	}

	if (collapse) {
		bool too_many = false;
		g = viz_build_collapsed(st, run, n_total, budget, &too_many, res);
		if (!g && !too_many)
			goto store_err;
		if (g) {
			say(res, "%u states collapsed into %llu canonical states", n_total,
			    (unsigned long long)res->clusters);
		} else {
			summary = true;
		}
	}
	if (!g && summary) {
		say(res, "%llu states in %u levels: drawn one node per BFS level", (unsigned long long)want,
		    maxdepth);
		g = viz_build_levels(st, run, counts, maxdepth, budget, res);
	}
	if (!g) {
		if (!o->around_set && sel.n == 0 && viz_sel_add_depth(&sel, depth) < 0)
			goto store_err;
		bool whole = !o->around_set && !depth && sel.n == n_total;
		if (viz_sel_finish(&sel, whole) < 0)
			goto store_err;
		if (o->layout)
			engine = o->layout;
		else if (sel.n > budget) {
			engine = "sfdp";
			say(res, "%zu states exceed the dot budget of %u: laid out with sfdp", sel.n, budget);
		}
		viz_draw d = {
			.trace = have_trace ? &trace : NULL,
			.clusters = o->raw_vs_canonical,
			.edge_labels = strcmp(engine, "dot") == 0,
		};
		g = viz_build_states(&sel, &d, res);
		if (o->depth && o->depth < maxdepth && !res->reduction[0])
			say(res, "levels 1-%u of %u", o->depth, maxdepth);
	}
	if (strcmp(engine, "sfdp") == 0) {
		viz_set(g, "overlap", "true", "");
		viz_set(g, "outputorder", "edgesfirst", "");
	}

	/* Caption: what run, what is shown, what was left out. */
	viz_buf cap = {0};
	viz_buf_addf(&cap, "cmc run %lld: %s %s, %llu states, %llu transitions (%s)", (long long)run,
		     r.kind ? r.kind : "?", r.name ? r.name : "?", (unsigned long long)r.stored_states,
		     (unsigned long long)r.stored_transitions, r.status);
	if (have_viol)
		viz_buf_addf(&cap, "; counterexample of violation %lld: %s", (long long)o->violation,
			     viol.property ? viol.property : "?");
	if (o->around_set)
		viz_buf_addf(&cap, "; around state %u, radius %u", o->around, o->radius);
	if (o->raw_vs_canonical)
		viz_buf_addf(&cap, "; raw vs canonical: %llu raw states in %llu canonical states",
			     (unsigned long long)(collapse ? n_total : res->nodes),
			     (unsigned long long)res->clusters);
	if (res->reduction[0])
		viz_buf_addf(&cap, "\n%s", res->reduction);
	viz_caption(g, viz_buf_str(&cap));
	viz_buf_free(&cap);
	snprintf(res->layout, sizeof res->layout, "%s", engine);
	ret = viz_render(v, g, engine, path, err, errlen);
	goto done;

store_err:
	snprintf(err, errlen, "%s", store_error(st));
done:
	if (g)
		agclose(g);
	viz_sel_free(&sel);
	free(counts);
	if (have_trace)
		store_trace_clear(&trace);
	if (have_viol)
		store_violation_clear(&viol);
	store_run_clear(&r);
	return ret;
}
