/*
 * model-fuzzer.c — libFuzzer target for the model loader's metadata check
 * (eng_model_validate in engine/model.c), which is all that stands between
 * a shared object's struct cmc_model and the engine.  The input builds the
 * struct: ABI, name, summary, state size, action and invariant tables whose
 * names come from the input and whose functions are harmless stubs (or
 * NULL).  A refused model must have a message; an accepted one must be
 * safe to search, so it is, bounded: a few hundred states, traces rebuilt.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmc.h"
#include "cmc_model.h"

struct rd {
	const uint8_t *p;
	size_t n;
};

static unsigned byte(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

/* A NUL-terminated copy of the next length-prefixed string, or NULL when
 * the length byte is 0xff. */
static char *str(struct rd *r)
{
	unsigned len = byte(r);
	if (len == 0xff)
		return NULL;
	if (len > r->n)
		len = (unsigned)r->n;
	char *s = malloc(len + 1);
	memcpy(s, r->p, len);
	s[len] = 0;
	r->p += len, r->n -= len;
	return s;
}

static size_t g_size;
static unsigned g_mod = 3;
static char *g_msg, *g_lab;

static void init_zero(cmc_out *o)
{
	uint8_t *s = calloc(1, g_size);
	cmc_yield(o, s, NULL);
	free(s);
}
static void step_inc(const void *sv, cmc_out *o)
{
	uint8_t *s = malloc(g_size);
	memcpy(s, sv, g_size);
	s[0] = (uint8_t)((s[0] + 1) % g_mod);
	cmc_yield(o, s, NULL);
	free(s);
}
static void step_two(const void *sv, cmc_out *o)
{
	uint8_t *s = malloc(g_size);
	memcpy(s, sv, g_size);
	s[g_size - 1] ^= 1;
	cmc_yield(o, s, g_lab);
	s[g_size - 1] ^= 2;
	cmc_yield(o, s, g_lab);
	free(s);
}
static void step_fail(const void *sv, cmc_out *o)
{
	if (((const uint8_t *)sv)[0] == g_mod - 1)
		cmc_fail(o, g_msg);
}
static bool holds_yes(const void *s) { return true; }
static bool holds_lt(const void *s) { return ((const uint8_t *)s)[0] < g_mod - 1; }

static void (*const steps[])(const void *, cmc_out *) = {NULL, step_inc, step_two, step_fail};
static bool (*const holds[])(const void *) = {NULL, holds_yes, holds_lt};

static void on_violation(void *ctx, const eng_violation *v)
{
	assert(v->property && v->message);
	++*(unsigned *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = {data, size};
	unsigned flags = byte(&r);
	struct cmc_model m = {0};
	m.abi = (flags & 0x10) ? (int)(int8_t)byte(&r) : CMC_MODEL_ABI;
	unsigned sz = byte(&r) | byte(&r) << 8 | byte(&r) << 16;
	m.state_size = (flags & 0x80) ? (size_t)sz << 8 : sz;
	m.init = (flags & 2) ? NULL : init_zero;
	m.deadlock_ok = flags & 0x20;
	m.n_actions = byte(&r);
	m.n_invariants = byte(&r);
	if (m.n_actions > 16 && !(flags & 4))
		m.n_actions %= 17;
	if (m.n_invariants > 16 && !(flags & 8))
		m.n_invariants %= 17;
	g_mod = byte(&r) % 8 + 2;
	char *name = str(&r), *summary = str(&r);
	m.name = (flags & 1) ? NULL : name;
	m.summary = (flags & 0x40) ? NULL : summary;
	g_msg = str(&r);
	g_lab = str(&r);
	struct cmc_action *acts = (flags & 4) ? NULL : calloc(m.n_actions + 1, sizeof *acts);
	struct cmc_invariant *invs = (flags & 8) ? NULL : calloc(m.n_invariants + 1, sizeof *invs);
	for (unsigned i = 0; acts && i < m.n_actions; i++) {
		acts[i].step = steps[byte(&r) % 4];
		acts[i].name = str(&r);
	}
	for (unsigned i = 0; invs && i < m.n_invariants; i++) {
		invs[i].holds = holds[byte(&r) % 3];
		invs[i].name = str(&r);
	}
	m.actions = acts;
	m.invariants = invs;

	char err[256];
	err[0] = 0;
	if (eng_model_validate(&m, err, sizeof err) < 0) {
		assert(err[0] && memchr(err, 0, sizeof err));
	} else if (m.state_size <= 4096) {
		g_size = m.state_size;
		eng_frontend *fe = eng_model_frontend(&m);
		unsigned na = fe->ops->n_actions ? fe->ops->n_actions(fe) : 0;
		for (unsigned i = 0; i < na; i++)
			assert(fe->ops->action_name(fe, i));
		eng_opts o;
		eng_opts_default(&o);
		o.max_states = 64;
		o.keep_going = flags & 0x20;
		o.check_deadlock = true;
		unsigned nviol = 0;
		eng_listener l = {.on_violation = on_violation, .ctx = &nviol};
		eng_search *s = eng_search_new(fe, &o);
		eng_search_listen(s, &l);
		eng_search_run(s);
		uint64_t n = eng_search_count(s);
		assert(n <= 64 + 2 * 16 + 1);
		if (n) {
			eng_trace *t = eng_search_trace(s, (uint32_t)(n - 1));
			if (t)
				eng_trace_free(t);
		}
		eng_search_free(s);
		fe->ops->destroy(fe);
	}
	for (unsigned i = 0; acts && i < m.n_actions; i++)
		free((char *)acts[i].name);
	for (unsigned i = 0; invs && i < m.n_invariants; i++)
		free((char *)invs[i].name);
	free(acts);
	free(invs);
	free(name);
	free(summary);
	free(g_msg);
	free(g_lab);
	return 0;
}
