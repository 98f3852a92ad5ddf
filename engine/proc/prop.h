/*
 * prop.h — process-mode properties (prop.c): built-ins and
 * plugins, evaluated on a state's observation.  Private to engine/proc/.
 */
#ifndef CMC_PROC_PROP_H
#define CMC_PROC_PROP_H

#include "exec.h"
#include "scenario.h"

struct proc_props;

/* What a property sees of one state: its trace (n op indices), the replies
 * to the first nprefix steps, and the observation after the last step
 * (whose reply is the last step's). */
struct proc_state_view {
	const uint16_t *trace;
	size_t n;
	struct proc_bytes *const *prefix;  /* NULL entries: empty replies */
	size_t nprefix;
	const struct proc_obs *obs;
};

/* Load the scenario's plugins (may rename their properties in sc).  NULL
 * with "file:line: expected ..." in err. */
struct proc_props *proc_props_load(struct proc_scenario *sc, char *err, size_t errlen);
void proc_props_free(struct proc_props *pp);

/* Whether any property of sc reads the replies of a trace's earlier
 * steps (a plugin does; the built-ins judge the last step alone): the
 * executors keep them only then (proc_exec.keep_replies). */
bool proc_props_read_replies(const struct proc_scenario *sc);

/* The first violated property's name (msg explains), or NULL. */
const char *proc_props_eval(struct proc_props *pp, const struct proc_state_view *v, char *msg,
			    size_t msglen);

#endif
