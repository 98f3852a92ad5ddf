/*
 * write.c — the store as an engine listener: runs begun and ended, and every
 * state, transition, observation and violation of the run written as it is
 * reported.  States are encoded into state blocks as they are discovered,
 * each state's transitions into an edge record when its expansion ends
 * (record.c), and full blocks go to SQLite through reused prepared
 * statements inside transactions of store_opts.batch_rows states or
 * batch_seconds.  A transaction is committed only between two states'
 * expansions (see the invariant above struct store), so a SIGKILL loses at
 * most the last batch and leaves every committed transition's ends and
 * every committed state's parent in place.
 *
 * A write error (disk full) is kept in store_error(): the listener stops
 * writing and asks the search to stop; earlier commits are untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "engine/check.h"
#include "engine/labels.h"
#include "handoff.h"
#include "engine/util.h"

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool failed(store *st) { return __atomic_load_n(&st->failed, __ATOMIC_ACQUIRE); }

static sqlite3_stmt *wq(store *st, enum store_q q)
{
	sqlite3_stmt *s = store_q(st, q);
	if (!s)
		store_writer_fail(st, "prepare");
	return s;
}

/* ---- labels: interned, cached in memory ---------------------------------- */

/*
 * Texts are interned in st->ltext (engine/labels.h), so every label the
 * store has seen has one stable pointer, and a map from stable pointers
 * to labels.id answers the rest: the engine's own label pointers (stable
 * for its search, engine/cmc.h) and the store's copies.  The map is
 * emptied when a run begins or continues (a new search's pointers may
 * reuse a freed one's addresses); the database answers a label once per
 * run after that.
 */

/* labels.id of a text, from the database (inserting it when new). */
static int64_t label_db(store *st, const char *text)
{
	sqlite3_stmt *ins = wq(st, Q_LABEL_INSERT), *get = wq(st, Q_LABEL_ID);
	if (!ins || !get)
		return -1;
	sqlite3_bind_text(ins, 1, text, -1, SQLITE_STATIC);
	if (!store_step(st, ins, "insert label"))
		return -1;
	sqlite3_bind_text(get, 1, text, -1, SQLITE_STATIC);
	int64_t id = sqlite3_step(get) == SQLITE_ROW ? sqlite3_column_int64(get, 0) : -1;
	store_q_done(get);
	if (id < 0 || id > INT32_MAX) { /* handoff.h packs it in 31 bits */
		store_writer_fail(st, "look up label");
		return -1;
	}
	return id;
}

static inline uint64_t ptr_hash(const char *p) { return (uintptr_t)p * 0x9e3779b97f4a7c15ull; }

static void lptr_grow(store *st)
{
	size_t cap = st->lptr_cap ? st->lptr_cap * 2 : 64;
	struct store_label_ptr *t = eng_xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < st->lptr_cap; i++) {
		if (!st->lptr[i].ptr)
			continue;
		size_t j = ptr_hash(st->lptr[i].ptr) >> 32 & (cap - 1);
		while (t[j].ptr)
			j = (j + 1) & (cap - 1);
		t[j] = st->lptr[i];
	}
	free(st->lptr);
	st->lptr = t;
	st->lptr_cap = cap;
}

static int64_t label_id_map(store *st, const char *text, struct store_label_ptr *f);

/* labels.id of the text at a stable pointer; -1 on error.  The front
 * answers inline: this runs once per transition. */
static inline int64_t label_id_stable(store *st, const char *text)
{
	struct store_label_ptr *f = &st->lfront[(uintptr_t)text >> 4 & (STORE_LFRONT - 1)];
	return f->ptr == text ? f->id : label_id_map(st, text, f);
}

static int64_t label_id_map(store *st, const char *text, struct store_label_ptr *f)
{
	size_t mask = st->lptr_cap - 1, j = 0;
	if (st->lptr_cap)
		for (j = ptr_hash(text) >> 32 & mask; st->lptr[j].ptr; j = (j + 1) & mask)
			if (st->lptr[j].ptr == text) {
				*f = st->lptr[j];
				return f->id;
			}
	int64_t id = label_db(st, text);
	if (id < 0)
		return id;
	if ((st->lptr_n + 1) * 2 > st->lptr_cap) {
		lptr_grow(st);
		mask = st->lptr_cap - 1;
		for (j = ptr_hash(text) >> 32 & mask; st->lptr[j].ptr; j = (j + 1) & mask)
			;
	}
	st->lptr[j] = (struct store_label_ptr){text, id};
	st->lptr_n++;
	*f = st->lptr[j];
	return id;
}

/* labels.id of any text (NULL: the empty label); -1 on error. */
static int64_t label_id(store *st, const char *text)
{
	return label_id_stable(st, eng_labels_intern(st->ltext, text ? text : ""));
}

/* labels.id of a label the engine handed a listener (engine/cmc.h). */
static inline int64_t label_id_search(store *st, const char *text)
{
	return text ? label_id_stable(st, text) : label_id(st, text);
}

/* ---- observation blobs, content-addressed -------------------------------- */

/* The kept bytes of a large blob as pages, each handed to the writer
 * once per distinct content (a page the direct-mapped page_seen forgot
 * is handed again: INSERT OR IGNORE keeps it once), then the blob as
 * the list of its pages' hashes. */
static void put_paged(store *st, eng_fp h, const uint8_t *b, size_t len, size_t keep)
{
	if (!st->page_seen)
		st->page_seen = eng_xcalloc(STORE_PAGE_SEEN, sizeof *st->page_seen);
	size_t np = (keep + STORE_PAGE - 1) / STORE_PAGE;
	struct store_buf *l = &st->pagelist;
	l->len = 0;
	handoff_reserve(l, np * 16);
	for (size_t i = 0; i < np; i++) {
		size_t off = i * STORE_PAGE, n = keep - off < STORE_PAGE ? keep - off : STORE_PAGE;
		eng_fp ph = eng_fp_of(b + off, n);
		eng_fp *slot = &st->page_seen[ph.lo & (STORE_PAGE_SEEN - 1)];
		if (!eng_fp_eq(*slot, ph)) {
			handoff_page(&st->handoff, ph, b + off, n);
			*slot = ph;
		}
		store_fp_put(l->p + l->len, ph); /* as stored: big-endian */
		l->len += 16;
	}
	handoff_blob_paged(&st->handoff, h, len, keep, l->p, np);
}

/* Writes the bytes once per distinct content; returns their address (zero
 * for no bytes).  The address hashes the whole content; at most `cap`
 * bytes of it are kept, with the full length beside them: whole, or from
 * STORE_PAGED_MIN bytes on as pages shared with every other blob that
 * holds the same page. */
static eng_fp put_blob(store *st, const uint8_t *b, size_t len, size_t cap)
{
	eng_fp zero = {0, 0};
	if (!b)
		return zero;
	eng_fp h = eng_fp_of(b, len);
	if (!st->blob_seen)
		st->blob_seen = eng_xcalloc(STORE_BLOB_SEEN, sizeof *st->blob_seen);
	eng_fp *slot = &st->blob_seen[h.lo & (STORE_BLOB_SEEN - 1)];
	if (eng_fp_eq(*slot, h))
		return h;
	/* the writer inserts it (INSERT OR IGNORE: content seen in an
	 * earlier run, or evicted from blob_seen, is kept once) */
	size_t keep = len < cap ? len : cap;
	if (keep >= STORE_PAGED_MIN)
		put_paged(st, h, b, len, keep);
	else
		handoff_blob(&st->handoff, h, len, b, keep);
	*slot = h;
	return h;
}

/* ---- the hand-off buffer ------------------------------------------------- */

/* Hand the entries gathered to the writer thread (handoff.c). */
static void push_handoff(store *st)
{
	if (!st->handoff.len || failed(st))
		return;
	struct store_job *j = store_job_new(J_HANDOFF, st->run);
	j->buf = st->handoff;
	st->handoff = store_buf_take(st);
	store_flush_push(st, j);
}

static inline void handoff_check(store *st)
{
	if (st->handoff.len >= STORE_HANDOFF_BYTES)
		push_handoff(st);
}

/* Whether a search's expansions move runs.expanded_below: only in a
 * breadth-first search that visits every state in id order (see the
 * invariant above struct store and store_hand_steps()). */
static bool advances(const store *st) { return !st->dfs && !st->frozen; }

/* The state being expanded is done: the writer closes its edge record. */
static void finish_expansion(store *st)
{
	if (st->cur_src == ENG_NO_STATE)
		return;
	store_handoff_finish(&st->handoff);
	if (advances(st) && !st->cur_hand && st->cur_src + 1 > st->expanded_below)
		st->expanded_below = st->cur_src + 1;
	st->cur_src = ENG_NO_STATE;
}

/* Queue the commit point after the entries gathered: the writer inserts
 * its blocks and the counters as they are then.  Called only between
 * expansions. */
static void commit_batch(store *st)
{
	push_handoff(st);
	if (failed(st))
		return;
	struct store_job *j = store_job_new(J_COMMIT, st->run);
	j->expanded_below = st->expanded_below;
	j->next_id = st->next_id;
	j->stats = st->last;
	j->have_stats = st->have_last;
	store_flush_push(st, j);
	st->batch_states = 0;
	st->batch_start = eng_now();
}

/* ---- listener callbacks ------------------------------------------------- */

/* The search moves on to the transitions out of `from`. */
static void edges_begin(store *st, uint32_t from)
{
	finish_expansion(st);
	/* In a search, states between had no successors; a step by hand says
	 * nothing about them. */
	if (advances(st) && !st->hand && from > st->expanded_below)
		st->expanded_below = from;
	/* the clock is read every 64th expansion only */
	if (st->batch_states >= st->o.batch_rows ||
	    ((++st->boundaries & 63) == 0 && st->batch_states &&
	     eng_now() - st->batch_start >= st->o.batch_seconds))
		commit_batch(st);
	st->cur_src = from;
	st->cur_hand = st->hand;
}

/* The 'S' entry of a state with an observation, its new blobs first. */
static void handoff_state_observed(store *st, const eng_state_info *si, uint32_t label, bool keep)
{
	struct store_rec r = {
		.parent = si->parent,
		.label = label,
		.depth = si->depth,
		.fp = si->fp,
		.status = si->bad ? STORE_VIOLATION : STORE_OK,
	};
	const eng_obs *o = si->obs;
	r.has_obs = true;
	r.raw_fp = o->raw;
	r.canon_fp = o->canon;
	r.raw_blob = put_blob(st, o->raw_bytes, o->raw_len,
			      st->o.raw_cap == STORE_RAW_NONE ? 0 : st->o.raw_cap);
	r.canon_blob = put_blob(st, o->canon_rec, o->canon_len, SIZE_MAX);
	r.reply_blob = put_blob(st, o->reply, o->reply_len, SIZE_MAX);
	r.files_blob = put_blob(st, o->files_sum, o->files_len, SIZE_MAX);
	r.obs_flags = o->flags;
	r.exit_status = o->flags & ENG_OBS_EXITED ? o->exit_status : 0;
	r.term_signal = o->flags & ENG_OBS_SIGNALED ? o->term_signal : 0;
	if (o->flags & ENG_OBS_ALLOC) {
		r.alloc_checked = o->alloc_checked;
		r.alloc_failed = o->alloc_failed;
	}
	if (o->fault && *o->fault) {
		r.fault = o->fault;
		r.fault_len = strnlen(o->fault, 4096);
	}
	if (o->flags & (ENG_OBS_FAULT | ENG_OBS_SIGNALED))
		r.status = STORE_FAULT;
	if (keep) {
		r.state = si->state;
		r.state_len = si->state_len;
	}
	store_handoff_state_obs(&st->handoff, &r);
}

static void on_state(void *ctx, const eng_state_info *si)
{
	store *st = ctx;
	if (failed(st) || !st->run)
		return;
	if (si->id != st->next_id) {
		char what[96];
		snprintf(what, sizeof what, "state %u reported out of order (expected %u)", si->id,
			 st->next_id);
		store_writer_fail(st, what);
		return;
	}
	/* A state discovered by another expansion than the last: that one is
	 * over (the engine reports a state's edges before the states the next
	 * expansion finds), so a commit here holds no state without the
	 * transition that found it. */
	if (si->parent != ENG_NO_STATE && si->parent != st->cur_src) {
		edges_begin(st, si->parent);
		if (failed(st))
			return;
	}
	uint32_t label = 0;
	if (si->parent != ENG_NO_STATE) {
		int64_t l = label_id_search(st, si->label);
		if (l < 0)
			return;
		label = (uint32_t)l;
	}
	bool keep = si->state && si->state_len <= st->o.state_cap;
	if (si->obs)
		handoff_state_observed(st, si, label, keep);
	else /* a model's state: the entry directly */
		handoff_state_plain(&st->handoff, si->parent, label, si->depth, si->fp,
				    si->bad ? STORE_VIOLATION : STORE_OK, keep ? si->state : NULL,
				    keep ? si->state_len : 0);
	st->next_id++;
	st->batch_states++;
	handoff_check(st);
}

static void on_edges(void *ctx, uint32_t from, const eng_edge *e, size_t n)
{
	store *st = ctx;
	if (failed(st) || !st->run)
		return;
	if (from != st->cur_src) {
		edges_begin(st, from);
		if (failed(st))
			return;
	}
	bool obs = false;
	for (size_t i = 0; i < n && !obs; i++)
		obs = e[i].obs != NULL;
	/* replies first: a new one's 'B' entry goes before the 'E' naming it */
	if (obs && n > st->nreplies) {
		st->nreplies = n;
		st->replies = eng_xrealloc(st->replies, n * sizeof *st->replies);
	}
	for (size_t i = 0; obs && i < n; i++) {
		const eng_obs *o = e[i].obs;
		st->replies[i] = o ? put_blob(st, o->reply, o->reply_len, SIZE_MAX) : (eng_fp){0, 0};
	}
	handoff_reserve(&st->handoff, handoff_edges_size(n, obs));
	handoff_edges_head(&st->handoff, from, (uint32_t)n, obs);
	for (size_t i = 0; i < n; i++) {
		int64_t lid = label_id_search(st, e[i].label);
		if (lid < 0)
			return;
		handoff_edge(&st->handoff, (uint32_t)lid, e[i].to, e[i].new_state);
	}
	/* then their replies, as handoff.h lays an 'E' entry out */
	for (size_t i = 0; obs && i < n; i++)
		handoff_put(&st->handoff, &st->replies[i], sizeof st->replies[i]);
	handoff_check(st);
}

static void on_violation(void *ctx, const eng_violation *v)
{
	store *st = ctx;
	if (failed(st) || !st->run)
		return;
	/* The writer goes idle first, so the violation lands in the open
	 * transaction, which the writer commits only after the violating
	 * state's block (its entry is queued ahead). */
	push_handoff(st);
	store_flush_wait(st);
	sqlite3_stmt *s = wq(st, Q_VIOL_INSERT);
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, st->run);
	sqlite3_bind_text(s, 2, v->property ? v->property : "", -1, SQLITE_STATIC);
	if (v->message)
		sqlite3_bind_text(s, 3, v->message, -1, SQLITE_STATIC);
	if (v->state != ENG_NO_STATE)
		sqlite3_bind_int64(s, 4, v->state);
	if (v->trace)
		store_bind_fp(s, 5, v->trace->init_fp);
	if (v->from != ENG_NO_STATE && v->label) {
		int64_t lid = label_id(st, v->label);
		if (lid < 0)
			return;
		sqlite3_bind_int64(s, 6, v->from);
		sqlite3_bind_int64(s, 7, lid);
		if (v->to != ENG_NO_STATE)
			sqlite3_bind_int64(s, 8, v->to);
	}
	if (!store_step(st, s, "insert violation"))
		return;
	int64_t vid = sqlite3_last_insert_rowid(st->db);
	for (size_t i = 0; v->trace && i < v->trace->len; i++) {
		int64_t lid = label_id(st, v->trace->labels[i]);
		sqlite3_stmt *t = wq(st, Q_VSTEP_INSERT);
		if (lid < 0 || !t)
			return;
		sqlite3_bind_int64(t, 1, vid);
		sqlite3_bind_int64(t, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(t, 3, lid);
		if (v->trace->fps)
			store_bind_fp(t, 4, v->trace->fps[i]);
		if (!store_step(st, t, "insert violation trace"))
			return;
	}
}

static void on_progress(void *ctx, const eng_stats *t)
{
	store *st = ctx;
	st->last = *t;
	st->have_last = true;
}

void store_listener(store *st, eng_search *stop, eng_listener *out)
{
	st->stop = stop;
	*out = (eng_listener){
		.on_state = on_state,
		.on_edges = on_edges,
		.on_violation = on_violation,
		.on_progress = on_progress,
		.on_done = on_progress,
		.ctx = st,
	};
}

/* ---- runs --------------------------------------------------------------- */

static void reset_writer(store *st)
{
	__atomic_store_n(&st->failed, false, __ATOMIC_RELEASE);
	st->err[0] = 0;
	st->cur_src = ENG_NO_STATE;
	st->expanded_below = 0;
	st->hand = st->cur_hand = st->frozen = false;
	st->pred_on = false;
	st->rows_on = false;
	store_pred_reset(st);
	st->next_id = 0;
	memset(st->lfront, 0, sizeof st->lfront);
	if (st->lptr)
		memset(st->lptr, 0, st->lptr_cap * sizeof *st->lptr);
	st->lptr_n = 0;
	st->ncur = 0;
	st->batch_states = 0;
	st->batch_start = eng_now();
	st->have_last = false;
	st->handoff.len = 0;
	st->nsrows = st->ntrows = 0;
	st->w_src = ENG_NO_STATE;
	st->sblk.len = st->eblk.len = 0;
	st->sblk_first = st->sblk_count = 0;
	st->eblk_count = 0;
	st->eblk_edges = 0;
	st->eblk_seq = 0;
	if (st->taken)
		memset(st->taken, 0, st->ntaken * sizeof *st->taken);
	if (st->lvl_count) {
		memset(st->lvl_count, 0, st->nlvl * sizeof *st->lvl_count);
		for (size_t i = 0; i < st->nlvl; i++)
			st->lvl_first[i] = ENG_NO_STATE;
	}
}

int64_t store_run_begin(store *st, const store_run_info *in)
{
	if (st->o.readonly) {
		snprintf(st->err, sizeof st->err, "%s: opened read-only", st->path);
		return -1;
	}
	if (st->run && store_run_end(st, "interrupted", NULL) < 0)
		return -1;
	reset_writer(st);
	st->dfs = in->order && strcmp(in->order, "dfs") == 0;
	if (store_exec_q(st, Q_BEGIN) < 0)
		return -1;
	sqlite3_stmt *s = store_q(st, Q_RUN_INSERT);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, in->kind ? in->kind : "model", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, in->name ? in->name : "", -1, SQLITE_STATIC);
	if (in->source_path)
		sqlite3_bind_text(s, 3, in->source_path, -1, SQLITE_STATIC);
	if (in->source_text)
		sqlite3_bind_text(s, 4, in->source_text, -1, SQLITE_STATIC);
	if (in->options)
		sqlite3_bind_text(s, 5, in->options, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, st->dfs ? "dfs" : "bfs", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, CMC_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 8, wall_now());
	sqlite3_bind_int64(s, 9, getpid());
	sqlite3_bind_int64(s, 10, store_self_start());
	if (in->resumed_from)
		sqlite3_bind_int64(s, 11, in->resumed_from);
	sqlite3_bind_int(s, 12, !st->o.no_rows);
	int rc = store_sqlite_step(st, s);
	store_q_done(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, "insert run");
		goto fail;
	}
	st->run = sqlite3_last_insert_rowid(st->db);
	st->pred_on = true; /* Q_RUN_INSERT marks the run's pred_index */
	st->rows_on = !st->o.no_rows; /* and its sql_rows */
	if (in->space && store__space_write(st, st->run, in->space) < 0)
		goto fail;
	for (unsigned i = 0; i < in->n_actions; i++) {
		int64_t lid = label_id(st, in->actions[i]);
		sqlite3_stmt *a = store_q(st, Q_RUN_ACTION);
		if (lid < 0 || !a)
			goto fail;
		sqlite3_bind_int64(a, 1, st->run);
		sqlite3_bind_int64(a, 2, lid);
		sqlite3_bind_int64(a, 3, 0);
		if (!store_step(st, a, "insert run action"))
			goto fail;
	}
	/* The run row is visible as 'running' from here on. */
	if (store_exec_q(st, Q_COMMIT) < 0 || store_exec_q(st, Q_BEGIN) < 0 ||
	    store_flush_start(st) < 0)
		goto fail;
	return st->run;
fail:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->run = 0;
	return -1;
}

/* Reload what the writer keeps in memory for a run written before. */
static int reload_counters(store *st, int64_t run)
{
	store_run info;
	if (store_run_get(st, run, &info) != 0)
		return -1;
	st->next_id = (uint32_t)info.stored_states;
	st->sblk_first = st->next_id;
	store_run_clear(&info);
	sqlite3_stmt *s = store_q(st, Q_LEVELS);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint32_t d = (uint32_t)sqlite3_column_int64(s, 0);
		uint64_t n = (uint64_t)sqlite3_column_int64(s, 1);
		store_count_level(st, d, (uint32_t)sqlite3_column_int64(s, 2));
		st->lvl_count[d] = n;
	}
	store_q_done(s);
	s = store_q(st, Q_ACTIONS_TAKEN);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t l = sqlite3_column_int64(s, 0);
		if (l < 0 || l > UINT32_MAX)
			continue;
		store_count_taken(st, l);
		st->taken[l] = (uint64_t)sqlite3_column_int64(s, 1);
	}
	store_q_done(s);
	s = store_q(st, Q_EBLOCK_NEXT_SEQ);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	st->eblk_seq = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	store_q_done(s);
	s = store_q(st, Q_RESUME_INFO);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	st->expanded_below = sqlite3_step(s) == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(s, 0) : 0;
	store_q_done(s);
	/* a run begun before the index existed goes on without one, and one
	 * begun without rows goes on without them */
	s = store_q(st, Q_PRED_ON);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	bool row = sqlite3_step(s) == SQLITE_ROW;
	st->pred_on = row && sqlite3_column_int(s, 0);
	st->rows_on = row && sqlite3_column_int(s, 1);
	store_q_done(s);
	return 0;
}

int store_run_continue(store *st, int64_t run)
{
	if (st->run && store_run_end(st, "interrupted", NULL) < 0)
		return -1;
	reset_writer(st);
	if (reload_counters(st, run) < 0 || store_exec_q(st, Q_BEGIN) < 0)
		return -1;
	sqlite3_stmt *s = store_q(st, Q_RUN_CONTINUE);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, getpid());
	sqlite3_bind_int64(s, 3, store_self_start());
	int rc = store_sqlite_step(st, s);
	store_q_done(s);
	/* Set before the writer thread starts: it writes the run's rows. */
	st->run = run;
	if (rc != SQLITE_DONE || store_exec_q(st, Q_COMMIT) < 0 || store_exec_q(st, Q_BEGIN) < 0 ||
	    store_flush_start(st) < 0) {
		store_fail(st, "reopen run");
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		st->run = 0;
		return -1;
	}
	return 0;
}

int store_run_end(store *st, const char *status, const eng_stats *t)
{
	if (!st->run)
		return 0;
	if (t) {
		st->last = *t;
		st->have_last = true;
	}
	if (!failed(st)) {
		/* The engine stops between expansions: the last one is whole. */
		finish_expansion(st);
		push_handoff(st);
	}
	store_flush_stop(st); /* every queued entry is in; one thread from here */
	if (!failed(st))
		store_handoff_flush(st);
	bool was_failed = st->failed;
	char saved[sizeof st->err];
	memcpy(saved, st->err, sizeof saved);
	if (!st->failed && store_write_counters(st, st->run) && !store_pred_flush(st, st->run))
		store_writer_fail(st, "write the predecessor index");
	/* After a write error the open transaction may be gone; start afresh so
	 * the run row at least says how it ended. */
	if (st->failed && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_get_autocommit(st->db) && store_exec_q(st, Q_BEGIN) < 0)
		goto out;
	sqlite3_stmt *s = store_q(st, Q_RUN_END);
	if (!s)
		goto out;
	const eng_stats *f = st->have_last ? &st->last : NULL;
	sqlite3_bind_int64(s, 1, st->run);
	sqlite3_bind_text(s, 2, st->failed ? "error" : status, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, wall_now());
	/* After a failed write the figures committed last stand: the search
	 * side's expanded_below may count expansions whose edges were rolled
	 * back, and a resume would then never expand those states again. */
	if (!st->failed)
		sqlite3_bind_int64(s, 4, f && f->complete && !st->frozen ? st->next_id
									  : st->expanded_below);
	if (f) {
		store_bind_stats(s, 5, f);
		sqlite3_bind_int(s, 13, f->complete);
		sqlite3_bind_int(s, 14, f->bounded);
	}
	if (!st->failed) {
		sqlite3_bind_int64(s, 15, st->next_id);
		sqlite3_bind_int64(s, 16, (sqlite3_int64)store_handoff_transitions(st));
	} else {
		/* leave the committed figures */
		sqlite3_bind_null(s, 15);
		sqlite3_bind_null(s, 16);
	}
	int rc = store_sqlite_step(st, s);
	store_q_done(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, "end run");
		goto out;
	}
	if (store_exec_q(st, Q_COMMIT) < 0)
		goto out;
	CMC_ASSERT_EXPENSIVE(st->failed || !st->rows_on ||
			     store_rows_is_valid(st, st->run, st->next_id));
	/* The run's pages go into the database now (see setup() in open.c);
	 * passive: a reader holding an older snapshot is not waited for. */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	st->run = 0;
	if (st->failed) {
		if (was_failed)
			memcpy(st->err, saved, sizeof saved);
		return -1;
	}
	return 0;
out:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->run = 0;
	st->failed = true;
	if (was_failed)
		memcpy(st->err, saved, sizeof saved);
	return -1;
}

/* See store.h.  The expansion in progress is ended first so that every
 * edge record it wrote is readable and the commit falls between two
 * expansions, as the crash invariant wants. */
int store_sync(store *st)
{
	if (!st->run || failed(st))
		return failed(st) ? -1 : 0;
	finish_expansion(st);
	commit_batch(st);
	store_flush_wait(st);
	return failed(st) ? -1 : 0;
}

void store_hand_steps(store *st, bool on)
{
	if (st->run && !failed(st))
		finish_expansion(st); /* a hand step never joins a search's record */
	st->hand = on;
}

void store_frontier_replaced(store *st)
{
	if (st->run && !failed(st))
		finish_expansion(st);
	st->frozen = true;
}
