#!/bin/sh
# tests/run.sh — run every test and print `N passed, N failed` last.
#
# Each test is a program that prints TAP lines ("ok ..." / "not ok ...";
# "ok ... # SKIP reason" counts as skipped): the unit binaries in $B/tests/
# and the shell scripts tests/t[0-9]*.sh (which source tests/test-lib.sh).
# A test file that exits non-zero without printing a failure counts as one
# failure of its own.  TESTS='t0*' narrows the set.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
export B CMC_TOP="$top" CMC="$top/$B/cmc"
out=$(mktemp -d "${TMPDIR:-/tmp}/cmc-test.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
pass=0 fail=0 skip=0
pattern=${TESTS:-*}

# A test must leave the machine as it found it: the cgroups of this shell
# and of pid 1 are compared after each one.  A test whose run moved either
# (into a jail with a process cap, as a cmc bug once did in CI, after which
# nothing could fork) fails, and both are put back so the rest can run.
cg_of() { cat "/proc/$1/cgroup" 2>/dev/null; }
cg_self=$(cg_of $$) cg_init=$(cg_of 1)
cg_restore() { # pid: back into the cgroups it was in at the start
	printf '%s\n' "$2" | while IFS=: read -r _ ctl path; do
		case $ctl in
		"") dir=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts) ;;
		*) dir=$(awk -v c="$ctl" '$3 == "cgroup" {n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] == c || "name=" o[i] == c) {print $2; exit}}' /proc/self/mounts) ;;
		esac
		[ -n "$dir" ] && echo "$1" >"$dir$path/cgroup.procs" 2>/dev/null
	done
}

run_one() {
	name=$1; shift
	log="$out/$(basename "$name").log"
	t0=$(date +%s)
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - t0))
	p=$(grep -c '^ok ' "$log" | tr -d ' ')
	s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
	f=$(grep -c '^not ok ' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $rc" >>"$log"
	fi
	for who in self init; do
		if [ $who = self ]; then pid=$$ was=$cg_self; else pid=1 was=$cg_init; fi
		now=$(cg_of $pid)
		[ "$now" = "$was" ] && continue
		f=$((f + 1))
		{ echo "not ok - $name moved pid $pid ($who) into another cgroup:"
		  printf '%s\n' "$now" | grep -vxF "$was" | sed 's/^/#   /'; } >>"$log"
		cg_restore $pid "$was"
	done
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name ($p passed, $f failed, ${secs}s)"
		grep -E '^(not ok|#)' "$log" | head -n 40 | sed 's/^/    /'
		tail -n 15 "$log" | sed 's/^/    | /'
	else
		echo "ok   $name ($p passed${s:+, $s skipped}, ${secs}s)" | sed 's/, 0 skipped//'
	fi
	grep '# SKIP' "$log" | sed 's/^/    /'
}

for t in "$top/$B"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$top"/tests/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_one "$(basename "$t")" sh "$t"
done

echo "$pass passed, $fail failed${skip:+, $skip skipped}" | sed 's/, 0 skipped$//'
[ "$fail" -eq 0 ]
