#!/bin/sh
# t5100-proc-real.sh — unmodified programs from Debian under cmc: dc (a
# calculator), sqlite3 (a database shell) and ed (a line editor), all
# stdin-driven, and OpenBSD netcat listening as a one-connection TCP server
# (`nc -l`, which copies what it receives to stdout), with operations
# chosen here.  Each run must complete, two
# runs must give identical counts, and `cmc replay` of a trace must
# reproduce every step's raw fingerprint in a separate process.  sqlite3
# seeds its randomness from time, pid and /dev/urandom, and glibc stores
# pointers mangled with a per-exec random guard in its heap: the preload's
# deterministic environment (preload/detenv.c) and cmc's fixed AT_RANDOM
# make it replayable like the others.
. "$CMC_TOP/tests/test-lib.sh"

cat >dc.scn <<'SCN'
target dc
op "push 1" "1\n"
op "push 2" "2\n"
op add "+\n"
op print "p\n"
hash raw
depth 3
SCN
cat >sqlite.scn <<'SCN'
target sqlite3 :memory:
op create "create table t(x integer primary key);\n" once
op "ins 1" "insert into t values(1);\n" once
op "ins 2" "insert into t values(2);\n" once
op count "select count(*) from t;\n"
hash raw
depth 4
SCN
cat >ed.scn <<'SCN'
target ed
op "append a" "a\nalpha\n.\n"
op "append b" "a\nbeta\n.\n"
op "delete" "1d\n"
hash raw
depth 3
SCN

# netcat exits when its connection is closed, so it does not survive being
# parked as a fork snapshot: the fork executor must say so and go on by
# replay, with replay's counts.  Its heap does not change with what it
# copies, so the states are the subsets of ops applied (`once`).
cat >nc.scn <<'SCN'
target nc -l 127.0.0.1 {port}
transport tcp
op hello "hello\n" once
op world "world\n" once
property reply hello "hello"
hash raw
depth 3
SCN

for prog in dc sqlite3 ed nc; do
	scn=$prog.scn
	[ "$prog" = sqlite3 ] && scn=sqlite.scn
	if ! command -v "$prog" >/dev/null 2>&1; then
		skip "$prog runs under cmc" "$prog is not installed (make test installs it)"
		continue
	fi
	"$CMC" check --json "$scn" >"$prog.1.json" 2>"$prog.1.err"
	rc=$?
	is "$prog: the run completes without violation" "$rc" 0
	is "$prog: complete within its bounds" "$(json_get "$prog.1.json" error)" null
	"$CMC" check --json "$scn" >"$prog.2.json" 2>/dev/null
	d1=$(json_get "$prog.1.json" distinct) d2=$(json_get "$prog.2.json" distinct)
	g1=$(json_get "$prog.1.json" generated) g2=$(json_get "$prog.2.json" generated)
	ok "$prog: more than one state ($d1)" test "${d1:-0}" -gt 1
	is "$prog: two runs, same distinct count" "$d2" "$d1"
	is "$prog: two runs, same generated count" "$g2" "$g1"
	r1=$(json_get "$prog.1.json" raw_distinct) r2=$(json_get "$prog.2.json" raw_distinct)
	is "$prog: two runs, same raw fingerprint count" "$r2" "$r1"
done

# Replay: record each step's fingerprint in one process, check it in another.
# (hash raw: the fingerprint is the raw one, the json shows both equal.)
replay_check() { # NAME SCN LABEL...
	name=$1 scn=$2
	shift 2
	"$CMC" replay --json "$scn" "$@" >"$name.r1.json" 2>/dev/null
	rc=$?
	is "$name: replay runs twice and agrees" "$rc" 0
	# label<TAB>fp lines from the first replay
	tr '{' '\n' <"$name.r1.json" | sed -n 's/.*"label": "\([^"]*\)", "fp": "\([0-9a-f]*\)", "raw": "\([0-9a-f]*\)".*/\1	\2	\3/p' >"$name.steps"
	is "$name: one recorded fingerprint per step" "$(wc -l <"$name.steps" | tr -d ' ')" "$#"
	ok "$name: every step's fingerprint is its raw fingerprint" \
		awk -F'\t' '$2 != $3 { exit 1 }' "$name.steps"
	# label, identity, raw and canonical fingerprints, as --json gave them
	tr '{' '\n' <"$name.r1.json" | sed -n 's/.*"label": "\([^"]*\)", "fp": "\([0-9a-f]*\)", "raw": "\([0-9a-f]*\)", "canonical": "\([0-9a-f]*\)".*/\1	\2	\3	\4/p' >"$name.full"
	"$CMC" replay --file "$name.full" "$scn" >"$name.rf.out" 2>&1
	is "$name: replay --file with raw and canonical columns reproduces them" "$?" 0 ||
		sed 's/^/#   /' "$name.rf.out" "$name.full"
	# the last step's raw fingerprint, altered: named as that step, raw
	awk -F'\t' -v OFS='\t' 'NR == n { $3 = "00000000000000000000000000000001" } { print }' \
		n="$#" "$name.full" >"$name.badraw"
	"$CMC" replay --file "$name.badraw" "$scn" >"$name.br.out" 2>&1
	is "$name: an altered recorded raw fingerprint: did not reproduce (exit 3)" "$?" 3
	ok "$name: ... naming the step and the raw fingerprint" \
		grep -q "^did not reproduce: step $# (.*): the raw fingerprint differs from the recorded one" "$name.br.out"
	cut -f1,2 "$name.steps" >"$name.trace"
	"$CMC" replay --file "$name.trace" "$scn" >"$name.r2.out" 2>&1
	is "$name: cmc replay --file reproduces every recorded step" "$?" 0
	ok "$name: replay says nothing is violated" grep -q "^no violation at any of the $# steps" "$name.r2.out"
	is "$name: ... every step matched its recorded fingerprint" \
		"$(grep -Ec '^ +[0-9]+ +matched ' "$name.r2.out")" "$#"
}
command -v dc >/dev/null 2>&1 && replay_check dc dc.scn "push 1" "push 2" add print "push 1"
command -v ed >/dev/null 2>&1 && replay_check ed ed.scn "append a" "append b" delete "append a"
sed -e 's/ once$//' nc.scn >nc-r.scn
command -v nc >/dev/null 2>&1 && replay_check nc nc-r.scn hello world hello
# (without `once`, so that the identity is the raw fingerprint alone)
sed -e 's/ once$//' sqlite.scn >sqlite-r.scn
command -v sqlite3 >/dev/null 2>&1 && replay_check sqlite sqlite-r.scn create "ins 1" "ins 2" count
# dc and ed do merge states (raw fingerprints repeat along different orders).
if command -v dc >/dev/null 2>&1; then
	ok "dc: some states merge (distinct < generated)" \
		test "$(json_get dc.1.json distinct)" -lt "$(json_get dc.1.json generated)"
fi

# So does sqlite3, now that its runs repeat: inserting 1 then 2 and 2 then 1
# reach the same heap.
if command -v sqlite3 >/dev/null 2>&1; then
	ok "sqlite3: some states merge (distinct < generated)" \
		test "$(json_get sqlite3.1.json distinct)" -lt "$(json_get sqlite3.1.json generated)"
fi

if command -v nc >/dev/null 2>&1; then
	"$CMC" check --exec replay --json nc.scn >nc.replay.json 2>/dev/null
	is "nc: fork and replay agree on distinct" \
		"$(json_get nc.1.json distinct)" "$(json_get nc.replay.json distinct)"
	is "nc: ... and on generated" "$(json_get nc.1.json generated)" "$(json_get nc.replay.json generated)"
	# nc exits on a poll() that EINTR ends; a fork request's is resumed by
	# the preload, so fork snapshots serve it (it fell back before)
	not_ok "nc: fork snapshots serve it, no fall-back" grep -q "fork snapshots unavailable" nc.1.err
	ok "nc: every reply is the line it received" test "$(json_get nc.1.json violations)" = "[]"
fi

# Without the deterministic environment sqlite3 seeds itself from the clock,
# the pid and /dev/urandom: replaying twice tells it apart.
if command -v sqlite3 >/dev/null 2>&1; then
	sed -e 's/ once$//' sqlite.scn >sqlite-nd.scn
	echo 'env CMC_DETERMINISTIC=0' >>sqlite-nd.scn
	"$CMC" replay sqlite-nd.scn create "ins 1" >nd.out 2>&1
	is "sqlite3, nondeterministic: replay does not reproduce (exit 3)" "$?" 3
	ok "sqlite3, nondeterministic: named as such, at the first step" \
		grep -q "^did not reproduce: step 1 (create).*(the target is nondeterministic)" nd.out
fi

# A recorded fingerprint that does not match is named as the diverging step.
if command -v dc >/dev/null 2>&1; then
	printf 'push 1\npush 2\t00000000000000000000000000000001\n' >bad.trace
	"$CMC" replay --file bad.trace dc.scn >bad.out 2>&1
	is "dc: a wrong recorded fingerprint: did not reproduce (exit 3)" "$?" 3
fi

done_testing
