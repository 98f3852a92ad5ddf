#!/bin/sh
# t2000-store.sh — runs stored by `cmc check` and read back by runs, show,
# trace, compare and diff, checked against the check's own JSON and against
# sqlite3 reading the file directly (the views of SCHEMA.md); bad files
# refused with exit 2 and left untouched; a full disk; a writer killed with
# SIGKILL and resumed to the counts of an uninterrupted run.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null 2>&1 || { skip "store tests" "sqlite3 CLI missing (TEST_DEPS installs it)"; done_testing; exit; }
q() { sqlite3 "$@" 2>&1; }

# ---- a run stored and read back -------------------------------------------
"$CMC" check diehard --json --db d.db >dh.json
is "check diehard exits 0" $? 0
distinct=$(json_get dh.json distinct)
generated=$(json_get dh.json generated)
"$CMC" runs --json --db d.db >runs.json
is "runs: the run's distinct equals check's" "$(json_get runs.json distinct)" "$distinct"
is "runs: status complete" "$(json_get runs.json status)" complete
# A search a bound cut short is not complete: cmc runs, its --json and the
# run_list view say bounded, as cmc check does.
"$CMC" check --max-depth 3 --db b.db twophase >/dev/null 2>&1
"$CMC" runs --db b.db >b.txt
ok "runs: a run bounded at depth 3 reads bounded" grep -Eq '^1 +bounded +model +twophase ' b.txt
"$CMC" runs --json --db b.db >b.json
is "runs --json: status bounded" "$(json_get b.json status)" bounded
is "runs --json: ... bounded true, complete false" "$(json_get b.json bounded) $(json_get b.json complete)" "true false"
is "run_list: status bounded" "$(q b.db 'SELECT status FROM run_list WHERE run = 1')" bounded
ok "runs --help says what bounded means" sh -c "'$CMC' help runs | grep -q 'bounded, everything within'"
is "sqlite3: states stored == distinct" "$(q d.db 'SELECT sum(count) FROM state_blocks WHERE run = 1')" "$distinct"
is "sqlite3: every transition stored (generated - initial)" \
	"$(q d.db 'SELECT sum(edges) FROM edge_blocks WHERE run = 1')" "$((generated - 1))"
is "view states_by_depth sums to distinct" "$(q d.db 'SELECT sum(states) FROM states_by_depth WHERE run = 1')" "$distinct"
is "view operations_never_taken: none for diehard" "$(q d.db 'SELECT count(*) FROM operations_never_taken WHERE run = 1')" 0
is "view operations_taken sums the transitions" \
	"$(q d.db 'SELECT sum(taken) FROM operations_taken WHERE run = 1')" "$((generated - 1))"

"$CMC" show 0 --db d.db >show.txt
ok "show 0: six successors" grep -q 'successors (6)' show.txt
ok "show 0: both fingerprints printed" grep -q '^raw ' show.txt
ok "show 0: the model's own printer" grep -q 'small=0 big=0' show.txt
"$CMC" show --json --db d.db 3 >show.json
ok "show --json names the state" grep -q '"state": 3' show.json
not_ok "show of a state that does not exist fails" "$CMC" show 999 --db d.db
"$CMC" show 999 --db d.db 2>/dev/null
is "... with exit 2" $? 2

# ---- violations with traces -----------------------------------------------
"$CMC" check diehard-solve --json --db d.db >solve.json
is "check diehard-solve exits 1" $? 1
"$CMC" trace --json --db d.db >trace.json
# TLC's DieHard counterexample measures 4 gallons in 6 steps.
is "trace: 6 steps" "$(json_get trace.json length)" 6
ok "trace names the invariant" grep -q 'NotSolved' trace.json
is "view violations_with_traces: 6 steps" "$(q d.db 'SELECT steps FROM violations_with_traces WHERE run = 2')" 6
is "violations_with_traces ends in BigToSmall" \
	"$(q d.db 'SELECT trace FROM violations_with_traces WHERE run = 2' | sed 's/.* ; //')" BigToSmall
"$CMC" trace 1 --db d.db >trace.txt
ok "trace 1 lists step 6" grep -q '^ *6  BigToSmall' trace.txt

# ---- compare and diff -----------------------------------------------------
"$CMC" compare 1 --json --db d.db >cmp.json
is "compare: models have raw == canonical" "$(json_get cmp.json raw_distinct)" "$distinct"
is "compare: merge factor 1" "$(json_get cmp.json merge_factor)" 1.0000
d2=$(json_get solve.json distinct)
"$CMC" diff 1 2 --json --db d.db >diff.json
# diehard-solve explores the same graph breadth-first and stops early, so
# its states are a subset: the difference is exactly the count gap.
is "diff: only in the full run = distinct gap" \
	"$(sed -n 's/.*"only_a": {[^}]*"count": \([0-9]*\).*/\1/p' diff.json)" "$((distinct - d2))"
is "diff: nothing only in the early-stopped run" \
	"$(sed -n 's/.*"only_b": {[^}]*"count": \([0-9]*\).*/\1/p' diff.json)" 0
"$CMC" diff 1 1 --db d.db >same.txt
ok "diff of a run with itself: no parting" grep -q 'do not part' same.txt

# ---- default file, --no-store ---------------------------------------------
mkdir nd && (cd nd && "$CMC" check diehard >/dev/null)
ok "default database ./cmc.db" test -f nd/cmc.db
mkdir ns && (cd ns && "$CMC" check diehard --no-store >/dev/null)
not_ok "--no-store writes no file" test -e ns/cmc.db

# ---- bad files ------------------------------------------------------------
printf 'this is not a database, just some text\n%.0s' 1 2 3 4 5 6 7 8 >bad.db
cp bad.db bad.orig
"$CMC" check diehard --db bad.db >/dev/null 2>err.txt
is "check on a corrupt file exits 2" $? 2
ok "... saying it is not a cmc database" grep -q 'not a cmc database' err.txt
ok "... and leaves the file untouched" cmp -s bad.db bad.orig
"$CMC" runs --db bad.db >/dev/null 2>&1
is "runs on a corrupt file exits 2" $? 2

q foreign.db 'CREATE TABLE t(x); INSERT INTO t VALUES (1);' >/dev/null
"$CMC" runs --db foreign.db >/dev/null 2>err.txt
is "a foreign SQLite database exits 2" $? 2
ok "... named as such" grep -q 'another program' err.txt

q newer.db 'PRAGMA application_id = 1668113252; PRAGMA user_version = 99; CREATE TABLE future(x);' >/dev/null
cp newer.db newer.orig
"$CMC" check diehard --db newer.db >/dev/null 2>err.txt
is "a newer schema exits 2" $? 2
ok "... saying a newer cmc wrote it" grep -q 'newer cmc' err.txt
ok "... untouched" cmp -s newer.db newer.orig

"$CMC" runs --db missing.db >/dev/null 2>err.txt
is "reading a missing database exits 2" $? 2
not_ok "... without creating it" test -e missing.db
"$CMC" check diehard --db no/such/dir/x.db >/dev/null 2>err.txt
is "a database in a missing directory exits 2" $? 2
if [ "$(id -u)" -ne 0 ]; then
	mkdir ro && chmod 555 ro
	"$CMC" check diehard --db ro/x.db >/dev/null 2>err.txt
	is "a read-only directory exits 2" $? 2
else
	skip "a read-only directory exits 2" "running as root, which writes anywhere"
fi

# A full disk: the file-size limit makes writes fail with EFBIG part way.
cp d.db full.db
cp d.db-wal full.db-wal 2>/dev/null
(trap '' XFSZ; ulimit -f 3000; "$CMC" check bench-counters --max-states 2000000 --db full.db >/dev/null 2>err.txt)
is "a full disk exits 2" $? 2
ok "... saying the run could not be stored" grep -q 'could not be stored\|disk full\|I/O' err.txt
"$CMC" runs --json --db full.db >full.json
is "... and the earlier runs are intact" "$(json_get full.json distinct)" "$distinct"
ok "... the earlier violation too" sh -c "'$CMC' trace 1 --db full.db | grep -q BigToSmall"

# ---- SIGKILL mid-run, then --resume ---------------------------------------
# Uninterrupted reference (no store): the counts the resumed run must reach.
"$CMC" check bench-counters --max-states 1500000 --no-store --json >ref.json
"$CMC" check bench-counters --max-states 1500000 --db k.db --json >/dev/null 2>&1 &
pid=$!
# Wait (bounded) until the writer has committed some states, then kill it.
i=0
while [ "$i" -lt 4000 ]; do
	s=$(q k.db 'SELECT stored_states FROM runs WHERE id = 1' 2>/dev/null)
	case $s in [0-9]*) [ "$s" -ge 50000 ] && break ;; esac
	i=$((i + 1))
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$CMC" runs --json --db k.db >k.json
status=$(json_get k.json status)
# a search that reaches --max-states ends bounded
ended=complete
[ "$(json_get ref.json bounded)" = true ] && ended=bounded
if [ "$status" = "$ended" ]; then
	skip "SIGKILL mid-run" "the run finished before the kill (machine too fast for 1.5M states)"
else
	is "killed run reads interrupted" "$status" interrupted
	n=$(json_get k.json stored_states)
	ok "it kept committed states ($n)" test "$n" -ge 50000
	last=$((n - 1))
	ok "the last stored state's trace reaches an initial state" \
		sh -c "'$CMC' show $last --db k.db --json | grep -q '\"init_state\": 0'"
	"$CMC" check bench-counters --max-states 1500000 --db k.db --resume 1 --json >res.json
	is "resume exits 0" $? 0
	for key in distinct generated transitions depth; do
		is "resumed $key equals the uninterrupted run's" "$(json_get res.json $key)" "$(json_get ref.json $key)"
	done
	"$CMC" runs --json --db k.db >k2.json
	is "the resumed run ended as the uninterrupted one did" "$(json_get k2.json status)" "$ended"
	is "it stored every state" "$(json_get k2.json stored_states)" "$(json_get ref.json distinct)"
	not_ok "a $ended run does not resume" "$CMC" check bench-counters --db k.db --resume 1
fi
not_ok "--resume of another model is refused" "$CMC" check diehard --db k.db --resume 1

# ---- --raw-cap: how much of each raw snapshot is kept ----------------------
LIST=$CMC_TOP/share/examples/list/list.scn
"$CMC" check --json --db rc-full.db "$LIST" >rcf.json
"$CMC" check --json --raw-cap 16 --db rc16.db "$LIST" >rc16.json
is "--raw-cap 16: same distinct states" "$(json_get rc16.json distinct)" "$(json_get rcf.json distinct)"
is "--raw-cap 16: a blob is whole (reply, canonical record) or cut to 16 bytes" \
	"$(q rc16.db 'SELECT count(*) FROM blobs WHERE length(data) NOT IN (min(full_len, 16), full_len)')" 0
is "--raw-cap 16: the full lengths are those of the uncut run" \
	"$(q rc16.db 'SELECT group_concat(full_len) FROM (SELECT full_len FROM blobs ORDER BY 1)')" \
	"$(q rc-full.db 'SELECT group_concat(full_len) FROM (SELECT full_len FROM blobs ORDER BY 1)')"
ok "--raw-cap 16: some snapshot was cut" test "$(q rc16.db 'SELECT count(*) FROM blobs WHERE full_len > 16')" -gt 0
is "the default keeps every snapshot whole" "$(q rc-full.db 'SELECT count(*) FROM blobs WHERE length(data) != full_len')" 0
"$CMC" check --json --raw-cap 0 --db rc0.db "$LIST" >rc0.json
is "--raw-cap 0: same distinct states" "$(json_get rc0.json distinct)" "$(json_get rcf.json distinct)"
is "--raw-cap 0: a raw snapshot keeps no bytes, other observations all of theirs" \
	"$(q rc0.db 'SELECT count(*) FROM blobs WHERE length(data) NOT IN (0, full_len)')" 0
ok "--raw-cap 0: the raw snapshots are empty" test "$(q rc0.db 'SELECT count(*) FROM blobs WHERE length(data) = 0 AND full_len > 0')" -gt 0
"$CMC" check --raw-cap 1x --db rc0.db "$LIST" >/dev/null 2>rcbad.err
is "--raw-cap 1x exits 2" $? 2
ok "... naming the option" grep -q -- '--raw-cap: expected a size' rcbad.err

done_testing
