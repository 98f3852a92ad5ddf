#!/bin/sh
# t5382-heap-graph-debian.sh — heap-graph hashing on unmodified Debian
# programs (the t5500 corpus's scenarios, tests/reach/PROG.scn, depth 4):
# for calc, lua5.4, gdbmtool and beanstalkd, under `--hash heap-graph`,
# two runs give the same fingerprints, the fork executor gives them too,
# state by state (sorted), and the heap graph never tells more states apart
# than raw bytes do (it forgets where blocks sit and what is garbage; it
# never adds a distinction).  The counts, raw and heap-graph, are printed
# as comments (tests/bench/heapgraph.sh DEBIAN=1 times them).
. "$(dirname "$0")/test-lib.sh"
REACH=$CMC_TOP/tests/reach
fps() { sqlite3 "$1" 'SELECT fp FROM states ORDER BY fp'; }
for prog in calc lua5.4 gdbmtool beanstalkd; do
	if ! command -v "$prog" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$prog" ] && [ ! -x "/usr/bin/$prog" ]; then
		skip "$prog: heap-graph" "$prog is not installed (make test installs it)"
		continue
	fi
	scn=$REACH/$prog.scn
	"$CMC" check --exec replay --jobs 1 --hash raw --no-store --json "$scn" >"$prog-raw.json" 2>"$prog-raw.err"
	for run in r1 r2 fork; do
		ex=replay
		[ $run = fork ] && ex=fork
		"$CMC" check --exec $ex --jobs 1 --hash heap-graph --db "$prog-$run.db" --json "$scn" \
			>"$prog-$run.json" 2>"$prog-$run.err"
		is "$prog, heap-graph ($run): exit 0" "$?" 0
		fps "$prog-$run.db" >"$prog-$run.fps"
	done
	ok "$prog, heap-graph: two runs, the same fingerprints" cmp "$prog-r1.fps" "$prog-r2.fps"
	ok "$prog, heap-graph: fork gives replay's fingerprints" cmp "$prog-r1.fps" "$prog-fork.fps"
	raw=$(json_get "$prog-raw.json" distinct) hg=$(json_get "$prog-r1.json" distinct)
	ok "$prog: heap-graph ($hg states) tells no more apart than raw ($raw)" \
		test "${hg:-999999}" -le "${raw:-0}" -a "${hg:-0}" -gt 0
	echo "# $prog: raw $raw states, heap-graph $hg"
done
done_testing
