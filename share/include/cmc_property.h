/*
 * cmc_property.h — custom properties for process mode, written in C.
 *
 * A property plugin is a shared object named in the scenario:
 *
 *     plugin keys_present.so [ARGUMENT]
 *
 * (relative paths resolve against the scenario file's directory).  cmc
 * dlopen()s it and calls its entry point on every state it reaches, the
 * initial state included:
 *
 *     int cmc_property_check(const struct cmc_property_ctx *ctx,
 *                            char *msg, size_t msglen);
 *
 * Return 0 when the property holds.  Return non-zero when it is violated and
 * write a one-line explanation into msg (NUL-terminated, at most msglen
 * bytes including the NUL); cmc reports it with the shortest trace that
 * reaches the state.  Optionally the plugin also defines
 *
 *     const char *cmc_property_name(void);   // e.g. "keys-present"
 *
 * which names the property in reports (default: the file name without .so).
 *
 * The context is valid only during the call; copy what you keep.  Every byte
 * in it came from the target and is untrusted: check lengths before parsing.
 * The header is all a plugin needs; it does not link against libcmc.
 * Build:  cc -shared -fPIC -I/usr/local/include/cmc -o p.so p.c
 */
#ifndef CMC_PROPERTY_H
#define CMC_PROPERTY_H

#include <stddef.h>

#define CMC_PROPERTY_ABI 1

struct cmc_property_ctx {
	int abi;                            /* CMC_PROPERTY_ABI */
	/* The trace from the initial state: depth operations, by label
	 * ("INS 1") as written in the scenario. */
	size_t depth;
	const char *const *labels;          /* depth entries */
	/* What the target wrote (stdout and stderr) in answer to each step;
	 * reply_lens[i] bytes, not NUL-terminated, capped by reply-cap. */
	const unsigned char *const *replies; /* depth entries (a NULL entry: no output) */
	const size_t *reply_lens;
	/* The last complete canonical record (cmc_emit.h) the target wrote,
	 * or NULL when it never wrote one. */
	const unsigned char *canon;
	size_t canon_len;
	/* How the state ended, when it is final. */
	int exited;                         /* non-zero: exit_status is valid */
	int exit_status;
	int signaled;                       /* non-zero: term_signal is valid */
	int term_signal;
	const char *arg;                    /* the scenario's ARGUMENT, or NULL */
};

typedef int (*cmc_property_check_fn)(const struct cmc_property_ctx *ctx, char *msg,
				     size_t msglen);
typedef const char *(*cmc_property_name_fn)(void);

#endif
