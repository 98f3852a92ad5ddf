/*
 * prop.c — process-mode properties, evaluated on every transition (an
 * operation's observation, also when it leads to a state seen before: the
 * reply, the exit, a fault and the trace a plugin reads are the
 * transition's, not the state's): the built-ins (no crash, no fault, exit
 * status, reply patterns, allocator invariants, leaks) and plugins
 * (share/include/cmc_property.h), loaded with dlopen when the frontend
 * opens.  The first violated property names the transition's violation.
 *
 * Owns the plugin handles; proc_props_free() closes them.
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmc_property.h"
#include "limits.h"
#include "prop.h"
#include "util.h"

struct plugin {
	void *h;
	cmc_property_check_fn check;
	const struct proc_prop *p;
};

struct proc_props {
	const struct proc_scenario *sc;
	struct plugin *plugins;
	size_t nplugins;
	char name[256];         /* name of the last violated property */
};

struct proc_props *proc_props_load(struct proc_scenario *sc, char *err, size_t errlen)
{
	struct proc_props *pp = eng_xcalloc(1, sizeof *pp);
	pp->sc = sc;
	for (size_t i = 0; i < sc->nprops; i++) {
		struct proc_prop *p = &sc->props[i];
		if (p->kind != PROC_PROP_PLUGIN)
			continue;
		void *h = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(err, errlen, "%s:%d: expected a loadable plugin: %s", sc->path, p->line, dlerror());
			proc_props_free(pp);
			return NULL;
		}
		cmc_property_check_fn fn;
		*(void **)&fn = dlsym(h, "cmc_property_check");
		if (!fn) {
			snprintf(err, errlen, "%s:%d: expected %s to define cmc_property_check() "
				 "(see cmc_property.h)", sc->path, p->line, p->path);
			dlclose(h);
			proc_props_free(pp);
			return NULL;
		}
		cmc_property_name_fn nf;
		*(void **)&nf = dlsym(h, "cmc_property_name");
		const char *nm = nf ? nf() : NULL;
		if (nm && *nm) {
			free(p->name);
			p->name = eng_xstrdup(nm);
		}
		pp->plugins = eng_xrealloc(pp->plugins, (pp->nplugins + 1) * sizeof *pp->plugins);
		pp->plugins[pp->nplugins++] = (struct plugin){h, fn, p};
	}
	return pp;
}

void proc_props_free(struct proc_props *pp)
{
	if (!pp)
		return;
	for (size_t i = 0; i < pp->nplugins; i++)
		dlclose(pp->plugins[i].h);
	free(pp->plugins);
	free(pp);
}

/* The reply as a C string for fnmatch: up to the first NUL, one trailing
 * newline dropped. */
static char *reply_str(const struct proc_obs *o)
{
	size_t n = o->reply.len;
	const char *p = (const char *)o->reply.p;
	if (n && memchr(p, 0, n))
		n = strlen(p);
	if (n && p[n - 1] == '\n')
		n--;
	char *s = eng_xmalloc(n + 1);
	if (n)
		memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/* INV-23: judged on a normal exit that sent its report; an exit that skips
 * the destructors (_exit, a fault, a signal) says nothing about leaks. */
static const char *leak(const struct proc_prop *p, const struct proc_obs *o, const char *last,
			char *msg, size_t msglen)
{
	const struct proc_exit_live *x = &o->exit_live;
	if (!(o->e.flags & ENG_OBS_EXITED) || o->fault != PROC_FAULT_NONE || !x->seen)
		return NULL;
	uint64_t n = p->reachable ? x->n_blocks : x->n_lost;
	uint64_t bytes = p->reachable ? x->bytes : x->lost_bytes;
	if (!n)
		return NULL;
	int k = snprintf(msg, msglen, "INV-23: %llu block%s, %llu byte%s %s when the target exited after %s",
			 (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)bytes, bytes == 1 ? "" : "s",
			 p->reachable ? "still live" : "unreachable (lost)", last ? last : "start-up");
	for (uint32_t i = 0; i < x->n_listed && k > 0 && (size_t)k < msglen; i++) {
		if (!p->reachable && !x->list[i].lost)
			continue;
		k += snprintf(msg + k, msglen - (size_t)k, "; first at 0x%llx (%llu bytes%s)",
			      (unsigned long long)x->list[i].addr, (unsigned long long)x->list[i].size,
			      p->reachable && x->list[i].lost ? ", lost" : "");
		break;
	}
	if (!x->complete && k > 0 && (size_t)k < msglen)
		snprintf(msg + k, msglen - (size_t)k, " (a chunk could not be walked: at least this many)");
	return p->name;
}

static const char *builtin(struct proc_props *pp, const struct proc_prop *p,
			   const struct proc_state_view *v, char *msg, size_t msglen)
{
	const struct proc_obs *o = v->obs;
	const char *last = v->n ? pp->sc->ops[v->trace[v->n - 1]].label : NULL;
	switch (p->kind) {
	case PROC_PROP_EXIT:
		if ((o->e.flags & ENG_OBS_EXITED) && o->fault == PROC_FAULT_NONE &&
		    o->e.exit_status != p->status) {
			snprintf(msg, msglen, "target exited with status %d, expected %d", o->e.exit_status,
				 p->status);
			return p->name;
		}
		return NULL;
	case PROC_PROP_REPLY: {
		if (!last || (p->label && strcmp(p->label, last)))
			return NULL;
		if (o->e.flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_FAULT))
			return NULL; /* ended states are judged by crash/exit/fault */
		char *s = reply_str(o);
		int r = fnmatch(p->pattern, s, 0);
		/* what it was, cut: target bytes (printers escape them) */
		if (r != 0)
			snprintf(msg, msglen, "reply to %s does not match \"%s\": it was \"%.120s%s\"", last,
				 p->pattern, s, strlen(s) > 120 ? "..." : "");
		free(s);
		return r == 0 ? NULL : p->name;
	}
	case PROC_PROP_ALLOC:
		if ((o->e.flags & ENG_OBS_ALLOC) && o->e.alloc_failed) {
			snprintf(msg, msglen, "allocator invariant %s (mask 0x%x)", o->alloc_msg,
				 o->e.alloc_failed);
			return p->name;
		}
		return NULL;
	case PROC_PROP_LEAK:
		return leak(p, o, last, msg, msglen);
	case PROC_PROP_OPEN:
		/* an ended target closed everything: exit and crash judge it */
		if (!(o->e.flags & ENG_OBS_CLOSED) || (o->e.flags & (ENG_OBS_EXITED | ENG_OBS_SIGNALED | ENG_OBS_FAULT)))
			return NULL;
		snprintf(msg, msglen, "the target closed the connection after %s", last ? last : "start-up");
		return p->name;
	case PROC_PROP_CLOSED:
		if (!last || strcmp(p->label, last) || (o->e.flags & (ENG_OBS_CLOSED | ENG_OBS_EXITED | ENG_OBS_SIGNALED)) ||
		    (o->e.flags & ENG_OBS_FAULT))
			return NULL;
		snprintf(msg, msglen, "the connection is still open after %s", last);
		return p->name;
	default:
		return NULL;
	}
}

static const char *plugin(struct proc_props *pp, const struct plugin *pl,
			  const struct proc_state_view *v, char *msg, size_t msglen)
{
	const struct proc_obs *o = v->obs;
	size_t n = v->n;
	const char **labels = eng_xcalloc(n + 1, sizeof *labels);
	const unsigned char **replies = eng_xcalloc(n + 1, sizeof *replies);
	size_t *lens = eng_xcalloc(n + 1, sizeof *lens);
	for (size_t i = 0; i < n; i++) {
		labels[i] = pp->sc->ops[v->trace[i]].label;
		if (i + 1 == n && o->reply.len) {
			replies[i] = o->reply.p;
			lens[i] = o->reply.len;
		} else if (i + 1 < n && i < v->nprefix && v->prefix[i]) {
			replies[i] = v->prefix[i]->p;
			lens[i] = v->prefix[i]->len;
		}
	}
	struct cmc_property_ctx ctx = {
		.abi = CMC_PROPERTY_ABI,
		.depth = n,
		.labels = labels,
		.replies = replies,
		.reply_lens = lens,
		.canon = (o->e.flags & ENG_OBS_CANON) ? o->e.canon_rec : NULL,
		.canon_len = (o->e.flags & ENG_OBS_CANON) ? o->e.canon_len : 0,
		.exited = !!(o->e.flags & ENG_OBS_EXITED),
		.exit_status = o->e.exit_status,
		.signaled = !!(o->e.flags & ENG_OBS_SIGNALED),
		.term_signal = o->e.term_signal,
		.arg = pl->p->arg,
	};
	msg[0] = 0;
	int r = pl->check(&ctx, msg, msglen);
	msg[msglen - 1] = 0;
	free(labels);
	free(replies);
	free(lens);
	if (r == 0)
		return NULL;
	if (!msg[0])
		snprintf(msg, msglen, "violated");
	return pl->p->name;
}

bool proc_props_read_replies(const struct proc_scenario *sc)
{
	for (size_t i = 0; i < sc->nprops; i++)
		if (sc->props[i].kind == PROC_PROP_PLUGIN)
			return true;
	return false;
}

/*
 * Append to msg what the target last wrote before it died (an assertion's
 * or a sanitizer's line goes to stderr, which is its output here): the
 * last lines of the last operation's output, at most TAIL bytes.  The
 * bytes stay as the target wrote them (a NUL, which would end the message,
 * becomes '?'): whoever prints the message escapes it.
 */
#define TAIL 240

static void append_output(char *msg, size_t msglen, const struct proc_buf *out)
{
	const uint8_t *p = out->p;
	size_t n = out->len;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!n)
		return;
	size_t from = n > TAIL ? n - TAIL : 0;
	if (from) /* start at a line when one begins within the tail */
		for (size_t i = from; i < n; i++)
			if (p[i - 1] == '\n') {
				from = i;
				break;
			}
	size_t k = strlen(msg);
	int w = snprintf(msg + k, msglen - k, "; its output ended: %s", from ? "..." : "");
	if (w < 0 || (size_t)w >= msglen - k)
		return;
	k += (size_t)w;
	for (size_t i = from; i < n && k + 1 < msglen; i++)
		msg[k++] = p[i] ? (char)p[i] : '?';
	msg[k] = 0;
}

const char *proc_props_eval(struct proc_props *pp, const struct proc_state_view *v, char *msg,
			    size_t msglen)
{
	const struct proc_obs *o = v->obs;
	const char *last = v->n ? pp->sc->ops[v->trace[v->n - 1]].label : "start-up";
	/* Always on: the target does not die on a signal, and does not fault. */
	if ((o->e.flags & ENG_OBS_SIGNALED) && proc_limits_signal(o->e.term_signal, pp->sc, last, msg, msglen))
		return "limit";
	if ((o->e.flags & ENG_OBS_SIGNALED) && o->fault == PROC_FAULT_LIMIT) {
		/* a refused mapping, then the death it led to: the limit is the cause */
		snprintf(msg, msglen, "after %s: %s; the target then died on signal %d (%s)", last,
			 o->fault_msg, o->e.term_signal, strsignal(o->e.term_signal));
		return "limit";
	}
	if (o->e.flags & ENG_OBS_SIGNALED) {
		snprintf(msg, msglen, "target died on signal %d (%s) after %s", o->e.term_signal,
			 strsignal(o->e.term_signal), last);
		append_output(msg, msglen, &o->reply);
		return "crash";
	}
	if (o->fault != PROC_FAULT_NONE) {
		snprintf(msg, msglen, "after %s: %s", last, o->fault_msg);
		return proc_fault_name(o->fault);
	}
	for (size_t i = 0; i < pp->sc->nprops; i++) {
		const struct proc_prop *p = &pp->sc->props[i];
		if (p->kind == PROC_PROP_PLUGIN || p->kind == PROC_PROP_CRASH)
			continue;
		const char *name = builtin(pp, p, v, msg, msglen);
		if (name)
			return name;
	}
	for (size_t i = 0; i < pp->nplugins; i++) {
		const char *name = plugin(pp, &pp->plugins[i], v, msg, msglen);
		if (name)
			return name;
	}
	return NULL;
}
