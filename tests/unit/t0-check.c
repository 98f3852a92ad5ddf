/*
 * t0-check.c — cmc's own invariant checks (engine/check.h): each validator
 * holds on its structure after real operations, and aborts naming the rule
 * when the structure is broken on purpose (in a child process, so the test
 * sees the abort and its message); CMC_ASSERT aborts with "cmc: internal
 * check failed: FILE:LINE: EXPR" at every level from 1.  Also: a visited
 * set whose parent file failed answers "no parent" instead of crashing.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cmc_model.h"
#include "fpset.h"
#include "internal.h" /* store/: the fpmap */
#include "queue.h"
#include "util.h"
#include "search_int.h"
#include "tap.h"
#include "aborts.h"

extern const struct cmc_model cmc_model_twophase_bug, cmc_model_bench_counters_small;

static eng_fp nth(uint64_t i) { return eng_fp_of(&i, sizeof i); }


/* ---- CMC_ASSERT ---------------------------------------------------------- */

static void failing_assert(void *arg)
{
	int two = *(int *)arg;
	CMC_ASSERT(two + two == 5);
}
static const int failing_assert_line = __LINE__ - 2;

static void check_assert(void)
{
	int two = 2;
	char err[512], want[256];
	int status = in_child(failing_assert, &two, err, sizeof err);
	snprintf(want, sizeof want, "cmc: internal check failed: %s:%d: two + two == 5\n", __FILE__,
		 failing_assert_line);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strcmp(err, want) == 0,
	   "CMC_ASSERT at level %d aborts with \"cmc: internal check failed: FILE:LINE: EXPR\"",
	   CMC_CHECK);
	if (strcmp(err, want) != 0)
		printf("# want: %s# got:  %s\n", want, err);
	CMC_ASSERT(two + two == 4); /* a true one costs nothing and says nothing */
	ok(1, "a CMC_ASSERT that holds returns");
	ok(ALWAYS(two == 2) && !NEVER(two == 3), "ALWAYS/NEVER pass their condition through");
}

/* ---- the visited set ------------------------------------------------------ */

static fpset *filled_set(uint64_t n)
{
	fpset *s = fpset_new(0);
	bool fresh;
	for (uint64_t i = 0; i < n; i++)
		fpset_put(s, nth(i), i ? (uint32_t)(i / 3) : ENG_NO_STATE, &fresh);
	return s;
}

static void break_set(void *arg)
{
	fpset *s = filled_set(5000);
	fpset_break_for_test(s, *(int *)arg);
	fpset_is_valid(s);
}

/* The parent file cannot grow (ulimit -f 0): the first flush fails. */
static void lose_parents(void *arg)
{
	(void)arg;
	struct rlimit rl = {0, 0};
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &rl);
	unsetenv("CMC_PARENTS_IN_MEMORY");
	fpset *s = fpset_new(0);
	bool fresh;
	uint64_t i = 0;
	while (i < 100000 && fpset_put(s, nth(i), 0, &fresh) != ENG_NO_STATE)
		i++;
	if (i == 100000)
		_exit(3); /* no file at all: parents were in memory */
	fpset_is_valid(s);
	if (fpset_parent(s, 0) != ENG_NO_STATE)
		_exit(4);
	if (fpset_put(s, nth(i + 1), 0, &fresh) != ENG_NO_STATE)
		_exit(5);
	fpset_free(s);
	_exit(0);
}

static void check_fpset(void)
{
	fpset *s = fpset_new(0);
	ok(fpset_is_valid(s), "fpset: an empty set is valid");
	bool fresh;
	uint64_t bad = 0;
	for (uint64_t i = 0; i < 300000; i++) {
		fpset_put(s, nth(i % 200000), (uint32_t)(i / 2), &fresh);
		if ((i & (i - 1)) == 0 && !fpset_is_valid(s))
			bad++;
	}
	ok(bad == 0 && fpset_is_valid(s) && fpset_count(s) == 200000,
	   "fpset: valid after 300000 puts (200000 distinct, through growth)");
	fpset_free(s);
	setenv("CMC_PARENTS_IN_MEMORY", "1", 1);
	s = filled_set(70000);
	ok(fpset_is_valid(s), "fpset: valid with parents in memory, past one chunk");
	fpset_free(s);
	unsetenv("CMC_PARENTS_IN_MEMORY");
	static const char *const rule[] = {"fpset slots", "fpset slots: slot",
					   "fpset load", "fpset slots: slot",
					   "fpset slots: id"};
	static const char *const what[] = {"a slot lost", "a wrong tag", "over the load limit",
					   "an id never handed out", "a slot in the wrong subtable"};
	for (int how = 0; how < 5; how++) {
		char d[80];
		snprintf(d, sizeof d, "fpset broken (%s)", what[how]);
		aborts(break_set, &how, rule[how], d);
	}
	char err[512];
	int status = in_child(lose_parents, NULL, err, sizeof err);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "fpset: when the parent file fails, parents read back as none and puts stop (status %#x)",
	   status);
	if (status)
		printf("# stderr: %s\n", err);
}

/* ---- the queue ------------------------------------------------------------ */

static void fill_queue(eng_queue *q, uint32_t from, uint32_t n)
{
	unsigned char buf[300];
	for (uint32_t i = from; i < from + n; i++) {
		memset(buf, (int)i, sizeof buf);
		eng_queue_push(q, i, i / 10, buf, i % 300);
	}
}

static void break_queue(void *arg)
{
	eng_queue *q = eng_queue_new(false);
	fill_queue(q, 0, 100);
	eng_queue_break_for_test(q, *(int *)arg);
	eng_queue_is_valid(q);
}

static void check_queue(void)
{
	for (int lifo = 0; lifo < 2; lifo++) {
		eng_queue *q = eng_queue_new(lifo);
		ok(eng_queue_is_valid(q), "queue (%s): empty is valid", lifo ? "LIFO" : "FIFO");
		eng_qentry e;
		uint64_t bad = 0;
		/* enough bytes for several 1 MiB blocks, popped half way, refilled */
		for (int round = 0; round < 3; round++) {
			fill_queue(q, 0, 20000);
			if (!eng_queue_is_valid(q))
				bad++;
			for (int i = 0; i < 15000 && eng_queue_pop(q, &e); i++)
				if (e.len != e.id % 300 || (e.len && ((const unsigned char *)e.state)[0] != (unsigned char)e.id))
					bad++;
			if (!eng_queue_is_valid(q))
				bad++;
		}
		ok(bad == 0 && eng_queue_len(q) == 15000,
		   "queue (%s): valid after pushes and pops across blocks", lifo ? "LIFO" : "FIFO");
		while (eng_queue_pop(q, &e))
			;
		ok(eng_queue_is_valid(q) && eng_queue_len(q) == 0, "queue (%s): valid once drained",
		   lifo ? "LIFO" : "FIFO");
		eng_queue_free(q);
	}
	int how = 0;
	aborts(break_queue, &how, "queue count", "queue broken (count)");
	how = 1;
	aborts(break_queue, &how, "queue entries", "queue broken (an entry's trailing length)");
}

/* The queue spilling its middle blocks to a file (queue.c): mixed pushes
 * and pops against a reference deque, every entry's id, length and bytes
 * checked in the order each discipline owes. */
static uint64_t spill_run(bool lifo, unsigned *mismatch)
{
	eng_queue *q = eng_queue_new(lifo);
	eng_queue_spill_at(q, 1);
	size_t cap = 1u << 20, lo = 0, hi = 0; /* reference: ids in [lo, hi) of ref */
	uint32_t *ref = eng_xmalloc(cap * sizeof *ref);
	uint32_t next = 0, rng = 12345;
	unsigned char buf[600];
	eng_qentry e;
	for (int step = 0; step < 400000; step++) {
		rng = rng * 1103515245u + 12345u;
		/* pushes outnumber pops for the first half, then pops do */
		bool push = step < 200000 ? (rng >> 16) % 4 != 0 : (rng >> 16) % 4 == 0;
		if (push && hi < cap) {
			size_t len = (next * 7u) % 600;
			memset(buf, (int)(next & 0xff), len);
			eng_queue_push(q, next, next / 3, buf, len);
			ref[hi++] = next++;
		} else if (hi > lo) {
			uint32_t want = lifo ? ref[--hi] : ref[lo++];
			if (!eng_queue_pop(q, &e) || e.id != want || e.len != (want * 7u) % 600 ||
			    (e.len && ((const unsigned char *)e.state)[e.len - 1] != (unsigned char)(want & 0xff)))
				(*mismatch)++;
		}
		if (step % 50000 == 0 && !eng_queue_is_valid(q))
			(*mismatch)++;
	}
	while (hi > lo) {
		uint32_t want = lifo ? ref[--hi] : ref[lo++];
		if (!eng_queue_pop(q, &e) || e.id != want)
			(*mismatch)++;
	}
	if (eng_queue_pop(q, &e) || !eng_queue_is_valid(q))
		(*mismatch)++;
	uint64_t w = eng_queue_spill_writes(q);
	eng_queue_free(q);
	free(ref);
	return w;
}

static void check_queue_spill(void)
{
	for (int lifo = 0; lifo < 2; lifo++) {
		unsigned bad = 0;
		uint64_t w = spill_run(lifo, &bad);
		ok(bad == 0 && w >= 10, "queue (%s) spilling: every entry back in order (%llu blocks spilled)",
		   lifo ? "LIFO" : "FIFO", (unsigned long long)w);
	}
	/* no file can be made: the blocks stay in memory, nothing is lost */
	const char *old = getenv("TMPDIR");
	char *keep = old ? eng_xstrdup(old) : NULL;
	setenv("TMPDIR", "/nonexistent/cmc-spill", 1);
	unsigned bad = 0;
	uint64_t w = spill_run(false, &bad);
	ok(bad == 0 && w == 0, "queue spilling: no spill file, every entry kept in memory (%llu spilled)",
	   (unsigned long long)w);
	if (keep)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	free(keep);
}

/* ---- the store's fingerprint map ----------------------------------------- */

static void check_fpmap(void)
{
	store_fpmap *m = store_fpmap_new();
	ok(store_fpmap_is_valid(m), "fpmap: empty is valid");
	uint64_t bad = 0;
	for (uint32_t i = 0; i < 50000; i++)
		if (store_fpmap_put(m, nth(i % 30000), i) != i % 30000)
			bad++;
	ok(bad == 0 && store_fpmap_is_valid(m) && store_fpmap_count(m) == 30000,
	   "fpmap: valid after 50000 puts (30000 distinct, through growth)");
	store_fpmap_free(m);
}

/* ---- a whole search, one and two jobs ------------------------------------- */

static void check_search(void)
{
	const struct cmc_model *models[] = {&cmc_model_bench_counters_small, &cmc_model_twophase_bug};
	for (int m = 0; m < 2; m++)
		for (unsigned jobs = 1; jobs <= 2; jobs++) {
			eng_opts o;
			eng_opts_default(&o);
			o.jobs = jobs;
			o.max_states = 30000;
			o.check_deadlock = !models[m]->deadlock_ok;
			eng_frontend *fe = eng_model_frontend(models[m]);
			eng_search *s = eng_search_new(fe, &o);
			eng_search_run(s);
			const eng_stats *st = eng_search_stats(s);
			/* twophase_bug stops at its violation with slots of the
			 * pool not yet admitted: the pool's rule covers those */
			ok(eng_search_is_valid(s), "search (%s, %u job%s): valid after a run (%llu states%s)",
			   models[m]->name, jobs, jobs > 1 ? "s" : "", (unsigned long long)st->distinct,
			   st->violations ? ", stopped at a violation" : "");
			if (st->violations) {
				eng_search_run(s);
				ok(eng_search_is_valid(s), "... and after continuing");
			}
			eng_search_free(s);
			fe->ops->destroy(fe);
		}
}

int main(void)
{
	check_assert();
	check_fpset();
	check_queue();
	check_queue_spill();
	check_fpmap();
	check_search();
	return tap_done();
}
