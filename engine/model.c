/*
 * model.c — the step-function frontend: adapts a struct cmc_model (see
 * cmc_model.h) to the engine's frontend interface, and loads models from
 * shared objects.
 *
 * Fingerprints of model states are XXH3-128 of the state's bytes; the model
 * zeroes its padding so equal states are equal bytes.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "cmc_model.h"
#include "util.h"

struct model_fe {
	eng_frontend base;
	const struct cmc_model *m;
};

/* The sink handed to actions: forwards each yield to the engine. */
struct model_out {
	cmc_out base;
	const struct cmc_model *m;
	const char *action;
	eng_succ_fn fn;
	void *ctx;
	bool go_on;          /* false once the engine asked to stop */
	const char *only;    /* apply(): yield only successors with this label, or
	                        every successor of the action of this name */
};

static void out_yield(cmc_out *o, const void *next, const char *label)
{
	struct model_out *mo = (struct model_out *)o;
	if (!mo->go_on)
		return;
	const char *l = label ? label : mo->action;
	if (mo->only && (!l || strcmp(l, mo->only) != 0) &&
	    (!mo->action || strcmp(mo->action, mo->only) != 0))
		return;
	eng_succ x = {0};
	x.label = l;
	x.state = next;
	x.state_len = mo->m->state_size;
	x.fp = eng_fp_of(next, mo->m->state_size);
	mo->go_on = mo->fn(mo->ctx, &x);
}

static void out_fail(cmc_out *o, const char *message)
{
	struct model_out *mo = (struct model_out *)o;
	if (!mo->go_on)
		return;
	if (mo->only && (!mo->action || strcmp(mo->action, mo->only) != 0))
		return;
	eng_succ x = {0};
	x.label = mo->action;
	x.property = "assert";
	x.violation = message ? message : "assertion failed";
	mo->go_on = mo->fn(mo->ctx, &x);
}

static const struct cmc_out_ops model_out_ops = {out_yield, out_fail};

static int m_initial(eng_frontend *fe, eng_succ_fn fn, void *ctx)
{
	struct model_fe *f = (struct model_fe *)fe;
	struct model_out o = {{&model_out_ops}, f->m, NULL, fn, ctx, true, NULL};
	f->m->init(&o.base);
	return 0;
}

static int m_apply(eng_frontend *fe, const void *state, size_t len, const char *only,
		   eng_succ_fn fn, void *ctx)
{
	struct model_fe *f = (struct model_fe *)fe;
	if (len != f->m->state_size)
		return -1;
	struct model_out o = {{&model_out_ops}, f->m, NULL, fn, ctx, true, only};
	for (unsigned i = 0; i < f->m->n_actions && o.go_on; i++) {
		o.action = f->m->actions[i].name;
		f->m->actions[i].step(state, &o.base);
	}
	return 0;
}

static int m_next(eng_frontend *fe, const void *state, size_t len, eng_succ_fn fn, void *ctx)
{
	return m_apply(fe, state, len, NULL, fn, ctx);
}

static void m_check(eng_frontend *fe, const void *state, size_t len, const eng_obs *obs,
		    eng_bad_fn bad, void *ctx)
{
	struct model_fe *f = (struct model_fe *)fe;
	char prop[160];
	for (unsigned i = 0; i < f->m->n_invariants; i++) {
		if (f->m->invariants[i].holds(state))
			continue;
		snprintf(prop, sizeof prop, "invariant:%s", f->m->invariants[i].name);
		bad(ctx, prop, "invariant is violated");
	}
}

static unsigned m_n_actions(eng_frontend *fe) { return ((struct model_fe *)fe)->m->n_actions; }

static const char *m_action_name(eng_frontend *fe, unsigned i)
{
	struct model_fe *f = (struct model_fe *)fe;
	return i < f->m->n_actions ? f->m->actions[i].name : NULL;
}

static void m_print(eng_frontend *fe, const void *state, size_t len, FILE *out)
{
	struct model_fe *f = (struct model_fe *)fe;
	if (f->m->print) {
		f->m->print(state, out);
		return;
	}
	const unsigned char *b = state;
	for (size_t i = 0; i < len; i++)
		fprintf(out, "%02x", b[i]);
}

static void m_destroy(eng_frontend *fe) { free(fe); }

/* Models are pure functions of their state: one frontend serves every
 * thread. */
static eng_frontend *m_clone(eng_frontend *fe) { return fe; }

static const struct eng_frontend_ops model_ops = {
	.kind = "model",
	.initial = m_initial,
	.next = m_next,
	.apply = m_apply,
	.check = m_check,
	.n_actions = m_n_actions,
	.action_name = m_action_name,
	.print = m_print,
	.last_error = NULL,
	.destroy = m_destroy,
	.clone = m_clone,
};

eng_frontend *eng_model_frontend(const struct cmc_model *m)
{
	struct model_fe *f = eng_xcalloc(1, sizeof *f);
	f->base.ops = &model_ops;
	f->base.deadlock_ok = m->deadlock_ok;
	f->base.name = m->name;
	f->m = m;
	return &f->base;
}

int eng_model_validate(const struct cmc_model *m, char *err, size_t errlen)
{
	if (m->abi != CMC_MODEL_ABI) {
		snprintf(err, errlen, "model ABI %d, expected %d (rebuild it against this cmc_model.h)",
			 m->abi, CMC_MODEL_ABI);
		return -1;
	}
	if (!m->name || !*m->name) {
		snprintf(err, errlen, "model has no name");
		return -1;
	}
	if (m->state_size == 0 || m->state_size > (1u << 20)) {
		snprintf(err, errlen, "model %s: state_size %zu, expected 1..1048576", m->name,
			 m->state_size);
		return -1;
	}
	if (!m->init) {
		snprintf(err, errlen, "model %s: no init function", m->name);
		return -1;
	}
	if (m->n_actions && !m->actions) {
		snprintf(err, errlen, "model %s: %u actions but no action table", m->name, m->n_actions);
		return -1;
	}
	for (unsigned i = 0; i < m->n_actions; i++)
		if (!m->actions[i].name || !m->actions[i].step) {
			snprintf(err, errlen, "model %s: action %u has no name or step function",
				 m->name, i);
			return -1;
		}
	if (m->n_invariants && !m->invariants) {
		snprintf(err, errlen, "model %s: %u invariants but no table", m->name, m->n_invariants);
		return -1;
	}
	for (unsigned i = 0; i < m->n_invariants; i++)
		if (!m->invariants[i].name || !m->invariants[i].holds) {
			snprintf(err, errlen, "model %s: invariant %u has no name or function", m->name,
				 i);
			return -1;
		}
	return 0;
}

const struct cmc_model *eng_model_load(const char *path, char *err, size_t errlen)
{
	/* dlopen searches the library path for names without a slash */
	char buf[4096];
	if (!strchr(path, '/')) {
		snprintf(buf, sizeof buf, "./%s", path);
		path = buf;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load model '%s': %s", path, dlerror());
		return NULL;
	}
	cmc_model_entry_fn entry;
	*(void **)&entry = dlsym(h, "cmc_model_entry");
	if (!entry) {
		snprintf(err, errlen, "'%s' is not a cmc model: it defines no cmc_model_entry()", path);
		dlclose(h);
		return NULL;
	}
	const struct cmc_model *m = entry();
	if (!m) {
		snprintf(err, errlen, "'%s': cmc_model_entry() returned NULL", path);
		dlclose(h);
		return NULL;
	}
	if (eng_model_validate(m, err, errlen) < 0) {
		dlclose(h);
		return NULL;
	}
	return m; /* the handle stays open for the life of the process */
}
