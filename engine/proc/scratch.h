/*
 * scratch.h — a target's working directory of its own: a copy of the
 * scenario's `cwd` (or an empty directory), mounted where the target sees
 * it at the same path on every run, removed with the target
 * (scratch.c).  Private to engine/proc/.
 */
#ifndef CMC_PROC_SCRATCH_H
#define CMC_PROC_SCRATCH_H

#include "scenario.h"

struct proc_scratch;

#include <stddef.h>

/* Where a target whose scenario names no `cwd` sees its directory. */
#define PROC_SCRATCH_AT "/tmp/cmc-work"

/* Made before the target's fork; NULL (err filled) when the directory
 * cannot be made or the scenario's cannot be copied. */
struct proc_scratch *proc_scratch_new(const struct proc_scenario *sc, char *err, size_t errlen);
/* In the target's child: a mount namespace of its own with the copy
 * mounted at its path, and into it (0); 1 when the kernel refused the
 * namespace and the target works at the copy's own path; -1 (errno set)
 * when it cannot even go there. */
int proc_scratch_enter(const struct proc_scratch *s);
/* A fork child's own: a copy of its origin's, seen at the same path; NULL
 * when the origin's is mounted nowhere or the copy failed (the child then
 * shares its origin's). */
struct proc_scratch *proc_scratch_fork(const struct proc_scratch *origin);
/* The mount namespace a fork child enters to work on its copy (setns),
 * made ahead by cmc (scratchns.c): a descriptor the scratch owns, or -1
 * (the child then mounts the copy itself, from the path). */
int proc_scratch_nsfd(const struct proc_scratch *s);
/* scratchns.c: a namespace like cmc's with dir bind-mounted at `at`, held
 * by the descriptor returned (close-on-exec); -1 when the kernel refuses. */
int proc_scratch_ns_make(const char *dir, const char *at);
/* Copies made for fork children, namespaces made for them, and copies
 * handed on to another child (with their namespace) instead of made anew;
 * since cmc started. */
struct proc_scratch_stats {
	unsigned long long copies, namespaces, reused;
};
void proc_scratch_stats(struct proc_scratch_stats *out);
/* Its directory, cmc's copy (what a fork child mounts). */
const char *proc_scratch_dir(const struct proc_scratch *s);
/* Where the target sees it. */
const char *proc_scratch_at(const struct proc_scratch *s);
/* One more target holds it (a fork snapshot of one that does). */
struct proc_scratch *proc_scratch_ref(struct proc_scratch *s);
/* One fewer; the last removes the directory, or empties a fork child's
 * and keeps it, with its namespace, for the next child (a few at most). */
void proc_scratch_unref(struct proc_scratch *s);

#endif
