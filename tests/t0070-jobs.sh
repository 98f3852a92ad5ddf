#!/bin/sh
# t0070-jobs: breadth-first search on several worker threads gives the same
# results as one thread — counts, depth, and the same first violation with
# the same trace — for every built-in model, whatever the number of jobs.
. "$(dirname "$0")/test-lib.sh"

# summary FILE — the fields that must not depend on --jobs
summary() {
	for k in distinct generated transitions depth complete; do printf '%s=%s ' "$k" "$(json_get "$1" "$k")"; done
	sed -n 's/.*"violations": \(\[.*\]\)}$/\1/p' "$1"
}

# alloc and alloc-bug are large enough (16,564 states) that the visited set
# grows while the next chunk is expanded ahead of the admission (parallel.c)
for m in diehard diehard-solve tcommit twophase twophase-bug peterson philosophers alloc alloc-bug; do
	"$CMC" check --no-store --jobs 1 --json "$m" >"$T/$m.1" 2>/dev/null
	r1=$?
	for j in 2 3; do
		"$CMC" check --no-store --jobs "$j" --json "$m" >"$T/$m.$j" 2>/dev/null
		is "$m: exit status with --jobs $j equals --jobs 1" "$?" "$r1"
		is "$m: --jobs $j gives the same counts and violations" "$(summary "$T/$m.$j")" "$(summary "$T/$m.1")"
	done
done

# Bounds and --keep-going go through the same admission order.
"$CMC" check --no-store --jobs 1 --keep-going --json twophase-bug >"$T/k1" 2>/dev/null
"$CMC" check --no-store --jobs 2 --keep-going --json twophase-bug >"$T/k2" 2>/dev/null
is "--keep-going: every violation, in the same order" "$(summary "$T/k2")" "$(summary "$T/k1")"
"$CMC" check --no-store --jobs 1 --max-states 100 --json philosophers >"$T/b1" 2>/dev/null
"$CMC" check --no-store --jobs 2 --max-states 100 --json philosophers >"$T/b2" 2>/dev/null
is "--max-states: the same bounded counts" "$(summary "$T/b2")" "$(summary "$T/b1")"
"$CMC" check --no-store --jobs 1 --max-states 5000 --json alloc >"$T/a1" 2>/dev/null
"$CMC" check --no-store --jobs 2 --max-states 5000 --json alloc >"$T/a2" 2>/dev/null
is "--max-states, mid-chunk: the same bounded counts" "$(summary "$T/a2")" "$(summary "$T/a1")"
# The stored run too: the same graph, the same states under the same ids.
"$CMC" check --jobs 1 --db "$T/g1.db" alloc >/dev/null 2>&1
"$CMC" check --jobs 2 --db "$T/g2.db" alloc >/dev/null 2>&1
"$CMC" graph --db "$T/g1.db" -o "$T/g1.dot" >/dev/null 2>&1
"$CMC" graph --db "$T/g2.db" -o "$T/g2.dot" >/dev/null 2>&1
ok "stored alloc run: a graph was drawn" test -s "$T/g1.dot"
ok "stored alloc run: the same graph with --jobs 2" cmp -s "$T/g1.dot" "$T/g2.dot"
last=$(($(json_get "$T/alloc.1" distinct) - 1))
for id in 1 $((last / 2)) $last; do
	"$CMC" show --db "$T/g1.db" $id >"$T/s1" 2>&1
	"$CMC" show --db "$T/g2.db" $id >"$T/s2" 2>&1
	ok "stored alloc run: state $id the same with --jobs 2" sh -c "grep -q 'state $id:' '$T/s1' && cmp -s '$T/s1' '$T/s2'"
done
"$CMC" check --no-store --jobs 0 diehard >/dev/null 2>&1
is "--jobs 0 is a usage error" "$?" 2
"$CMC" check --no-store --jobs 2 --dfs diehard >/dev/null 2>"$T/dfs.err"
ok "--jobs with --dfs says it runs one job" grep -q "one job" "$T/dfs.err"
done_testing
