/*
 * resume.c — what `cmc check --resume RUN` reads back: the states of an
 * interrupted breadth-first run and where its frontier starts.
 *
 * runs.expanded_below = E says every state with id < E has its transitions
 * stored; the writer commits only between expansions, so no state >= E has
 * any.  Every state discovered so far is stored (ids 0 .. n-1, dense), so
 * the frontier is E .. n-1: re-expanding them in order continues the
 * search exactly where it stopped, with the ids, edges and tree flags an
 * uninterrupted run would have produced.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

struct load {
	store_resume *r;
	size_t cap;
	bool gap;
};

static bool load_cb(void *ctx, uint32_t id, const struct store_rec *rec)
{
	struct load *l = ctx;
	store_resume *r = l->r;
	/* The engine takes parents and depths as given: a parent must be an
	 * earlier state and one level up, or the restored search would walk
	 * a loop (a damaged database). */
	if (id != r->n || (rec->parent != ENG_NO_STATE &&
			   (rec->parent >= id || rec->depth != r->depth[rec->parent] + 1)) ||
	    (rec->parent == ENG_NO_STATE && rec->depth != 1)) {
		l->gap = true;
		return false;
	}
	if (r->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		r->fp = eng_xrealloc(r->fp, l->cap * sizeof *r->fp);
		r->raw = eng_xrealloc(r->raw, l->cap * sizeof *r->raw);
		r->canon = eng_xrealloc(r->canon, l->cap * sizeof *r->canon);
		r->obs_flags = eng_xrealloc(r->obs_flags, l->cap * sizeof *r->obs_flags);
		r->parent = eng_xrealloc(r->parent, l->cap * sizeof *r->parent);
		r->depth = eng_xrealloc(r->depth, l->cap * sizeof *r->depth);
		r->state = eng_xrealloc(r->state, l->cap * sizeof *r->state);
		r->state_len = eng_xrealloc(r->state_len, l->cap * sizeof *r->state_len);
	}
	uint32_t i = r->n++;
	r->fp[i] = rec->fp;
	r->raw[i] = rec->raw_fp;
	r->canon[i] = rec->canon_fp;
	r->obs_flags[i] = rec->obs_flags;
	r->parent[i] = rec->parent;
	r->depth[i] = rec->depth;
	r->state[i] = rec->state ? eng_xmemdup(rec->state, rec->state_len ? rec->state_len : 1)
				 : NULL;
	r->state_len[i] = rec->state_len;
	if (rec->parent == ENG_NO_STATE)
		r->n_initial++;
	return true;
}

int store_resume_prepare(store *st, int64_t run, store_resume *r)
{
	memset(r, 0, sizeof *r);
	if (st->run) {
		snprintf(st->err, sizeof st->err, "%s: a run is being written", st->path);
		return -1;
	}
	store_run info;
	int rc = store_run_get(st, run, &info);
	if (rc)
		return rc;
	char why[160] = "";
	/* A run that ended on an error (a failed write) keeps, like one that
	 * was killed, only what its last commit holds: a prefix to go on from. */
	if (strcmp(info.status, "interrupted") != 0 && strcmp(info.status, "error") != 0)
		snprintf(why, sizeof why, "its status is '%s'%s, not interrupted", info.status,
			 info.writer_alive ? " (its writer still runs)" : "");
	else if (!info.order || strcmp(info.order, "bfs") != 0)
		snprintf(why, sizeof why, "it is a %s run; only breadth-first runs resume",
			 info.order ? info.order : "?");
	r->transitions = info.stored_transitions;
	r->elapsed_s = info.elapsed_s;
	store_run_clear(&info);
	if (why[0]) {
		snprintf(st->err, sizeof st->err, "%s: run %lld cannot be resumed: %s", st->path,
			 (long long)run, why);
		return 1;
	}
	sqlite3_stmt *s = store_q(st, Q_RESUME_INFO);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	rc = sqlite3_step(s);
	int64_t below = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	bool old_raw = rc == SQLITE_ROW && sqlite3_column_int64(s, 2) != 0;
	store_q_done(s);
	if (rc != SQLITE_ROW)
		return store_fail(st, "read run");
	if (old_raw) {
		snprintf(st->err, sizeof st->err, "%s: run %lld cannot be resumed: an older cmc "
			 "stored it, whose raw fingerprints hash the heap as one stream (this cmc "
			 "hashes it page by page: runs.raw_scheme), so no state it reaches would "
			 "match one stored; check the scenario again in a new run", st->path,
			 (long long)run);
		return 1;
	}
	s = store_q(st, Q_RESUME_COUNTS);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	if (sqlite3_step(s) == SQLITE_ROW)
		r->violations = (uint64_t)sqlite3_column_int64(s, 0);
	store_q_done(s);

	r->run = run;
	struct load l = {r, 0, false};
	if (store_each_state(st, run, load_cb, &l) < 0 || l.gap) {
		if (l.gap)
			snprintf(st->err, sizeof st->err,
				 "%s: run %lld: state %u: ids not dense, or a parent that is not an "
				 "earlier state one level up (a damaged database); cannot resume",
				 st->path, (long long)run, r->n);
		store_resume_clear(r);
		return -1;
	}
	r->expanded_below = below < 0 ? 0 : below > r->n ? r->n : (uint32_t)below;
	return 0;
}

void store_resume_clear(store_resume *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		free(r->state[i]);
	free(r->fp);
	free(r->raw);
	free(r->canon);
	free(r->obs_flags);
	free(r->parent);
	free(r->depth);
	free(r->state);
	free(r->state_len);
	memset(r, 0, sizeof *r);
}

int store_resume_search(const store_resume *r, eng_search *s, uint32_t max_depth, char *err,
			size_t errlen)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (eng_search_restore_state(s, r->fp[i], r->parent[i], r->depth[i], r->raw[i],
					     r->canon[i]) != i) {
			snprintf(err, errlen,
				 "run %lld: state %u could not be restored (out of memory, or two"
				 " stored states share a fingerprint)",
				 (long long)r->run, i);
			return -1;
		}
	for (uint32_t i = r->expanded_below; i < r->n; i++) {
		/* As the engine admits: a state at the depth bound or one that
		 * exited has no successors to explore. */
		if ((max_depth && r->depth[i] >= max_depth) ||
		    (r->obs_flags[i] & (ENG_OBS_EXITED | ENG_OBS_SIGNALED)))
			continue;
		if (r->state[i]) {
			eng_search_restore_frontier(s, i, r->depth[i], r->state[i], r->state_len[i]);
			continue;
		}
		size_t len;
		void *bytes = eng_search_state(s, i, &len); /* replays its trace */
		if (!bytes) {
			snprintf(err, errlen, "run %lld: state %u: its bytes were not stored and"
				 " replaying its trace failed", (long long)r->run, i);
			return -1;
		}
		eng_search_restore_frontier(s, i, r->depth[i], bytes, len);
		free(bytes);
	}
	eng_search_restore_stats(s, r->n_initial + r->transitions, r->transitions, r->violations,
				 r->elapsed_s);
	return 0;
}
