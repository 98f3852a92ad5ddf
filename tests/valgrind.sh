#!/bin/sh
# tests/valgrind.sh — `make valgrind`: cmc's main paths under valgrind
# memcheck: zero errors and zero definite leaks.  The targets cmc runs are
# not traced (they run under the preload, which valgrind's allocator
# replacement would displace).  Prints one line per path; exit 1 if any
# path has an error or a definite leak (its log is kept in $B/valgrind/).
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
CMC=$top/$B/cmc
out=$top/$B/valgrind
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/cmc-vg.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
bad=0
vg() { # NAME EXPECTED-EXIT cmc-args...
	name=$1 want=$2
	shift 2
	valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --error-exitcode=99 --trace-children=no \
		--suppressions="$top/tests/valgrind.supp" \
		--log-file="$out/$name.log" "$CMC" "$@" >"$out/$name.out" 2>&1
	rc=$?
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$out/$name.log" | tail -n 1)
	lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$out/$name.log" | tail -n 1)
	echo "valgrind $name: exit $rc (want $want), ${errs:-?} errors, ${lost:-0} bytes definitely lost"
	if [ "$rc" -ne "$want" ] || [ "${errs:-1}" != 0 ]; then
		bad=1
		grep -A12 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' \
			"$out/$name.log" | head -n 40
	fi
}
vg check-model 0 check --jobs 2 --db v.db diehard
# without a store a model on --jobs goes to engine/level.c
vg check-model-level 0 check --jobs 2 --no-store twophase
vg check-model-level-violation 1 check --jobs 2 --no-store twophase-bug
vg check-model-violation 1 check --db v.db twophase-bug
vg check-process 0 check --db v.db "$top/share/examples/list/list.scn"
vg check-process-replay 0 check --exec replay --db v.db "$top/share/examples/kv/kv.scn"
vg check-hostile 1 check --db v.db "$top/share/examples/hostile/escapes.scn"
vg runs 0 runs --db v.db
vg runs-json 0 runs --db v.db --json
vg show 0 show --db v.db --run 1 3
vg show-process 0 show --db v.db --run 3 2
vg trace 0 trace --db v.db --run 2
vg graph 0 graph --db v.db --run 3 -o g.svg
exit $bad
