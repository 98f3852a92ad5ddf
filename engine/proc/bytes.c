/*
 * bytes.c — immutable bytes shared by reference: a reply kept once
 * however many holders need it (the fork pool's snapshots along one
 * trace, the executors' views of the trace being expanded).  The count is
 * atomic: the pool is shared by the workers' threads.  Whoever holds a
 * reference may read p[0 .. len); nobody writes after proc_bytes_new().
 */
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "util.h"

struct proc_bytes *proc_bytes_new(const void *p, size_t n)
{
	if (!n)
		return NULL;
	struct proc_bytes *b = eng_xmalloc(sizeof *b + n);
	b->refs = 1;
	b->len = n;
	memcpy(b->p, p, n);
	return b;
}

struct proc_bytes *proc_bytes_ref(struct proc_bytes *b)
{
	if (b)
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void proc_bytes_unref(struct proc_bytes *b)
{
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(b);
}

void proc_exec_replies_clear(struct proc_exec *x)
{
	for (size_t i = 0; i < x->nreplies; i++) {
		proc_bytes_unref(x->replies[i]);
		x->replies[i] = NULL;
	}
	x->nreplies = 0;
}

void proc_exec_replies_set(struct proc_exec *x, size_t i, struct proc_bytes *b)
{
	if (i >= x->replies_cap) {
		size_t nc = x->replies_cap ? x->replies_cap * 2 : 16;
		while (nc <= i)
			nc *= 2;
		x->replies = eng_xrealloc(x->replies, nc * sizeof *x->replies);
		memset(x->replies + x->replies_cap, 0, (nc - x->replies_cap) * sizeof *x->replies);
		x->replies_cap = nc;
	}
	for (size_t k = x->nreplies; k < i; k++)
		x->replies[k] = NULL;
	if (i < x->nreplies)
		proc_bytes_unref(x->replies[i]);
	x->replies[i] = b;
	if (i + 1 > x->nreplies)
		x->nreplies = i + 1;
}

void proc_exec_replies_free(struct proc_exec *x)
{
	proc_exec_replies_clear(x);
	free(x->replies);
	x->replies = NULL;
	x->replies_cap = 0;
}
