#!/bin/sh
# t2200-store-faults.sh — the store's writes failing, one point at a time
# (CMC_STORE_FAULT=N fails the Nth write of the process as if the disk had
# failed; N+ fails it and every later one): for N = 1, 2, ... until a run
# no longer reaches N writes, for a model run and a process run, cmc exits
# with an error naming the store failure (no crash, no hang), the database
# opens and passes SQLite's integrity check, the earlier run is untouched,
# and `cmc check --resume RUN` ends with the counts of an uninterrupted run.
. "$(dirname "$0")/test-lib.sh"

first() { "$CMC" runs --db "$1" --json 2>/dev/null | grep '"id": 1,' | sed 's/[]},]*$//'; }
nruns() { "$CMC" runs --db "$1" --json 2>/dev/null | grep -c '"id":'; }
counts() { # json: distinct generated transitions depth
	for k in distinct generated transitions depth; do printf '%s ' "$(json_get "$1" $k)"; done
}

# fault_loop NAME MODE CMD... — MODE "" (one write fails) or "+" (from the
# Nth on, every write fails).  Runs CMD (a cmc check) into a copy of base.db
# for each N; stops at the first N the run does not reach.
fault_loop() {
	name=$1 mode=$2
	shift 2
	"$@" --db want.db --json >want.json 2>/dev/null
	want=$(counts want.json)
	before=$(first base.db)
	n=1 points=0 bad=""
	while [ $n -lt 100000 ]; do
		rm -f f.db f.db-wal f.db-shm
		cp base.db f.db
		CMC_STORE_FAULT=$n$mode timeout 300 "$@" --db f.db >/dev/null 2>f.err
		rc=$?
		[ $rc -eq 0 ] && ! grep -q CMC_STORE_FAULT f.err && break # never reached N
		points=$((points + 1))
		why=""
		if [ $rc -ne 2 ]; then
			why="exit status $rc"
		elif ! grep -q "f.db: .*disk I/O error (injected: CMC_STORE_FAULT)" f.err; then
			why="the error does not name the store failure"
		elif [ "$(sqlite3 f.db 'pragma integrity_check' 2>&1)" != ok ]; then
			why="the integrity check fails"
		elif [ "$(first f.db)" != "$before" ]; then
			why="the earlier run changed"
		elif [ "$(nruns f.db)" -ge 2 ]; then
			"$@" --db f.db --resume 2 --json >r.json 2>r.err
			r=$?
			if [ $r -ne 0 ]; then
				why="--resume exits $r: $(head -c 200 r.err)"
			elif [ "$(counts r.json)" != "$want" ]; then
				why="--resume ends with $(counts r.json), not $want"
			fi
		fi
		[ -n "$why" ] && bad="$bad
# N=$n$mode: $why ($(head -c 200 f.err))"
		# every point at the start (opening the run), then a walk that
		# still lands in each commit of the run
		if [ $n -lt 10 ]; then n=$((n + 1)); else n=$((n + n / 2)); fi
	done
	ok "$name: a write fails at each of $points points, the run reaches the next" test $points -ge 8
	is "$name: each ends with an error naming the store, a sound database and a full resume" \
		"$bad" ""
}

"$CMC" check --jobs 1 diehard --db base.db >/dev/null 2>&1
is "the earlier run is stored" "$(nruns base.db)" 1

M="$CMC check --jobs 1 --max-states 5000 bench-counters-small"
fault_loop "model" "" $M
fault_loop "model, the disk stays gone" "+" $M
fault_loop "model, two jobs" "" $CMC check --jobs 2 --max-states 5000 bench-counters-small

# a process run writes inline (store_opts.same_thread), row by row
{
	echo 'target ${CMC_BIN}/examples/kv'
	for k in a b c d; do printf 'op "SET %s" "SET %s 1\\n" once\n' $k $k; done
	echo 'hash raw'
} >kv4.scn
P="$CMC check --exec replay kv4.scn"
fault_loop "process" "" $P
fault_loop "process, the disk stays gone" "+" $P
done_testing
