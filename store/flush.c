/*
 * flush.c — the background writer: buffers of hand-over entries (handoff.h)
 * and commit points go from the search thread into a short queue, and one
 * writer thread applies them in order (handoff.c builds and inserts the
 * blocks; here the per-level and per-operation counters, the run's
 * progress row, COMMIT and BEGIN).  The search thread only copies what the
 * engine reports; encoding, SQLite and the page writes run on the other
 * core.  The queue is bounded, so a writer that falls behind slows the
 * search down instead of growing memory.
 *
 * Process targets (store_opts.same_thread) write inline: they make a few
 * hundred states a second, their writes cost the search little, and a
 * writer thread, woken beside a search pinned with its targets to one
 * core, cost process mode about a tenth of its speed (the list example,
 * 1971 transitions: 1.0 s inline and without the store, 1.0-1.2 s with
 * the thread).
 *
 * The connection is shared: SQLite's serialized threading mode (checked at
 * start; without it jobs run inline) lets the search thread still insert
 * the rare label, observation or violation row.  Whatever the search
 * thread inserts lands in the transaction open at that moment, which is
 * never committed before rows queued earlier (jobs run in order).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "handoff.h"
#include "engine/util.h"

static void job_free(store *st, struct store_job *j)
{
	if (j->buf.p) {
		pthread_mutex_lock(&st->mu);
		if (st->nspare < STORE_SPARE && j->buf.cap >= STORE_HANDOFF_BYTES) {
			j->buf.len = 0;
			st->spare[st->nspare++] = j->buf;
			j->buf.p = NULL;
		}
		pthread_mutex_unlock(&st->mu);
		free(j->buf.p);
	}
	free(j);
}

void store_writer_fail(store *st, const char *what)
{
	pthread_mutex_lock(&st->mu);
	if (!st->failed) {
		store_fail(st, what);
		__atomic_store_n(&st->failed, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&st->mu);
	if (st->stop)
		eng_search_stop(st->stop);
}

bool store_step(store *st, sqlite3_stmt *s, const char *what)
{
	int rc = store_sqlite_step(st, s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_writer_fail(st, what); /* before the reset, which may clear errno */
		store_q_done(s);
		return false;
	}
	store_q_done(s);
	return true;
}

void store_bind_stats(sqlite3_stmt *s, int first, const eng_stats *t)
{
	sqlite3_bind_int64(s, first, (sqlite3_int64)t->distinct);
	sqlite3_bind_int64(s, first + 1, (sqlite3_int64)t->generated);
	sqlite3_bind_int64(s, first + 2, (sqlite3_int64)t->transitions);
	sqlite3_bind_int64(s, first + 3, t->depth);
	sqlite3_bind_int64(s, first + 4, (sqlite3_int64)t->violations);
	sqlite3_bind_int64(s, first + 5, (sqlite3_int64)t->raw_distinct);
	sqlite3_bind_int64(s, first + 6, (sqlite3_int64)t->canon_distinct);
	sqlite3_bind_double(s, first + 7, t->elapsed_s);
}

bool store_write_counters(store *st, int64_t run)
{
	sqlite3_stmt *s;
	for (size_t d = 0; d < st->nlvl; d++) {
		if (!st->lvl_count[d])
			continue;
		if (!(s = store_q(st, Q_LEVEL_PUT))) {
			store_writer_fail(st, "prepare");
			return false;
		}
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)d);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)st->lvl_count[d]);
		sqlite3_bind_int64(s, 4, st->lvl_first[d]);
		if (!store_step(st, s, "write levels"))
			return false;
	}
	for (size_t l = 0; l < st->ntaken; l++) {
		if (!st->taken[l])
			continue;
		if (!(s = store_q(st, Q_RUN_ACTION))) {
			store_writer_fail(st, "prepare");
			return false;
		}
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)l);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)st->taken[l]);
		if (!store_step(st, s, "write operation counts"))
			return false;
	}
	return true;
}

/* Runs on the writer thread (or inline).  Errors mark the store failed. */
static void run_job(store *st, struct store_job *j)
{
	sqlite3_stmt *s;
	switch (j->kind) {
	case J_HANDOFF:
		if (!store_handoff_apply(st, j->buf.p, j->buf.len) && !st->failed)
			store_writer_fail(st, "a damaged hand-over entry (a bug in cmc)");
		break;
	case J_COMMIT:
		if (!store_handoff_flush(st))
			return;
		if (!store_write_counters(st, j->run))
			return;
		s = st->q[Q_RUN_PROGRESS];
		sqlite3_bind_int64(s, 1, j->run);
		sqlite3_bind_int64(s, 2, j->expanded_below);
		if (j->have_stats)
			store_bind_stats(s, 3, &j->stats);
		sqlite3_bind_int64(s, 11, j->next_id);
		sqlite3_bind_int64(s, 12, (sqlite3_int64)store_handoff_transitions(st));
		if (!store_step(st, s, "record progress"))
			return;
		if (!store_pred_flush(st, j->run)) {
			store_writer_fail(st, "write the predecessor index");
			return;
		}
		if (!store_step(st, st->q[Q_COMMIT], "commit"))
			return;
		store_step(st, st->q[Q_BEGIN], "begin");
		break;
	}
}

static void *writer_main(void *arg)
{
	store *st = arg;
	pthread_setname_np(pthread_self(), "cmc-store"); /* as top -H shows it */
	pthread_mutex_lock(&st->mu);
	for (;;) {
		while (!st->qn && !st->quit)
			pthread_cond_wait(&st->cv_work, &st->mu);
		if (!st->qn)
			break;
		struct store_job *j = st->queue[st->qhead];
		st->qhead = (st->qhead + 1) % STORE_QUEUE;
		st->qn--;
		st->busy = true;
		pthread_cond_broadcast(&st->cv_space);
		pthread_mutex_unlock(&st->mu);
		if (!__atomic_load_n(&st->failed, __ATOMIC_ACQUIRE))
			run_job(st, j);
		job_free(st, j);
		pthread_mutex_lock(&st->mu);
		st->busy = false;
		pthread_cond_broadcast(&st->cv_space);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

int store_flush_start(store *st)
{
	/* Prepare what the writer uses now, so the statement cache is not
	 * filled from two threads. */
	static const enum store_q used[] = {Q_SBLOCK_INSERT, Q_EBLOCK_INSERT, Q_LEVEL_PUT,
					    Q_RUN_ACTION, Q_RUN_PROGRESS, Q_COMMIT, Q_BEGIN,
					    Q_PRED_INSERT, Q_BLOB_INSERT, Q_PAGE_INSERT,
					    Q_SROW_INSERT, Q_TROW_INSERT, Q_SROW_INSERT_N,
					    Q_TROW_INSERT_N};
	for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
		if (!store_q(st, used[i]))
			return -1;
	if (st->thread_on || sqlite3_threadsafe() != 1 || st->o.same_thread)
		return 0; /* inline */
	st->quit = false;
	if (pthread_create(&st->thr, NULL, writer_main, st) != 0)
		return 0; /* inline */
	st->thread_on = true;
	return 0;
}

void store_flush_push(store *st, struct store_job *j)
{
	if (!st->thread_on) {
		if (!__atomic_load_n(&st->failed, __ATOMIC_ACQUIRE))
			run_job(st, j);
		job_free(st, j);
		return;
	}
	pthread_mutex_lock(&st->mu);
	while (st->qn == STORE_QUEUE)
		pthread_cond_wait(&st->cv_space, &st->mu);
	st->queue[(st->qhead + st->qn) % STORE_QUEUE] = j;
	st->qn++;
	/* A wake-up costs a futex call here and a reschedule there: the writer
	 * is woken for a handful of blocks at a time, or for a commit point. */
	if (st->qn >= STORE_WAKE || j->kind == J_COMMIT)
		pthread_cond_signal(&st->cv_work);
	pthread_mutex_unlock(&st->mu);
}

void store_flush_wait(store *st)
{
	if (!st->thread_on)
		return;
	pthread_mutex_lock(&st->mu);
	if (st->qn)
		pthread_cond_signal(&st->cv_work);
	while (st->qn || st->busy)
		pthread_cond_wait(&st->cv_space, &st->mu);
	pthread_mutex_unlock(&st->mu);
}

void store_flush_stop(store *st)
{
	if (!st->thread_on)
		return;
	pthread_mutex_lock(&st->mu);
	st->quit = true;
	pthread_cond_signal(&st->cv_work);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thr, NULL);
	st->thread_on = false;
}

struct store_buf store_buf_take(store *st)
{
	struct store_buf b = {0};
	pthread_mutex_lock(&st->mu);
	if (st->nspare)
		b = st->spare[--st->nspare];
	pthread_mutex_unlock(&st->mu);
	store_buf_reserve(&b, STORE_HANDOFF_BYTES);
	return b;
}

void store_spares_free(store *st)
{
	while (st->nspare)
		free(st->spare[--st->nspare].p);
}

struct store_job *store_job_new(int kind, int64_t run)
{
	struct store_job *j = eng_xcalloc(1, sizeof *j);
	j->kind = kind;
	j->run = run;
	return j;
}
