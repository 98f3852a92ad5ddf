/*
 * open.c — the store handle's life: opening a database file (created when
 * missing unless read-only), setting SQLite up the way this workload wants
 * it (WAL, synchronous=NORMAL, a large page cache for the writer), bringing
 * the schema up to date, and closing.  Also the writer identity (pid and
 * process start time) by which a reader tells a live 'running' run from one
 * whose writer was killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "engine/labels.h"
#include "engine/util.h"

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot; -1
 * when the process is gone or a zombie (killed, not yet reaped). */
static int64_t proc_start(int64_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p || !p[1] || p[2] == 'Z' || p[2] == 'X')
		return -1;
	long long v = -1;
	/* after ") " come fields 3..; start time is field 22 */
	for (int field = 3; field <= 22 && p; field++) {
		p = strchr(p + 1, ' ');
		if (p && field == 22)
			v = strtoll(p + 1, NULL, 10);
	}
	return v;
}

int64_t store_self_start(void) { return proc_start(getpid()); }

bool store_writer_alive(int64_t pid, int64_t start)
{
	if (pid <= 0)
		return false;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return false;
	int64_t now = proc_start(pid);
	return now >= 0 && now == start;
}

static void set_defaults(store_opts *o)
{
	if (!o->raw_cap)
		o->raw_cap = 1u << 20;
	if (!o->state_cap)
		o->state_cap = 4096;
	if (!o->batch_rows)
		o->batch_rows = 50000;
	if (o->batch_seconds <= 0)
		o->batch_seconds = 0.5;
}

static int setup(store *st)
{
	/* Pragmas take no parameters; these texts are constants. */
	const char *common = "PRAGMA foreign_keys = OFF;";
	/* page_size only takes on a new, empty file: large pages hold a whole
	 * block of states (store/record.c) without overflow chains.  The WAL is
	 * checkpointed when it passes 1 GiB (16384 pages) and when a run ends
	 * (write.c), not every 64 MiB as by default: a checkpoint copies every
	 * page once more, and during the search that I/O (its interrupts and
	 * writeback on the search's core) cost bench-counters a tenth of its
	 * speed; after a checkpoint the file is cut back to 64 MiB. */
	const char *writer = "PRAGMA page_size = 65536;"
			     " PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
			     " PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;"
			     " PRAGMA wal_autocheckpoint = 16384;"
			     " PRAGMA journal_size_limit = 67108864;";
	char *msg = NULL;
	if (sqlite3_exec(st->db, common, NULL, NULL, &msg) != SQLITE_OK ||
	    (!st->o.readonly && sqlite3_exec(st->db, writer, NULL, NULL, &msg) != SQLITE_OK)) {
		snprintf(st->err, sizeof st->err, "%s: %s", st->path,
			 msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/*
 * Creating or upgrading the schema is one cmc's job at a time: two `cmc
 * check --db new.db` started together would both find an empty file and
 * race to set it up (SQLite answers one of them "database is locked").  A
 * flock(2) on the file, which does not interact with SQLite's own fcntl
 * locks, is held exclusively by a writer from before the file is
 * classified until its schema is current, and shared by a reader while it
 * classifies; the other waits (up to LOCK_WAIT_S), then finds the schema in
 * place.  Returns 0 (st->lock_fd set, or -1 where the file cannot be opened
 * or flock is not supported: SQLite's own answer stands), -1 with st->err.
 */
#define LOCK_WAIT_S 30
static int lock_setup(store *st, bool writer)
{
	/* an in-memory database (and SQLite's URI names) is no file: no lock,
	 * and no empty file of that name made in the working directory */
	if (!strcmp(st->path, ":memory:") || !strncmp(st->path, "file:", 5))
		return 0;
	int fd = open(st->path, writer ? O_RDWR | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return 0;
	for (int i = 0;; i++) {
		if (flock(fd, (writer ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			close(fd); /* no flock here (some network file systems) */
			return 0;
		}
		if (i == LOCK_WAIT_S * 20) {
			close(fd);
			snprintf(st->err, sizeof st->err, "%s: the database is being created or upgraded "
				 "by another cmc (still locked after %d s)", st->path, LOCK_WAIT_S);
			return -1;
		}
		usleep(50000);
	}
	st->lock_fd = fd;
	return 0;
}

store *store_open(const char *path, const store_opts *o, char *err, size_t errlen)
{
	store *st = eng_xcalloc(1, sizeof *st);
	st->path = eng_xstrdup(path);
	if (o)
		st->o = *o;
	set_defaults(&st->o);
	st->cur_src = ENG_NO_STATE;
	st->lock_fd = -1;
	st->ltext = eng_labels_new();
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv_work, NULL);
	pthread_cond_init(&st->cv_space, NULL);

	struct stat sb;
	bool exists = stat(path, &sb) == 0;
	if (st->o.readonly && !exists) {
		snprintf(st->err, sizeof st->err, "%s: no such database (run `cmc check` first)",
			 path);
		goto fail;
	}
	if (exists && !S_ISREG(sb.st_mode)) {
		snprintf(st->err, sizeof st->err, "%s: not a regular file", path);
		goto fail;
	}
	if (lock_setup(st, !st->o.readonly) < 0)
		goto fail;
	/* Readers still open read-write when they can, so that an older
	 * schema can be upgraded; a file they cannot write they read as is. */
	int flags = SQLITE_OPEN_READWRITE | (st->o.readonly ? 0 : SQLITE_OPEN_CREATE);
	int rc = sqlite3_open_v2(path, &st->db, flags, NULL);
	if (rc != SQLITE_OK && st->o.readonly) {
		sqlite3_close(st->db);
		st->db = NULL;
		rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY, NULL);
	}
	if (rc != SQLITE_OK) {
		snprintf(st->err, sizeof st->err, "%s: cannot open: %s", path,
			 st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 0);
	/* Before the first statement: another connection may hold a lock for
	 * a moment (a writer's commit, the last closer's checkpoint of the
	 * WAL), and without a busy handler that is an instant "database is
	 * locked" for the reads that classify the file. */
	sqlite3_busy_timeout(st->db, 5000);
	/* Classify before any pragma that could write (journal_mode). */
	if (store_migrate(st, 0) < 0 || setup(st) < 0 || store_migrate(st, STORE_SCHEMA_VERSION) < 0)
		goto fail;
	if (st->lock_fd >= 0)
		flock(st->lock_fd, LOCK_UN); /* the fd itself stays open (lock_fd) */
	return st;
fail:
	snprintf(err, errlen, "%s", st->err);
	store_close(st);
	return NULL;
}

void store_close(store *st)
{
	if (!st)
		return;
	/* A run left unfinished keeps only what its last commit point holds:
	 * rows queued since may describe a half-expanded state. */
	store_flush_stop(st);
	if (st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, st->run ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	store_stmts_finalize(st);
	if (st->db)
		sqlite3_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd); /* after SQLite let go of its locks */
	eng_labels_free(st->ltext);
	free(st->lptr);
	free(st->blob_seen);
	free(st->page_seen);
	free(st->pagelist.p);
	free(st->replies);
	store_pred_free(st);
	free(st->sblk.p);
	free(st->eblk.p);
	free(st->handoff.p);
	store_spares_free(st);
	free(st->cur);
	free(st->taken);
	free(st->lvl_count);
	free(st->lvl_first);
	free(st->sc.data);
	free(st->sc.off);
	free(st->path);
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->cv_work);
	pthread_cond_destroy(&st->cv_space);
	free(st);
}

const char *store_error(const store *st) { return st->err; }
const char *store_path(const store *st) { return st->path; }
bool store_failed(const store *st) { return st->failed; }
