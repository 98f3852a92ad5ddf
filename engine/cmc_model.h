/*
 * cmc_model.h — writing a step-function model for cmc.
 *
 * A model is a fixed-size state (a plain C struct, compared and hashed as
 * bytes: zero its padding), initial states, named actions and invariants.
 * An action looks at a state and yields zero or more successors through
 * cmc_yield(); each yielded successor counts as one generated state, the way
 * TLC counts one per enabled action instance.  A failed assertion inside an
 * action is reported with cmc_fail().
 *
 * A model is either built into cmc (share/models/, listed in the registry) or
 * compiled as a shared object that defines
 *
 *     const struct cmc_model *cmc_model_entry(void);
 *
 * and is then checked with `cmc check ./model.so`.  The header is all a model
 * needs; it does not link against libcmc.
 */
#ifndef CMC_MODEL_H
#define CMC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CMC_MODEL_ABI 1

/* Opaque sink for successors, owned by the engine. */
typedef struct cmc_out cmc_out;

struct cmc_out_ops {
	void (*yield)(cmc_out *o, const void *next, const char *label);
	void (*fail)(cmc_out *o, const char *message);
};
struct cmc_out {
	const struct cmc_out_ops *ops;
};

/* Hand one successor to the engine.  `label` names it in traces; NULL uses
 * the action's name.  `next` is copied before the call returns. */
static inline void cmc_yield(cmc_out *o, const void *next, const char *label)
{
	o->ops->yield(o, next, label);
}

/* An assertion inside the action failed in this state. */
static inline void cmc_fail(cmc_out *o, const char *message)
{
	o->ops->fail(o, message);
}

struct cmc_action {
	const char *name;
	/* Yield every successor this action allows from s (none when disabled). */
	void (*step)(const void *s, cmc_out *out);
};

struct cmc_invariant {
	const char *name;
	bool (*holds)(const void *s);
};

struct cmc_model {
	int abi;                   /* CMC_MODEL_ABI */
	const char *name;
	const char *summary;       /* one line: what it is, where it comes from */
	size_t state_size;
	/* Yield every initial state (label NULL). */
	void (*init)(cmc_out *out);
	const struct cmc_action *actions;
	unsigned n_actions;
	const struct cmc_invariant *invariants;
	unsigned n_invariants;
	bool deadlock_ok;          /* states with no successor are not a deadlock */
	void (*print)(const void *s, FILE *out); /* may be NULL */
};

typedef const struct cmc_model *(*cmc_model_entry_fn)(void);

#endif
