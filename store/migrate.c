/*
 * migrate.c — bringing a database to the schema this cmc writes: an empty
 * file gets every migration, an older cmc database the missing ones, each
 * run inside one transaction so a failure leaves the file as it was.  A
 * newer schema, a foreign SQLite database or a file that is not SQLite at
 * all is refused before anything is written.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int pragma_int(store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(s);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Classify the file.  Returns its schema version (0: empty database), or
 * -1 with st->err set when it must not be touched.
 */
static int64_t schema_version(store *st)
{
	int64_t app, ver, tables;
	if (pragma_int(st, "PRAGMA application_id", &app) < 0 ||
	    pragma_int(st, "PRAGMA user_version", &ver) < 0 ||
	    pragma_int(st, "SELECT count(*) FROM sqlite_master", &tables) < 0) {
		int code = sqlite3_errcode(st->db);
		snprintf(st->err, sizeof st->err, "%s: %s", st->path,
			 code == SQLITE_NOTADB || code == SQLITE_CORRUPT
				 ? "not a cmc database (not an SQLite file, or corrupt)"
				 : sqlite3_errmsg(st->db));
		return -1;
	}
	if ((app != 0 && app != STORE_APP_ID) || (app == 0 && tables > 0)) {
		snprintf(st->err, sizeof st->err,
			 "%s: not a cmc database (an SQLite file of another program)", st->path);
		return -1;
	}
	if (ver > STORE_SCHEMA_VERSION) {
		snprintf(st->err, sizeof st->err,
			 "%s: written by a newer cmc (schema version %lld; this cmc "
			 "reads up to %d); upgrade cmc or use another --db",
			 st->path, (long long)ver, STORE_SCHEMA_VERSION);
		return -1;
	}
	return ver;
}

int store_migrate(store *st, int to)
{
	int64_t ver = schema_version(st);
	if (ver < 0)
		return -1;
	if (ver >= to)
		return 0;
	if (st->o.readonly && ver == 0) {
		snprintf(st->err, sizeof st->err, "%s: an empty database: no run stored yet (run "
			 "`cmc check --db FILE` first)", st->path);
		return -1;
	}
	/* A reader upgrades too when it could open the file read-write
	 * (open.c), so that `cmc runs` on an older file shows it whole. */
	if (st->o.readonly && sqlite3_db_readonly(st->db, "main") != 0) {
		snprintf(st->err, sizeof st->err,
			 "%s: schema version %lld needs upgrading to %d, which needs write access",
			 st->path, (long long)ver, to);
		return -1;
	}
	char *msg = NULL;
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	/* Re-read under the write lock: another writer may have migrated. */
	ver = schema_version(st);
	if (ver < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	for (int64_t v = ver; v < to; v++)
		if (sqlite3_exec(st->db, store_migrations[v], NULL, NULL, &msg) != SQLITE_OK)
			goto fail_rollback;
	/* Version 7's rows of the runs stored before, decoded from their
	 * blocks in the same transaction: a damaged block leaves the file as
	 * it was, and says which run. */
	if (ver > 0 && ver < 7 && to >= 7 && store_rows_backfill(st) < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		char why[sizeof st->err];
		memcpy(why, st->err, sizeof why);
		snprintf(st->err, sizeof st->err, "cannot upgrade to schema version 7 (states and "
			 "transitions as rows): %.400s", why);
		return -1;
	}
	/* PRAGMA takes no parameters; the values are our own constants. */
	char pragma[96];
	snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 STORE_APP_ID, to);
	if (sqlite3_exec(st->db, pragma, NULL, NULL, &msg) != SQLITE_OK)
		goto fail_rollback;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto fail_rollback;
	return 0;
fail_rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
fail:
	snprintf(st->err, sizeof st->err, "%s: cannot set up the schema: %s", st->path,
		 msg ? msg : sqlite3_errmsg(st->db));
	sqlite3_free(msg);
	return -1;
}
