/*
 * space.c — runs.space: what decides a run's state space, as the command
 * that wrote it resolved it (bounds, hash mode, overrides, a hash of the
 * scenario or model text; see tui/cli/checkstore.c), so that --resume can
 * refuse to continue a run under other settings.  Opaque text here.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "engine/util.h"

int store__space_write(store *st, int64_t run, const char *space)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "UPDATE runs SET space = ?2 WHERE id = ?1", -1, &s, NULL) !=
	    SQLITE_OK)
		return store_fail(st, "record the run's options");
	sqlite3_bind_int64(s, 1, run);
	if (space)
		sqlite3_bind_text(s, 2, space, -1, SQLITE_STATIC);
	int rc = store_sqlite_step(st, s);
	int ret = rc == SQLITE_DONE ? 0 : store_fail(st, "record the run's options");
	sqlite3_finalize(s);
	return ret;
}

int store_run_set_space(store *st, int64_t run, const char *space)
{
	if (st->run) {
		snprintf(st->err, sizeof st->err, "%s: a run is being written", st->path);
		return -1;
	}
	return store__space_write(st, run, space);
}

char *store_run_space(store *st, int64_t run)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "SELECT space FROM runs WHERE id = ?1", -1, &s, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(s, 1, run);
	char *r = NULL;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_TEXT)
		r = eng_xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return r;
}
