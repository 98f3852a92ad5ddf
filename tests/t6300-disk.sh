#!/bin/sh
# t6300-disk.sh — the store under a full disk and a read-only database:
# clear errors, exit 2, earlier runs intact.  Needs root to mount small
# tmpfs file systems; skipped (saying so) otherwise.
. "$(dirname "$0")/test-lib.sh"

mkdir full ro
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=3M cmc-t6300 full 2>/dev/null; then
	skip "full disk and read-only database" "needs root to mount a small tmpfs"
	done_testing
	exit
fi
trap 'umount "$T/full" "$T/ro" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# ---- full disk: a 3 MiB file system; diehard (16 states) fits, a 300000-
# state run does not.
"$CMC" check --db full/x.db diehard >/dev/null 2>&1
is "full disk: a small run is stored first" "$?" 0
"$CMC" check --db full/x.db --max-states 300000 bench-counters-small >out 2>err
is "full disk: the big run ends with exit 2" "$?" 2
ok "full disk: the error names the database and the cause" grep -q "full/x.db.*disk full\|full/x.db.*database or disk is full" err
"$CMC" runs --db full/x.db --json >runs.json 2>runs.err
is "full disk: the database still opens" "$?" 0
ok "full disk: the first run is intact (complete, 16 states)" \
	grep -q '"id": 1, "status": "complete", "kind": "model", "name": "diehard",.*"distinct": 16,' runs.json
not_ok "full disk: the failed run is not left 'running'" grep -q '"id": 2, "status": "running"' runs.json
ok "full disk: SQLite's integrity check passes" sh -c "sqlite3 full/x.db 'pragma integrity_check' | grep -qx ok"
# What the failed run reports as stored is what reads back.
s=$(sed -n 's/.*"id": 2,.*"stored_states": \([0-9]*\).*/\1/p' runs.json)
if [ "${s:-0}" -gt 0 ]; then
	ok "full disk: the failed run's $s stored states read back" "$CMC" show --db full/x.db --run 2 $((s - 1))
else
	not_ok "full disk: the failed run stored no state, and shows none" "$CMC" show --db full/x.db --run 2 0
fi

# ---- read-only: a file system remounted read-only under a stored run.
mount -t tmpfs -o size=8M cmc-t6300 ro
"$CMC" check --db ro/x.db diehard >/dev/null 2>&1
is "read-only: a run is stored first" "$?" 0
mount -o remount,ro ro
"$CMC" check --db ro/x.db diehard >out 2>err
is "read-only: cmc check ends with exit 2" "$?" 2
ok "read-only: the error names the database" grep -q "ro/x.db" err
mount -o remount,rw ro
"$CMC" runs --db ro/x.db --json >runs.json 2>&1
ok "read-only: afterwards the first run is intact" \
	grep -q '"id": 1, "status": "complete", "kind": "model", "name": "diehard",.*"distinct": 16,' runs.json
not_ok "read-only: and no second run was begun" grep -q '"id": 2' runs.json
done_testing
