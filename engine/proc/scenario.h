/*
 * scenario.h — a parsed scenario file: what process mode runs and how.
 * The format is documented in share/scenario.md; scenario.c parses it.
 * Private to engine/proc/.
 *
 * Ownership: a proc_scenario owns every string and array it points to;
 * proc_scenario_free() releases them all.
 */
#ifndef CMC_PROC_SCENARIO_H
#define CMC_PROC_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum proc_transport { PROC_STDIN, PROC_TCP };

/* Which fingerprint identifies (deduplicates) states. */
enum proc_ident {
	PROC_ID_AUTO,   /* canonical when the initial state emitted a record, else raw */
	PROC_ID_RAW,
	PROC_ID_CANON,
	PROC_ID_BOTH,   /* the pair (raw, canonical): the finer identity */
	PROC_ID_GRAPH,  /* the heap graph cmc walks itself (heapgraph.h), as the canonical one */
	PROC_ID_GRAPH_BOTH, /* the pair (raw, heap graph): what `cmc compare` needs */
};

/* Does this identity walk the heap graph? */
static inline bool proc_ident_graph(enum proc_ident id)
{
	return id == PROC_ID_GRAPH || id == PROC_ID_GRAPH_BOTH;
}

/* What a crash operation keeps of the files (`op LABEL crash`: one line
 * makes two ops, one of each; durable.c). */
enum proc_crash {
	PROC_CRASH_NONE,
	PROC_CRASH_KEPT,    /* the process dies, the page cache survives */
	PROC_CRASH_LOST,    /* power loss: every file goes back to its durable image */
};

/* Invariant: len bytes in bytes (may contain NULs), len > 0 unless eof,
 * timeout, advance, crash or reconnect (at most one of the five,
 * advance_ms <= INT32_MAX); label is unique among ops; an eof op is once;
 * reconnect only with transport tcp (reconnect_line says where the first
 * is). */
struct proc_op {
	char *label;
	uint8_t *bytes;
	size_t len;
	bool once;          /* applied at most once along a trace */
	bool eof;           /* closes the target's input instead of sending bytes;
	                       no operation follows it along a trace */
	bool timeout;       /* sends nothing: the timed wait the target sleeps in
	                       times out (preload/detwait.c); none: no change */
	uint32_t advance_ms; /* > 0: sends nothing; the target's virtual clock
	                       moves on by this much, and a timed wait it
	                       reaches times out (preload/detwait.c) */
	enum proc_crash crash; /* != NONE: sends nothing; the target is killed
	                       and started again on its files (durable.c) */
	bool reconnect;     /* tcp: sends nothing; cmc hangs up (if the
	                       connection is open) and connects again */
};

/* An operation a fork snapshot cannot make, which the fork executor hands,
 * with every state after it, to replay (exec_fork.c): a crash restarts
 * the target; a reconnect dials the listening socket every snapshot of the
 * run shares. */
static inline bool proc_op_replay_only(const struct proc_op *op)
{
	return op->crash != PROC_CRASH_NONE || op->reconnect;
}

enum proc_prop_kind {
	PROC_PROP_CRASH,    /* no death by signal (always on) */
	PROC_PROP_EXIT,     /* when the target exits, its status is `status` */
	PROC_PROP_REPLY,    /* the reply to op `label` (NULL: any op) matches `pattern` */
	PROC_PROP_ALLOC,    /* the allocator's invariants hold (alloc.c) */
	PROC_PROP_LEAK,     /* nothing of the target's is lost (or, with `reachable`,
	                       still live) when it exits normally (INV-23) */
	PROC_PROP_PLUGIN,   /* a shared object's cmc_property_check() */
	PROC_PROP_OPEN,     /* tcp: the target never closes the connection itself */
	PROC_PROP_CLOSED,   /* tcp: after op `label`, the target has closed it */
};

struct proc_prop {
	enum proc_prop_kind kind;
	int status;
	bool reachable;     /* LEAK: blocks still reachable count too */
	char *label;        /* REPLY: op label or NULL; CLOSED: op label */
	char *pattern;      /* REPLY: fnmatch(3) pattern */
	char *path;         /* PLUGIN: resolved path of the .so */
	char *arg;          /* PLUGIN: optional argument, may be NULL */
	char *name;         /* property name in reports */
	int line;           /* where it was declared */
};

#define PROC_MAX_OPS 4096u
#define PROC_MAX_SYMBOLS 64u
#define PROC_LIMIT_AS_DEFAULT (16ULL << 30)

/*
 * Invariants: argc >= 1 and argv[argc] == NULL; argv[0] is an absolute or
 * scenario-relative path resolved at parse time (or a bare name searched in
 * PATH); nops >= 1; every label distinct; timeout_ms > 0; raw_cap > 0.
 */
struct proc_scenario {
	char *path;             /* the scenario file as given */
	char *dir;              /* its directory (relative paths resolve here) */
	char **argv;            /* words; "{port}" is substituted at spawn time */
	size_t argc;
	char *exe;              /* resolved executable path */
	char **env;             /* extra NAME=VALUE for the target */
	size_t nenv;
	int env_preload_line;   /* the line of an `env LD_PRELOAD=...` (0: none):
				   it replaces cmc's preload */
	char *cwd;              /* target's working directory (NULL: inherit) */
	enum proc_transport transport;
	struct proc_op *ops;
	size_t nops;
	uint32_t depth;         /* 0: unbounded (engine levels: init = 1) */
	uint64_t states;        /* 0: unbounded */
	enum proc_ident ident;  /* from `hash`/`merge` */
	bool ident_set;
	bool raw_heap, raw_segments;
	char **raw_symbols;
	size_t nsymbols;
	uint64_t raw_cap;       /* bytes of raw window kept in observations */
	unsigned timeout_ms;    /* per operation (and for start-up) */
	uint64_t heap_base, heap_size;
	uint64_t reply_cap;     /* bytes of output per operation; more is a flood */
	int canon_fd;
	bool line_buffer;
	bool exit_live;     /* a leak property: the preload reports live blocks at exit */
	struct proc_prop *props;
	size_t nprops;
	/* Resource limits on the target (`limit KIND VALUE`; 0: none), set by
	 * limits.c between fork and exec. */
	uint64_t limit_as, limit_fsize, limit_cpu, limit_procs;
	/* Files whose contents are part of the state (`state-file`,
	 * `state-dir`; files.c reads them).  Invariant: each rel is a
	 * normalised path inside the target's working directory (no "..", no
	 * empty or "." component, not absolute), "." only for a dir. */
	struct proc_statefile *statefiles;
	size_t nstatefiles;
	uint64_t state_cap;     /* bytes of declared files read per state; more is a fault */
	uint32_t state_cap_files; /* files below the declared dirs per state */
	bool durable;           /* a crash op: the working directory keeps its
				   durable image (PROC_DURABLE_DIR, durable.c),
				   declared as a state-dir of its own */
	int reconnect_line;     /* the first reconnect op's line; 0: none */
};

/* The durable image's directory in the target's working directory
 * (preload/durable.c keeps it, engine/proc/durable.c reverts to it). */
#define PROC_DURABLE_DIR ".cmc-durable"

struct proc_statefile {
	char *path;             /* as written (messages) */
	char *rel;              /* relative to the working directory, normalised */
	bool dir;               /* state-dir: every regular file below it */
	int line;
};

/* Defaults of `state-cap BYTES [FILES]`. */
#define PROC_STATE_CAP_DEFAULT (64ull << 20)
#define PROC_STATE_CAP_FILES_DEFAULT 10000u

/* Parse `path`.  NULL on error with "file:line: expected ..." in err. */
struct proc_scenario *proc_scenario_load(const char *path, char *err, size_t errlen);
void proc_scenario_free(struct proc_scenario *sc);

/* Apply one `key value` setting as if it were a scenario line (for
 * command-line overrides).  0, or -1 with err filled. */
int proc_scenario_set(struct proc_scenario *sc, const char *key, const char *value,
		      char *err, size_t errlen);

/* Parse a byte count ("4096", "64K", "1M", "0x1000"); -1 on junk. */
int proc_parse_size(const char *s, uint64_t *out);

#endif
