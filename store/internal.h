/*
 * internal.h — what the store's files share and nobody else sees: the
 * store handle, its statement cache (every query is a fixed SQL text in
 * one table, prepared once and reused with bind/step/reset), and the
 * encoding of fingerprints as 16-byte blobs (hi then lo, big-endian, so
 * SQL's hex(fp) equals eng_fp_hex()).
 */
#ifndef CMC_STORE_INTERNAL_H
#define CMC_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>

#include "store.h"

/* Every statement the store runs, by name; the texts are in stmt.c. */
enum store_q {
	Q_BEGIN, Q_COMMIT, Q_ROLLBACK,
	Q_RUN_INSERT, Q_RUN_ACTION, Q_RUN_PROGRESS, Q_RUN_END, Q_RUN_CONTINUE,
	Q_LABEL_INSERT, Q_LABEL_ID, Q_LABEL_TEXT,
	Q_BLOB_INSERT, Q_BLOB_GET, Q_PAGE_INSERT, Q_PAGE_GET,
	Q_SBLOCK_INSERT, Q_EBLOCK_INSERT, Q_LEVEL_PUT, Q_VIOL_AT,
	Q_VIOL_INSERT, Q_VSTEP_INSERT,
	Q_RUNS_ALL, Q_RUN_GET, Q_RUN_ORDER, Q_RUN_LATEST, Q_RUN_SOURCE, Q_RUN_COUNTS,
	Q_SBLOCK_AT, Q_SBLOCK_ALL, Q_EBLOCK_AT, Q_EBLOCK_ALL, Q_EBLOCK_NEXT_SEQ,
	Q_LEVELS, Q_ACTIONS_TAKEN,
	Q_VIOLS, Q_VIOL_GET, Q_VSTEPS, Q_NEVER_TAKEN,
	Q_RESUME_INFO, Q_RESUME_COUNTS,
	Q_PRED_INSERT, Q_PRED_AT, Q_PRED_ON,
	Q_EACH_STATE, Q_EACH_EDGES,
	Q_SROW_INSERT, Q_TROW_INSERT, Q_SROW_INSERT_N, Q_TROW_INSERT_N,
	Q__COUNT
};

/* A map entry from a stable label pointer to labels.id (write.c). */
struct store_label_ptr {
	const char *ptr;
	int64_t id;
};
#define STORE_LFRONT 64

/* A growable byte buffer. */
struct store_buf {
	uint8_t *p;
	size_t len, cap;
};
void store_buf_reserve(struct store_buf *b, size_t more);

/* One state as a block record holds it (record.c).  Pointers point into
 * the block (decoding) or the caller's memory (encoding). */
struct store_rec {
	uint32_t parent, label, depth;
	eng_fp fp;
	int status;
	bool has_obs;
	eng_fp raw_fp, canon_fp, raw_blob, canon_blob, reply_blob;
	eng_fp files_blob;      /* the declared state files' summary (zero: none) */
	unsigned obs_flags;
	int exit_status, term_signal;
	uint32_t alloc_checked, alloc_failed;
	const char *fault;
	size_t fault_len;
	const uint8_t *state;
	size_t state_len;
};
struct store_edge_raw {
	int64_t label;
	uint32_t dst;
	bool new_state;
	eng_fp reply;
};
void store_rec_put(struct store_buf *b, const struct store_rec *r);
/* The smallest state record: three one-byte varints, a fingerprint and
 * the flags byte.  A block's count above its length / this is damaged. */
#define STORE_REC_MIN 20
/* Decode one record at p; returns the next record's start, NULL if damaged. */
const uint8_t *store_rec_get(const uint8_t *p, const uint8_t *end, struct store_rec *r);
void store_erec_put(struct store_buf *b, uint32_t src, const struct store_edge_raw *e, size_t n);
const uint8_t *store_erec_head(const uint8_t *p, const uint8_t *end, uint32_t *src, uint32_t *n,
			       bool *reply);
const uint8_t *store_erec_edge(const uint8_t *p, const uint8_t *end, bool reply,
			       struct store_edge_raw *e);

/* A block is written when it holds this many bytes: just under what one
 * 64 KiB page holds locally (65501 bytes), so a block is one page. */
#define STORE_BLOCK_BYTES 65000

/* Rows a multi-row INSERT writes (rows.c). */
#define STORE_ROWS_BATCH 32
struct store_srow {
	uint32_t id, parent, label, depth;
	int status;
	bool has_obs;
	eng_fp fp, raw_fp, canon_fp;
};
struct store_trow {
	uint32_t src, label, dst;
};

/* A decoded state block kept for the next lookup (read.c). */
struct store_sblock {
	int64_t run;
	uint32_t first, count;     /* count 0: empty cache */
	uint8_t *data;
	size_t len;
	uint32_t *off;             /* record offsets, count entries */
};

/* A unit of work for the writer thread (flush.c); owns its buffer. */
enum { J_HANDOFF, J_COMMIT };
struct store_job {
	int kind;
	int64_t run;
	struct store_buf buf;      /* J_HANDOFF: entries (handoff.h) */
	/* J_COMMIT: what the search thread knows at the commit point */
	uint32_t expanded_below, next_id;
	eng_stats stats;
	bool have_stats;
};
#define STORE_QUEUE 64
#define STORE_WAKE 8
/* The search thread hands its entries over in buffers of this many bytes;
 * emptied buffers come back for reuse (a fresh one costs page faults here
 * and, once freed, an unmap whose TLB shootdown interrupts the writer). */
#define STORE_HANDOFF_BYTES (256u << 10)
#define STORE_SPARE 16

struct store_job *store_job_new(int kind, int64_t run);
int store_flush_start(store *st);
/* Hand a job to the writer (blocks while the queue is full); takes it. */
void store_flush_push(store *st, struct store_job *j);
/* Wait until every queued job has run. */
void store_flush_wait(store *st);
void store_flush_stop(store *st);
/* An empty buffer with room for STORE_HANDOFF_BYTES (a spare when there is
 * one). */
struct store_buf store_buf_take(store *st);
/* Mark the store failed with the database's error and stop the search
 * (either thread). */
void store_writer_fail(store *st, const char *what);
/* Step a write (or a one-row read) and reset it; false, and the store
 * failed, on an error. */
bool store_step(store *st, sqlite3_stmt *s, const char *what);
/* The eight figures of eng_stats, bound from parameter `first` on. */
void store_bind_stats(sqlite3_stmt *s, int first, const eng_stats *t);
/* The per-level and per-operation counters of run (the writer's, or
 * any thread's while no writer thread runs). */
bool store_write_counters(store *st, int64_t run);
void store_spares_free(store *st);

/*
 * Writer invariants: while `run` is non-zero a transaction is open.  The
 * search thread owns the fields up to `handoff`, the writer thread (handoff.c,
 * flush.c) those from sblk to nlvl while it runs; with no writer thread
 * running, one thread owns all.
 *
 * Search side: states arrive in id order, next_id is one past the last;
 * cur_src is the state whose transitions are arriving.  handoff holds
 * the entries (handoff.h) not yet handed over, in the order reported.
 *
 * Writer side: sblk holds the records of ids sblk_first .. sblk_first +
 * sblk_count - 1; w_src is the state whose edges gather in cur; every state
 * whose 'F' entry was applied has its edge record in eblk or the database.
 *
 * Commits happen only between two expansions (the search thread queues a
 * commit point only when cur_src changes, after the 'F' of the last one),
 * and the writer inserts both blocks before it commits, so a committed
 * database holds every state discovered so far and the complete edges of
 * every state expanded.
 */
struct store {
	sqlite3 *db;
	char *path;
	int lock_fd;               /* the file, for open.c's flock(2); -1: none.
				      Open until after sqlite3_close: closing any
				      fd of the file drops SQLite's POSIX locks */
	char err[512];
	store_opts o;
	sqlite3_stmt *q[Q__COUNT];
	bool q_busy[Q__COUNT];     /* store_q_own()'s, in use */

	int64_t run;               /* run being written, or 0 */
	bool failed;
	bool fault_hit;            /* store_sqlite_step() injected a failure */
	eng_search *stop;
	uint32_t cur_src;          /* ENG_NO_STATE before the first transition */
	uint32_t expanded_below;   /* states below this have their edges written */
	/* Expansions that are not a search's (store_hand_steps()) leave
	 * expanded_below alone; after store_frontier_replaced() (frozen) the
	 * search no longer visits every state in id order, so nothing moves it
	 * until the run ends. */
	bool hand, cur_hand, frozen;
	uint32_t next_id;
	bool dfs;
	uint64_t batch_states;
	double batch_start;
	eng_stats last;            /* latest progress from the engine */
	bool have_last;
	struct store_buf handoff;

	struct store_buf sblk, eblk;
	uint32_t sblk_first, sblk_count;
	uint32_t eblk_min, eblk_max, eblk_count;
	uint64_t eblk_edges;
	int64_t eblk_seq;
	uint32_t w_src;            /* ENG_NO_STATE: no expansion gathering */
	struct store_edge_raw *cur;
	size_t ncur, capcur;
	uint64_t *taken;           /* transitions per labels.id */
	size_t ntaken;
	uint64_t *lvl_count;       /* states per depth */
	uint32_t *lvl_first;
	size_t nlvl;

	/* Labels (write.c): every text seen, interned; stable label pointers
	 * to labels.id through a direct-mapped front, then a map (open
	 * addressing, lptr_n * 2 <= lptr_cap). */
	struct eng_labels *ltext;
	struct store_label_ptr lfront[STORE_LFRONT];
	struct store_label_ptr *lptr;
	size_t lptr_n, lptr_cap;
	uint64_t boundaries;
	eng_fp *blob_seen;         /* direct-mapped cache of written blob hashes */
	eng_fp *page_seen;         /* the same for pages (put_blob()) */
	struct store_buf pagelist; /* put_blob(): the page hashes of one blob */
	eng_fp *replies;           /* on_edges(): the replies' addresses */
	size_t nreplies;

	/* rows.c: rows_on: the run being written keeps rows (runs.sql_rows);
	 * rows not yet inserted, all of run rows_run (the writer thread's
	 * alone while it runs, like sblk) */
	bool rows_on;
	int64_t rows_run;
	struct store_srow srows[STORE_ROWS_BATCH];
	struct store_trow trows[STORE_ROWS_BATCH];
	unsigned nsrows, ntrows;

	struct store_sblock sc;    /* reader's block cache */

	/* pred.c: (dst, src) pairs of the edge blocks inserted since the last
	 * commit, one buffer per bucket of STORE_PRED_SPAN destination ids;
	 * the writer thread's alone while it runs.  pred_on: the run being
	 * written keeps the index (runs.pred_index). */
	struct store_buf *pred;
	size_t npred;
	bool pred_on;

	/* flush.c: the writer thread and its queue (guarded by mu) */
	pthread_t thr;
	bool thread_on;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_space;
	struct store_job *queue[STORE_QUEUE];
	unsigned qhead, qn;
	bool busy, quit;
	struct store_buf spare[STORE_SPARE];
	unsigned nspare;
};

#define STORE_BLOB_SEEN 4096
#define STORE_PAGE_SEEN 16384

/* Observations of at least STORE_PAGED_MIN kept bytes are stored as pages
 * of STORE_PAGE bytes, each once per distinct content (SCHEMA.md, blobs):
 * states whose raw windows or replies differ in a few pages share the
 * rest.  Smaller ones stay whole in blobs.data. */
#define STORE_PAGE 4096u
#define STORE_PAGED_MIN (64u << 10)

/* read.c: the record of one state (pointers into st->sc, valid until the
 * next lookup).  0, 1 when absent, -1 on error. */
int store_rec_lookup(store *st, int64_t run, uint32_t id, struct store_rec *r);
/* Call fn for every stored state of a run in id order; stops when fn
 * returns false.  -1 on error. */
int store_each_state(store *st, int64_t run,
		     bool (*fn)(void *ctx, uint32_t id, const struct store_rec *r), void *ctx);
/* The edges out of src (caller frees *e); 0, or -1. */
int store_edges_raw(store *st, int64_t run, uint32_t src, struct store_edge_raw **e, size_t *n);
/* Every edge record of a run in the order written. */
int store_each_edges(store *st, int64_t run,
		     bool (*fn)(void *ctx, uint32_t src, const struct store_edge_raw *e, size_t n),
		     void *ctx);
char *store_label_text(store *st, int64_t label);

sqlite3_stmt *store_q(store *st, enum store_q q);
/* Reset and clear bindings of a statement after use. */
void store_q_done(sqlite3_stmt *s);
sqlite3_stmt *store_q_own(store *st, enum store_q q);
void store_q_own_done(store *st, enum store_q q, sqlite3_stmt *s);
/* Record the database's error as store_error(), prefixed with what failed. */
int store_fail(store *st, const char *what);
/* space.c: runs.space of run, in the open transaction. */
int store__space_write(store *st, int64_t run, const char *space);
int store_exec_q(store *st, enum store_q q);
/*
 * sqlite3_step() for every statement that writes (inserts, updates,
 * COMMIT).  A test hook, in every build: CMC_STORE_FAULT=N (read once)
 * makes the Nth write of the process return SQLITE_IOERR without running,
 * as if the disk had failed; CMC_STORE_FAULT=N+ fails the Nth and every
 * later one (a disk that stays gone).  Unset, it costs one load and branch.
 */
int store_sqlite_step(store *st, sqlite3_stmt *s);
void store_stmts_finalize(store *st);

void store_fp_put(uint8_t out[16], eng_fp fp);
eng_fp store_fp_col(sqlite3_stmt *s, int col);
int store_bind_fp(sqlite3_stmt *s, int idx, eng_fp fp); /* zero binds NULL */
char *store_col_strdup(sqlite3_stmt *s, int col);        /* NULL stays NULL */

/* Schema: the DDL of each version, applied in order by migrate.c. */
extern const char *const store_migrations[STORE_SCHEMA_VERSION];
int store_migrate(store *st, int to_version);
#define STORE_APP_ID 0x636d6364 /* "cmcd" */

/* fpmap.c: fingerprint -> uint32 map for grouping states in memory. */
typedef struct store_fpmap store_fpmap;
store_fpmap *store_fpmap_new(void);
void store_fpmap_free(store_fpmap *m);
/* The value for fp, or ENG_NO_STATE. */
uint32_t store_fpmap_get(const store_fpmap *m, eng_fp fp);
/* Insert fp -> v unless present; returns the value now held. */
uint32_t store_fpmap_put(store_fpmap *m, eng_fp fp, uint32_t v);
size_t store_fpmap_count(const store_fpmap *m);
/* check.h: true, or abort naming the rule broken (fpmap.c's invariant). */
bool store_fpmap_is_valid(const store_fpmap *m);

/* A run's graph in memory (compare.c, diff.c): per state its canonical and
 * raw identity, and its outgoing transitions in generation order (CSR:
 * the edges of state i are off[i] .. off[i + 1] - 1). */
typedef struct store_graph {
	uint32_t n;
	eng_fp *canon, *raw;
	bool *initial;
	uint32_t *parent;
	uint64_t *off;
	uint32_t *dst, *esrc;      /* esrc: each edge's source */
	int64_t *label;            /* labels.id, comparable across runs */
} store_graph;
int store_graph_load(store *st, int64_t run, bool edges, store_graph *g);
void store_graph_clear(store_graph *g);

/* rows.c: states and transitions as plain rows (schema version 7).  Rows
 * gather in the store's pending lists and go in STORE_ROWS_BATCH at a
 * time; store_rows_flush() writes the rest (before every commit).  All
 * in the open transaction; false, and the store failed, on an error. */
bool store_rows_state(store *st, int64_t run, uint32_t id, const struct store_rec *r);
bool store_rows_edges(store *st, int64_t run, uint32_t src, const struct store_edge_raw *e,
		      size_t n);
bool store_rows_flush(store *st);
/* Rows for every run from its blocks (the upgrade to version 7). */
int store_rows_backfill(store *st);
/* check.h: true, or abort naming the rule broken (rows.c's invariant for
 * a run of `stored` states, as committed). */
bool store_rows_is_valid(store *st, int64_t run, uint32_t stored);

/* pred.c: the predecessor index (schema version 3). */
#define STORE_PRED_SPAN 4096
void store_pred_add_block(store *st, const uint8_t *p, size_t len);
bool store_pred_flush(store *st, int64_t run); /* false: the insert failed */
void store_pred_reset(store *st);
void store_pred_free(store *st);
/* The distinct sources of edges into id, ascending (caller frees).  1 when
 * the run has no index (older schema): scan instead. */
int store_pred_sources(store *st, int64_t run, uint32_t id, uint32_t **srcs, size_t *n);

/* Whether the process that wrote a 'running' run still runs. */
bool store_writer_alive(int64_t pid, int64_t start);
int64_t store_self_start(void);

#endif
