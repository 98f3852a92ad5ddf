#!/bin/sh
# t5410-crash.sh — `op LABEL crash` (issue 23, eXplode's question): the
# target is killed and started again on its files, with its unsynced
# writes kept (LABEL) or lost (LABEL (power loss)); the preload keeps the
# durable image (preload/durable.c), cmc reverts to it
# (engine/proc/durable.c).  The property tests/proc/committed.c judges the
# `check` op: every key a `put K` op committed earlier is listed.
#   - tests/proc/crashkv.c with its durability bug (no fsync before it
#     renames data.tmp over data.txt) loses key a after "put a, crash
#     (power loss), check", the shortest trace, under both executors; the
#     fixed store (fsync, rename, fsync of the directory) passes, with the
#     same states and fingerprints under both;
#   - Debian's sqlite3 on a database with INSERTs: after every crash the
#     database passes PRAGMA integrity_check and holds every committed
#     row, the counts stable over two runs and equal under both
#     executors; with PRAGMA synchronous=OFF (no fsync) the power loss
#     loses a row, so the check is not vacuous;
#   - sqlite3 in WAL mode keeps every row too, the same under both executors;
#   - the image is untrusted: a link in it is never followed, an image the
#     target broke makes the power loss a limit fault;
#   - bad crash lines: file:line, exit 2.
. "$CMC_TOP/tests/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers
fps() { sqlite3 "$1" 'SELECT fp FROM states ORDER BY fp'; }

kv_scenario() { # BINARY
	cat <<SCN
target $H/$1
op "put a" "PUT a 1\n" once
op "put b" "PUT b 1\n" once
op crash crash
op check "LIST\n"
state-file data.txt
plugin $H/committed.so
depth 4
SCN
}
kv_scenario crashkv-bug >bug.scn
kv_scenario crashkv >fixed.scn

# ---- the planted bug: found, with its shortest trace, under both executors -------
for e in replay fork; do
	"$CMC" check --exec $e --no-store --json bug.scn >bug-$e.json 2>bug-$e.err
	is "kv with the bug, --exec $e: a violation (exit 1)" "$?" 1
	is "kv with the bug, --exec $e: the property that failed" "$(first_violation bug-$e.json property)" committed
	is "kv with the bug, --exec $e: the shortest trace, through the power loss" \
		"$(first_violation bug-$e.json trace)" '"put a", "crash (power loss)", "check"'
	ok "kv with the bug, --exec $e: the message names the lost key" \
		grep -q 'key a, committed at step 1, is missing: check lists' bug-$e.json
done
is "kv with the bug: the same states under both executors" \
	"$(json_get bug-replay.json distinct)/$(json_get bug-replay.json generated)" \
	"$(json_get bug-fork.json distinct)/$(json_get bug-fork.json generated)"
"$CMC" check --exec replay --no-store bug.scn >bug.out 2>&1
ok "the text report shows the trace with both crash labels apart" \
	sh -c "grep -A4 '^violation: committed' bug.out | grep -q '^    2: crash (power loss)$'"

# ---- the fixed store: no violation, the same space under both executors ----------
for e in replay fork; do
	"$CMC" check --exec $e --db fixed-$e.db --json fixed.scn >fixed-$e.json 2>fixed-$e.err
	is "fixed kv, --exec $e: no violation (exit 0)" "$?" 0
	echo "# fixed kv, --exec $e: $(json_get fixed-$e.json distinct) distinct states, $(json_get fixed-$e.json generated) generated"
done
is "fixed kv: the same counts under both executors" \
	"$(json_get fixed-replay.json distinct)/$(json_get fixed-replay.json generated)" \
	"$(json_get fixed-fork.json distinct)/$(json_get fixed-fork.json generated)"
ok "fixed kv: the same fingerprints under both executors" \
	sh -c 'fps() { sqlite3 "$1" "SELECT fp FROM states ORDER BY fp"; }; fps fixed-replay.db >r.fps; fps fixed-fork.db >f.fps; test -s r.fps && cmp r.fps f.fps'
# Two workers (--jobs 2), each fork executor with a replay one for crashes.
"$CMC" check --jobs 2 --db fixed-j2.db --json fixed.scn >fixed-j2.json 2>fixed-j2.err
is "fixed kv, --jobs 2: no violation (exit 0)" "$?" 0
ok "fixed kv, --jobs 2: the same fingerprints" \
	sh -c 'sqlite3 fixed-j2.db "SELECT fp FROM states ORDER BY fp" | cmp - r.fps'

# O_SYNC writes are durable as they are made: no fsync needed.
kv_scenario "crashkv osync" >osync.scn
"$CMC" check --exec replay --no-store --json osync.scn >osync.json 2>osync.err
is "kv writing with O_SYNC instead of fsync: no violation (exit 0)" "$?" 0
is "... the states of the fixed store" "$(json_get osync.json distinct)/$(json_get osync.json generated)" \
	"$(json_get fixed-replay.json distinct)/$(json_get fixed-replay.json generated)"
kv_scenario "crashkv-bug osync" >osync-bug.scn
"$CMC" check --exec replay --no-store --json osync-bug.scn >osync-bug.json 2>osync-bug.err
is "... while the buggy store with O_SYNC is right too (exit 0): its writes need no fsync" "$?" 0
# A store exec'd in a subdirectory of its working directory finds the image
# above it (preload/durable.c walks up to it).
sed -e "s|^target .*|target /bin/sh -c \"mkdir -p sub \&\& cd sub \&\& exec $H/crashkv\"|" \
    -e 's|^state-file data.txt|state-file sub/data.txt|' fixed.scn >sub.scn
"$CMC" check --exec replay --no-store --json sub.scn >sub.json 2>sub.err
is "fixed kv working in a subdirectory: no violation (exit 0)" "$?" 0
ok "cmc show lists the durable image as a state dir" \
	sh -c "'$CMC' show --db fixed-replay.db 1 | grep -q '^                 .cmc-durable/sync/data.txt  '"

# ---- what each crash keeps: a store that never syncs ---------------------------
# tests/proc/filekv.c writes data.txt in place and never syncs: a process
# crash keeps "a=1" (the state after PUT a 1), a power loss takes the file
# back to what it was at the start: missing (the initial state's files).
cat >nosync.scn <<SCN
target $H/filekv
op "PUT a 1" "PUT a 1\n" once
op crash crash once
state-file data.txt
depth 2
SCN
"$CMC" check --exec replay --db nosync.db nosync.scn >nosync.out 2>&1
is "a store that never syncs: exit 0" "$?" 0
"$CMC" show --db nosync.db 1 >ns1.out
ok "after PUT a 1, a process crash keeps data.txt" \
	sh -c "grep -A8 '^successors' ns1.out | grep -Eq '^  crash -> state 1\$|^  crash -> state [0-9]+ \\(new\\)\$'"
lost=$(sed -n 's/^  crash (power loss) -> state \([0-9]*\).*/\1/p' ns1.out)
ok "after PUT a 1, a power loss leaves data.txt missing" \
	sh -c "'$CMC' show --db nosync.db '$lost' | grep -q '^state files      data.txt  missing\$'"

# ---- a target that does not start again: that crash's violation ----------------------
cat >restart.scn <<'SCN'
target /bin/sh -c "echo started; test -f flag && exit 3; : >flag; exec cat"
op x "x\n"
op c crash once
property reply c "started"
depth 2
SCN
for e in replay fork; do
	"$CMC" check --exec $e --no-store --json restart.scn >restart-$e.json 2>restart-$e.err
	is "a target that exits when started again, --exec $e: exit 1" "$?" 1
	is "... the crash is the transition that failed" "$(first_violation restart-$e.json trace)" '"c"'
	ok "... a start-up fault, saying it was started again" \
		grep -q '"property": "start", "message": "after c: started again: /bin/sh: target exited with status 3 during start-up' restart-$e.json
done

# ---- the image is the target's to write: never followed out --------------------------
# A link planted in the image is not followed: the file it stands for is
# emptied (as never synced), and what the link names is neither read nor
# written; an image made unusable is a limit fault of the power loss.
mkdir hseed
echo mine >hseed/victim
sum_before=$(cksum </etc/passwd)
cat >link.scn <<'SCN'
target /bin/sh -c "rm -f .cmc-durable/sync/victim; ln -s /etc/passwd .cmc-durable/sync/victim; exec cat"
cwd hseed
op c crash once
state-file victim
depth 1
SCN
"$CMC" check --exec replay --db link.db link.scn >link.out 2>&1
lost=$("$CMC" show --json --db link.db 0 | tr '{' '\n' | sed -n 's/.*"label": "c (power loss)", "to": \([0-9]*\).*/\1/p')
ok "a link planted in the image: the power loss empties the file, reads nothing through the link" \
	sh -c "'$CMC' show --db link.db '$lost' | grep -q '^state files      victim  0 bytes'"
cat >gone.scn <<'SCN'
target /bin/sh -c "rm -rf .cmc-durable/sync; ln -s /etc .cmc-durable/sync; exec cat"
op c crash once
depth 1
SCN
"$CMC" check --exec replay --no-store gone.scn >gone.out 2>&1
is "an image whose sync/ is a link: exit 1" "$?" 1
ok "... the power loss is a limit fault saying so" \
	grep -q "^violation: limit: after c (power loss): crash: the durable image is missing" gone.out
is "... and nothing outside the working directory changed" "$(cksum </etc/passwd)" "$sum_before"

# ---- sqlite3 -----------------------------------------------------------------------
if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "sqlite3: crashes keep every committed row" "sqlite3 is not installed (make test installs it)"
else
	mkdir seed
	sqlite3 seed/test.db 'CREATE TABLE t(k INTEGER PRIMARY KEY);'
	sq_scenario() { # extra words for the command line
		cat <<SCN
target sqlite3 $1 test.db
cwd seed
op "put 1" "INSERT INTO t VALUES(1);\n" once
op "put 2" "INSERT INTO t VALUES(2);\n" once
op crash crash
op check "SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY k); PRAGMA integrity_check;\n"
state-file test.db
state-file test.db-journal
plugin $H/committed.so
depth 4
SCN
	}
	sq_scenario "" >sq.scn
	for run in replay replay2 fork; do
		"$CMC" check --exec ${run%2} --db sq-$run.db --json sq.scn >sq-$run.json 2>sq-$run.err
		rc=$?
		is "sqlite3, $run: no violation after any crash (exit 0)" "$rc" 0
		[ $rc -eq 0 ] || sed 's/^/#   /' sq-$run.err | head -n 5
	done
	echo "# sqlite3: $(json_get sq-replay.json distinct) distinct states, $(json_get sq-replay.json generated) generated"
	for run in replay2 fork; do
		is "sqlite3: $run has the counts of the first replay run" \
			"$(json_get sq-$run.json distinct)/$(json_get sq-$run.json generated)" \
			"$(json_get sq-replay.json distinct)/$(json_get sq-replay.json generated)"
		ok "sqlite3: $run has the fingerprints of the first replay run" \
			sh -c "sqlite3 sq-$run.db 'SELECT fp FROM states ORDER BY fp' >$run.fps &&
			       sqlite3 sq-replay.db 'SELECT fp FROM states ORDER BY fp' | cmp - $run.fps"
	done
	# Write-ahead logging: the log (and its shared-memory index, a
	# MAP_SHARED file) is what a crash leaves; every row is still there.
	sq_scenario '-cmd "PRAGMA journal_mode=WAL"' >wal.scn
	echo "state-file test.db-wal" >>wal.scn
	for e in replay fork; do
		"$CMC" check --exec $e --no-store --json wal.scn >wal-$e.json 2>wal-$e.err
		is "sqlite3 in WAL mode, --exec $e: no violation (exit 0)" "$?" 0
	done
	echo "# sqlite3, WAL: $(json_get wal-replay.json distinct) distinct states, $(json_get wal-replay.json generated) generated"
	is "sqlite3 in WAL mode: the same counts under both executors" \
		"$(json_get wal-fork.json distinct)/$(json_get wal-fork.json generated)" \
		"$(json_get wal-replay.json distinct)/$(json_get wal-replay.json generated)"
	# Without fsync the database is not durable: a power loss after the
	# first INSERT takes it back to the empty table.
	sq_scenario '-cmd "PRAGMA synchronous=OFF"' >off.scn
	"$CMC" check --exec replay --no-store --json off.scn >off.json 2>off.err
	is "sqlite3, synchronous=OFF: a violation (exit 1)" "$?" 1
	is "sqlite3, synchronous=OFF: the row is lost by the power loss" \
		"$(first_violation off.json trace)" '"put 1", "crash (power loss)", "check"'
fi

# ---- bad lines: file:line, exit 2 ----------------------------------------------------
printf 'target %s\nop a "PUT a 1\\n"\nop c crash now\n' "$H/crashkv" >bad1.scn
"$CMC" check --no-store bad1.scn >bad1.out 2>&1
is "op c crash now: exit 2" "$?" 2
ok "... naming file:line and what is expected" \
	grep -q "bad1.scn:3: expected 'once' or 'repeat', got 'now'" bad1.out
printf 'target %s\nop a "PUT a 1\\n"\nop c crash once twice\n' "$H/crashkv" >bad2.scn
"$CMC" check --no-store bad2.scn >bad2.out 2>&1
is "op c crash once twice: exit 2" "$?" 2
ok "... naming file:line and the forms of op" grep -q "bad2.scn:3: expected .*'op LABEL crash \[once|repeat\]'" bad2.out
printf 'target %s\nop "c (power loss)" "PUT a 1\\n"\nop c crash\n' "$H/crashkv" >bad3.scn
"$CMC" check --no-store bad3.scn >bad3.out 2>&1
is "a crash whose power-loss label is taken: exit 2" "$?" 2
ok "... naming file:line and the label" \
	grep -q "bad3.scn:3: expected a new op label, 'c (power loss)' is already defined" bad3.out

done_testing
