/*
 * schema.c — the database schema, as the list of migrations that build it.
 * store_migrations[v - 1] takes a database from version v - 1 to v (PRAGMA
 * user_version).  Never edit a released entry: append a new one.  The
 * tables, the block encoding and the views are documented in
 * store/SCHEMA.md, which must follow.
 */
#include "internal.h"

const char *const store_migrations[STORE_SCHEMA_VERSION] = {
	/* 1: runs, states and transitions in blocks, observations, violations. */
	"CREATE TABLE runs("
	" id INTEGER PRIMARY KEY,"
	" kind TEXT NOT NULL,"
	" name TEXT NOT NULL,"
	" source_path TEXT,"
	" source_text TEXT,"
	" options TEXT,"
	" search_order TEXT NOT NULL DEFAULT 'bfs',"
	" version TEXT NOT NULL,"
	" started REAL NOT NULL,"
	" ended REAL,"
	" status TEXT NOT NULL CHECK(status IN"
	"  ('running','complete','interrupted','violation','error')),"
	" writer_pid INTEGER,"
	" writer_start INTEGER,"
	" resumed_from INTEGER,"
	" expanded_below INTEGER NOT NULL DEFAULT 0,"
	" distinct_states INTEGER, generated INTEGER, transitions INTEGER,"
	" depth INTEGER, violations INTEGER,"
	" raw_distinct INTEGER, canon_distinct INTEGER,"
	" elapsed_s REAL, complete INTEGER, bounded INTEGER,"
	" stored_states INTEGER NOT NULL DEFAULT 0,"
	" stored_transitions INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE labels(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);"
	"CREATE TABLE run_actions(run INTEGER NOT NULL, label INTEGER NOT NULL,"
	" PRIMARY KEY(run, label)) WITHOUT ROWID;"
	"CREATE TABLE blobs(hash BLOB PRIMARY KEY, full_len INTEGER NOT NULL,"
	" data BLOB NOT NULL);"
	"CREATE TABLE state_blocks(id INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
	" first INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);"
	/* the indexes cover the counts: summing them reads no block */
	"CREATE INDEX state_blocks_idx ON state_blocks(run, first, count);"
	"CREATE TABLE edge_blocks(id INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
	" seq INTEGER NOT NULL, min_src INTEGER NOT NULL, max_src INTEGER NOT NULL,"
	" count INTEGER NOT NULL, edges INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE INDEX edge_blocks_idx ON edge_blocks(run, seq, edges);"
	"CREATE INDEX edge_blocks_src_idx ON edge_blocks(run, min_src, max_src);"
	"CREATE TABLE levels(run INTEGER NOT NULL, depth INTEGER NOT NULL,"
	" states INTEGER NOT NULL, first_id INTEGER NOT NULL,"
	" PRIMARY KEY(run, depth)) WITHOUT ROWID;"
	"CREATE TABLE violations(id INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
	" property TEXT NOT NULL, message TEXT, state INTEGER, init_fp BLOB);"
	"CREATE INDEX violations_run_idx ON violations(run, state);"
	"CREATE TABLE violation_steps(violation INTEGER NOT NULL, step INTEGER NOT NULL,"
	" label INTEGER NOT NULL, fp BLOB, PRIMARY KEY(violation, step)) WITHOUT ROWID;",

	/* 2: how often each operation was taken, and the everyday views. */
	"ALTER TABLE run_actions ADD COLUMN taken INTEGER NOT NULL DEFAULT 0;"
	"CREATE VIEW states_by_depth AS"
	" SELECT run, depth, states, first_id FROM levels;"
	"CREATE VIEW violations_with_traces AS"
	" SELECT v.run, v.id AS violation, v.property, v.message, v.state,"
	"  (SELECT count(*) FROM violation_steps s WHERE s.violation = v.id) AS steps,"
	"  (SELECT group_concat(text, ' ; ') FROM"
	"    (SELECT l.text AS text FROM violation_steps s JOIN labels l ON l.id = s.label"
	"     WHERE s.violation = v.id ORDER BY s.step)) AS trace"
	" FROM violations v;"
	"CREATE VIEW operations_taken AS"
	" SELECT a.run, l.text AS operation, a.taken FROM run_actions a"
	" JOIN labels l ON l.id = a.label;"
	"CREATE VIEW operations_never_taken AS"
	" SELECT run, operation FROM operations_taken WHERE taken = 0;"
	"CREATE VIEW run_list AS"
	" SELECT id AS run, name, kind, status, distinct_states, transitions, depth,"
	"  violations, stored_states, stored_transitions,"
	"  datetime(started, 'unixepoch') AS started FROM runs;",

	/* 3: the predecessor index (pred.c); runs written before keep 0 and
	 * are scanned. */
	"ALTER TABLE runs ADD COLUMN pred_index INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE pred_blocks(id INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
	" bucket INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE INDEX pred_blocks_idx ON pred_blocks(run, bucket);",

	/* 4: the violating transition (source --label--> target): a violation
	 * belongs to the transition, also when its target was seen before.
	 * Rows written before keep NULLs. */
	"ALTER TABLE violations ADD COLUMN source INTEGER;"
	"ALTER TABLE violations ADD COLUMN label INTEGER;"
	"ALTER TABLE violations ADD COLUMN target INTEGER;"
	"DROP VIEW violations_with_traces;"
	"CREATE VIEW violations_with_traces AS"
	" SELECT v.run, v.id AS violation, v.property, v.message, v.state,"
	"  (SELECT count(*) FROM violation_steps s WHERE s.violation = v.id) AS steps,"
	"  (SELECT group_concat(text, ' ; ') FROM"
	"    (SELECT l.text AS text FROM violation_steps s JOIN labels l ON l.id = s.label"
	"     WHERE s.violation = v.id ORDER BY s.step)) AS trace,"
	"  v.source, (SELECT text FROM labels WHERE id = v.label) AS label, v.target"
	" FROM violations v;",

	/* 5: large observations in content-addressed pages (write.c,
	 * put_blob()): a blob with `pages` holds the list of its pages'
	 * hashes and no data of its own.  Rows written before keep NULL. */
	"ALTER TABLE blobs ADD COLUMN pages BLOB;"
	"CREATE TABLE pages(hash BLOB PRIMARY KEY,"
	" data BLOB NOT NULL);",

	/* 6: what decides the run's state space, for --resume (space.c).
	 * Runs written before keep NULL: not checked. */
	"ALTER TABLE runs ADD COLUMN space TEXT;",

	/* 7: every state and transition as a plain row (rows.c), and the
	 * views that read them with label texts, hex fingerprints and each
	 * state's status; runs.sql_rows 0 for a run that writes none
	 * (store_opts.no_rows).  Runs written before get their rows from
	 * their blocks as the file is upgraded (store_rows_backfill()). */
	"ALTER TABLE runs ADD COLUMN sql_rows INTEGER NOT NULL DEFAULT 1;"
	"CREATE TABLE state_rows(run INTEGER NOT NULL, id INTEGER NOT NULL,"
	" parent INTEGER, label INTEGER, depth INTEGER NOT NULL, status INTEGER NOT NULL,"
	" fp BLOB NOT NULL, raw_fp BLOB, canon_fp BLOB,"
	" PRIMARY KEY(run, id)) WITHOUT ROWID;"
	"CREATE TABLE transition_rows(run INTEGER NOT NULL, source INTEGER NOT NULL,"
	" label INTEGER NOT NULL, target INTEGER NOT NULL,"
	" PRIMARY KEY(run, source, label, target)) WITHOUT ROWID;"
	"CREATE VIEW states AS"
	" SELECT s.run, s.id, s.depth, s.parent,"
	"  (SELECT text FROM labels WHERE id = s.label) AS label,"
	"  lower(hex(s.fp)) AS fp,"
	"  nullif(lower(hex(s.raw_fp)), '') AS raw_fp,"
	"  nullif(lower(hex(s.canon_fp)), '') AS canon_fp,"
	"  CASE WHEN s.status = 1 THEN 'violation' WHEN s.status = 2 THEN 'fault'"
	"   WHEN EXISTS(SELECT 1 FROM violations v"
	"         WHERE v.run = s.run AND v.state = s.id) THEN 'violation'"
	"   WHEN s.id >= (SELECT expanded_below FROM runs WHERE id = s.run)"
	"    AND NOT EXISTS(SELECT 1 FROM transition_rows t"
	"         WHERE t.run = s.run AND t.source = s.id) THEN 'frontier'"
	"   ELSE 'ok' END AS status"
	" FROM state_rows s;"
	"CREATE VIEW transitions AS"
	" SELECT t.run, t.source, t.target, l.text AS label"
	" FROM transition_rows t JOIN labels l ON l.id = t.label;",

	/* 8: what a process run's raw fingerprints hash.  From this schema
	 * on, the heap window through its page hashes (engine/proc/pages.h:
	 * 2); process runs written before hashed it as one stream (1), so
	 * their fingerprints match no state this cmc computes and --resume
	 * refuses them (resume.c). */
	("ALTER TABLE runs ADD COLUMN raw_scheme INTEGER NOT NULL DEFAULT 2;"
	 "UPDATE runs SET raw_scheme = 1 WHERE kind = 'process';"),

	/* 9: run_list says 'bounded' for a run whose status column says
	 * 'complete' but a depth or state bound cut short (runs.bounded), as
	 * cmc runs and the workbench do (read.c); the column keeps its CHECK. */
	"DROP VIEW run_list;"
	"CREATE VIEW run_list AS"
	" SELECT id AS run, name, kind,"
	"  CASE WHEN status = 'complete' AND bounded THEN 'bounded' ELSE status END AS status,"
	"  distinct_states, transitions, depth,"
	"  violations, stored_states, stored_transitions,"
	"  datetime(started, 'unixepoch') AS started FROM runs;",
};
