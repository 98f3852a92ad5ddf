#!/bin/sh
# t2300-sql-rows.sh — every explored state and transition is a plain row
# that the sqlite3 program reads (the views states and transitions of
# store/SCHEMA.md): the five everyday queries of SCHEMA.md, run as they
# stand there, answer what `cmc show`, `cmc trace`, `cmc compare` and
# `cmc runs` answer; the rows match the blocks (the read API, through
# store-dump) after a run interrupted by SIGINT, one killed with SIGKILL,
# and their resumes; `cmc check --no-sql-rows` writes none; a file of schema 6 gets the rows of its runs when
# it is opened, and one whose blocks are damaged is refused and left as
# it was.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null 2>&1 || { skip "sql rows" "sqlite3 CLI missing (TEST_DEPS installs it)"; done_testing; exit; }
q() { sqlite3 "$@" 2>&1; }
DUMP=$CMC_TOP/$B/tests-helpers/store-dump
SIG=$CMC_TOP/$B/tests-helpers/sigcmc
LIST=$CMC_TOP/share/examples/list

# ---- the five everyday queries, from SCHEMA.md ------------------------------
# Each is an indented block of the section "Five everyday queries" ending
# in ';'; they name run 1 = list.scn (--hash both), run 2 = list-bug.scn.
awk '/^### Five everyday queries/ { on = 1; next }
     on && /^##/ { exit }
     on && /^       / { sub(/^       /, ""); t = t $0 "\n"
                        if ($0 ~ /;$/) { n++; f = "q" n ".sql"; printf "%s", t > f; close(f); t = "" } }' \
	"$CMC_TOP/store/SCHEMA.md"
is "SCHEMA.md documents five queries" "$(ls q?.sql 2>/dev/null | wc -l | tr -d ' ')" 5

"$CMC" check --hash both --json --db cmc.db "$LIST/list.scn" >list.json 2>list.err
explored_or_stop $? list.json 16 list.err "the list example is explored"
"$CMC" check --json --db cmc.db "$LIST/list-bug.scn" >bug.json 2>/dev/null
is "list-bug: a violation (exit 1)" $? 1

# cmc's own answers: every state of run 1 as `cmc show --json` prints it,
# one line "id depth parent label status fp raw canon" each, and its
# successors "id label>to".
own() { # RUN N
	i=0
	: >own$1.txt
	: >succ$1.txt
	while [ $i -lt "$2" ]; do
		"$CMC" show $i --run $1 --json --db cmc.db >s.json
		sed 's/"trace":.*//' s.json >top.json # the state's own keys, not its trace's
		printf '%s|%s|%s|%s|%s|%s|%s|%s\n' $i "$(json_get top.json depth)" "$(json_get top.json parent)" \
			"$(json_get top.json label)" "$(json_get top.json status)" "$(json_get top.json fp)" \
			"$(json_get top.json raw_fp)" "$(json_get top.json canon_fp)" >>own$1.txt
		sed 's/.*"successors": \[//' s.json | grep -o '"label": "[^"]*", "to": [0-9]*' |
			sed "s/\"label\": \"\(.*\)\", \"to\": \([0-9]*\)/$i|\1|\2/" >>succ$1.txt
		i=$((i + 1))
	done
}
own 1 16

# 1. states at depth 3
sqlite3 cmc.db <q1.sql >a1.txt 2>&1
awk -F'|' '$2 == 3 { print $1 "|" $3 "|" $4 "|" $5 }' own1.txt >w1.txt
ok "query 1 (states at depth 3) answers what cmc show says" diff w1.txt a1.txt
is "... six states" "$(wc -l <a1.txt | tr -d ' ')" 6

# 2. the path to violation 1
sqlite3 cmc.db <q2.sql >a2.txt 2>&1
"$CMC" trace 1 --json --db cmc.db >tr.json
# cmc trace --json lists the steps' labels, then the violating transition's
grep -o '"label": "[^"]*"' tr.json | sed 's/"label": "\(.*\)"/\1/' | head -n "$(json_get tr.json length)" >w2s.txt
ok "query 2 (the path to violation 1) is cmc trace's" diff w2s.txt a2.txt
is "... INS 2, then INS 1" "$(tr '\n' ',' <a2.txt)" "INS 2,INS 1,"

# 3. transitions out of state 4
sqlite3 cmc.db <q3.sql >a3.txt 2>&1
awk -F'|' '$1 == 4 { print $2 "|" $3 }' succ1.txt | sort >w3.txt
ok "query 3 (transitions out of state 4) are cmc show's successors" diff w3.txt a3.txt
ok "... cmc show lists some" test -s w3.txt

# 4. states per depth
sqlite3 cmc.db <q4.sql >a4.txt 2>&1
cut -d'|' -f2 own1.txt | sort -n | uniq -c | awk '{ print $2 "|" $1 }' >w4.txt
ok "query 4 (states per depth) counts what cmc show says" diff w4.txt a4.txt
"$CMC" runs --json --db cmc.db >runs.json
is "... summing to cmc runs' distinct" "$(awk -F'|' '{ n += $2 } END { print n }' a4.txt)" \
	"$(json_get runs.json distinct)"
is "... as deep as cmc runs says" "$(tail -n 1 a4.txt | cut -d'|' -f1)" "$(json_get runs.json depth)"

# 5. states that differ raw but merge canonically
sqlite3 cmc.db <q5.sql >a5.txt 2>&1
"$CMC" compare 1 --json --db cmc.db | grep '"states": [2-9]' |
	sed 's/.*"canon": "\([0-9a-f]*\)".*/\1/' >w5c.txt
"$CMC" compare 1 --json --db cmc.db | grep '"states": [2-9]' |
	sed 's/"canon"[^[]*\[//' | grep -o '"state": [0-9]*' | cut -d' ' -f2 | sort -n | tr '\n' ' ' >w5s.txt
ok "query 5 (raw variants merged canonically) names cmc compare's groups" \
	sh -c 'cut -d"|" -f1 a5.txt | diff w5c.txt -'
is "... with their states" "$(cut -d'|' -f3 a5.txt | tr '\n' ' ' | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/^ *//')" "$(cat w5s.txt)"
is "... four groups, 12 of the 16 states" "$(awk -F'|' '{ n++; s += $2 } END { print n, s }' a5.txt)" "4 12"

# The whole of each run against cmc show: id, depth, parent, label,
# status, fingerprints; and every transition.
q cmc.db "SELECT id, depth, coalesce(parent, 'null'), coalesce(label, 'null'), status, fp,
          coalesce(raw_fp, 'null'), coalesce(canon_fp, 'null') FROM states WHERE run = 1 ORDER BY id" >all1.txt
ok "run 1: every state row is what cmc show prints" diff own1.txt all1.txt
q cmc.db "SELECT source, label, target FROM transitions WHERE run = 1" | sort >t1.txt
sort succ1.txt >w1t.txt
ok "run 1: every transition row is a successor cmc show lists, and back" diff w1t.txt t1.txt
own 2 7
q cmc.db "SELECT id, depth, coalesce(parent, 'null'), coalesce(label, 'null'),
          CASE status WHEN 'frontier' THEN 'ok' ELSE status END, fp,
          coalesce(raw_fp, 'null'), coalesce(canon_fp, 'null') FROM states WHERE run = 2 ORDER BY id" >all2.txt
ok "run 2 (a violation): every state row is what cmc show prints" diff own2.txt all2.txt
is "run 2: the violating state reads violation" \
	"$(q cmc.db "SELECT id FROM states WHERE run = 2 AND status = 'violation'")" "$(json_get bug.json state)"
is "run 2: the states it never expanded are its frontier" \
	"$(q cmc.db "SELECT count(*) FROM states WHERE run = 2 AND status = 'frontier'")" \
	"$(q cmc.db "SELECT count(*) FROM state_rows s WHERE run = 2 AND id >= (SELECT expanded_below FROM runs WHERE id = 2)
	             AND NOT EXISTS (SELECT 1 FROM transition_rows t WHERE t.run = 2 AND t.source = s.id)
	             AND status = 0 AND id != $(json_get bug.json state)")"
is "run 1 (complete): no frontier" "$(q cmc.db "SELECT count(*) FROM states WHERE run = 1 AND status = 'frontier'")" 0
is "a plain count(*) FROM states counts both runs" "$(q cmc.db 'SELECT count(*) FROM states')" 23

# ---- interrupted, killed, resumed: the rows follow the blocks ---------------
# consistent DB NAME: the rows of run 1 are the blocks' (the read API's
# store-dump), and hold together.
consistent() {
	"$DUMP" "$1" 1 >dump.txt 2>dump.err
	awk -F'\t' '{ print $1 "|" ($3 == "violation" || $3 == "fault" ? $3 : "ok") "|" $4 "|" $5 "|" $6 }' dump.txt |
		sed 's/|-/|/g' >dump-s.txt
	q "$1" "SELECT id, CASE status WHEN 'frontier' THEN 'ok' ELSE status END, fp,
	       coalesce(raw_fp, ''), coalesce(canon_fp, '') FROM states WHERE run = 1 ORDER BY id" >rows-s.txt
	ok "$2: a state row for each state of the blocks, the same" diff dump-s.txt rows-s.txt
	awk -F'\t' '{ n = split($8, a, " "); for (i = 1; i <= n; i++) { k = a[i]; sub(/>[0-9]*$/, "", k)
	              t = a[i]; sub(/.*>/, "", t); print $1 "|" k "|" t } }' dump.txt | sort -u >dump-t.txt
	q "$1" "SELECT source, label, target FROM transitions WHERE run = 1" | sort >rows-t.txt
	ok "$2: a transition row for each transition of the blocks, the same" diff dump-t.txt rows-t.txt
	"$CMC" runs --json --db "$1" >r.json
	is "$2: count(*) FROM states is cmc runs' stored_states" \
		"$(q "$1" 'SELECT count(*) FROM states WHERE run = 1')" "$(json_get r.json stored_states)"
	is "$2: every parent and every transition's ends are states" \
		"$(q "$1" "SELECT (SELECT count(*) FROM state_rows s WHERE run = 1 AND parent IS NOT NULL
		           AND (parent >= id OR NOT EXISTS (SELECT 1 FROM state_rows p WHERE p.run = 1 AND p.id = s.parent)))
		         + (SELECT count(*) FROM transition_rows t WHERE run = 1
		           AND (NOT EXISTS (SELECT 1 FROM state_rows s WHERE s.run = 1 AND s.id = t.source)
		             OR NOT EXISTS (SELECT 1 FROM state_rows s WHERE s.run = 1 AND s.id = t.target)))")" 0
}
# transitions by fingerprint: comparable between two runs of one space
by_fp() {
	q "$1" "SELECT a.fp, t.label, b.fp FROM transitions t JOIN states a ON a.run = t.run AND a.id = t.source
	        JOIN states b ON b.run = t.run AND b.id = t.target WHERE t.run = 1" | sort
}

if [ -x "$SIG" ] && [ -x "$DUMP" ]; then
	# t6500's scenario, smaller: 6 once-operations setting bits and one
	# that pokes a file, 128 states; the signal is sent once the poke was
	# answered, by progress, never by time.
	{
		echo "target $SIG"
		echo "env SIGCMC_POKE=$T/poked"
		printf '%s\n' 'op "poke" "poke\n" once'
		for k in 0 1 2 3 4 5; do printf 'op "b%s" "set %s\\n" once\n' $k $k; done
		echo 'hash raw'
		echo 'raw segments'
	} >bits.scn
	"$CMC" check --exec fork --jobs 1 bits.scn --db ref.db --json >ref.json 2>ref.err
	explored_or_stop $? ref.json 128 ref.err "the bits scenario is explored"
	consistent ref.db "uninterrupted"
	by_fp ref.db >ref-t.txt
	is "uninterrupted: no frontier" "$(q ref.db "SELECT count(*) FROM states WHERE status = 'frontier'")" 0

	for sig in INT KILL; do
		rm -f poked
		db=$sig.db
		"$CMC" check --exec fork --jobs 1 bits.scn --db $db --json >int.json 2>int.err &
		pid=$!
		signal_when $pid $sig poked
		wait $pid
		"$CMC" runs --json --db $db >r.json
		if [ "$(json_get r.json status)" = complete ]; then
			skip "SIG$sig" "the run finished before the signal"
			continue
		fi
		is "SIG$sig: the run reads interrupted" "$(json_get r.json status)" interrupted
		consistent $db "SIG$sig"
		n=$(q $db 'SELECT count(*) FROM states WHERE run = 1')
		ok "SIG$sig: fewer than 128 states ($n)" test "$n" -lt 128
		is "SIG$sig: the frontier is what a resume expands (above expanded_below, no edges)" \
			"$(q $db "SELECT count(*) FROM states WHERE run = 1 AND status = 'frontier'")" \
			"$(q $db "SELECT count(*) FROM state_rows s WHERE run = 1 AND status = 0
			           AND id >= (SELECT expanded_below FROM runs WHERE id = 1)
			           AND NOT EXISTS (SELECT 1 FROM transition_rows t WHERE t.run = 1 AND t.source = s.id)")"
		"$CMC" check --exec fork --jobs 1 bits.scn --db $db --resume 1 --json >res.json 2>res.err
		is "SIG$sig: --resume ends cleanly" $? 0
		consistent $db "SIG$sig, resumed"
		is "SIG$sig, resumed: 128 state rows, no frontier" \
			"$(q $db "SELECT count(*), sum(status = 'frontier') FROM states WHERE run = 1")" "128|0"
		by_fp $db >res-t.txt
		ok "SIG$sig, resumed: the uninterrupted run's transitions, each once" cmp -s ref-t.txt res-t.txt
	done
else
	skip "interrupted and resumed runs" "no $SIG or $DUMP (make builds them)"
fi

# ---- --no-sql-rows: blocks only ------------------------------------------------
"$CMC" check --no-sql-rows --db nr.db diehard >/dev/null 2>&1
"$CMC" check --db nr.db diehard >/dev/null 2>&1
is "--no-sql-rows: the run says so (runs.sql_rows 0), the next one has rows" \
	"$(q nr.db 'SELECT group_concat(sql_rows) FROM (SELECT sql_rows FROM runs ORDER BY id)')" "0,1"
is "... and the views hold only the other's" \
	"$(q nr.db 'SELECT group_concat(DISTINCT run) FROM states') $(q nr.db 'SELECT group_concat(DISTINCT run) FROM transitions')" "2 2"
"$CMC" show 3 --run 1 --json --db nr.db | sed 's/"run": 1/"run": 2/' >nr1.json
"$CMC" show 3 --run 2 --json --db nr.db >nr2.json
ok "... while cmc show reads both alike" cmp -s nr1.json nr2.json

# ---- a file of schema 6 -----------------------------------------------------
# Versions 7 and 8 only add and 9 only redefines a view, so a schema 6
# file is this one without what 7 and 8 added (the rows; runs.raw_scheme).
to6() {
	cp cmc.db "$1"
	q "$1" "DROP VIEW states; DROP VIEW transitions; DROP TABLE state_rows; DROP TABLE transition_rows;
	        ALTER TABLE runs DROP COLUMN sql_rows; ALTER TABLE runs DROP COLUMN raw_scheme;
	        PRAGMA user_version = 6" >/dev/null
}
to6 v6.db
q cmc.db "SELECT * FROM states ORDER BY run, id" >v7-s.txt
q cmc.db "SELECT * FROM transitions ORDER BY run, source, label" >v7-t.txt
"$CMC" runs --db v6.db >/dev/null 2>err.txt
is "cmc runs opens a schema 6 file" $? 0
is "... and upgrades it" "$(q v6.db 'PRAGMA user_version')" 9
q v6.db "SELECT * FROM states ORDER BY run, id" >v6-s.txt
q v6.db "SELECT * FROM transitions ORDER BY run, source, label" >v6-t.txt
ok "... its runs' state rows are those a schema 7 run wrote" cmp -s v7-s.txt v6-s.txt
ok "... and their transition rows" cmp -s v7-t.txt v6-t.txt

to6 bad6.db
q bad6.db "UPDATE state_blocks SET data = X'0102' WHERE run = 2" >/dev/null
cp bad6.db bad6.orig
"$CMC" runs --db bad6.db >/dev/null 2>err.txt
is "a schema 6 file with a damaged block: exit 2" $? 2
ok "... saying why it cannot be upgraded" grep -q 'cannot upgrade to schema version 7.*run 2' err.txt
is "... and left at version 6" "$(q bad6.db 'PRAGMA user_version')" 6
ok "... without the rows" sh -c "sqlite3 bad6.db 'SELECT 1 FROM state_rows' 2>&1 | grep -q 'no such table'"

done_testing
