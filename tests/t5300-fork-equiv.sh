#!/bin/sh
# t5300-fork-equiv.sh — the fork-snapshot executor gives exactly what the
# replay executor (the reference) gives: for every shipped example scenario
# and the t5 test scenarios, under --hash raw, canonical and both, the --json
# output of the two runs is identical once the timing fields are removed
# (distinct, generated, transitions, depth, raw and canonical counts, every
# violation with its message and shortest trace).  A trace the fork executor
# found reproduces under `cmc replay` with fingerprints recorded by the
# other executor.  Fork is really used (CMC_PROC_STATS counts forks), and
# a threaded target falls back to replay saying why.
. "$CMC_TOP/tests/test-lib.sh"

SHARE=$CMC_TOP/share/examples
PT=$CMC_TOP/$B/tests-helpers/proctarget

both() { # NAME SCN ARGS...: run under both executors, compare
	name=$1 scn=$2
	shift 2
	CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec replay "$@" "$scn" >"$name.r.json" 2>"$name.r.err"
	rr=$?
	CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec fork "$@" "$scn" >"$name.f.json" 2>"$name.f.err"
	rf=$?
	is "$name: same exit status under fork and replay ($rr)" "$rf" "$rr"
	json_untimed "$name.r.json" >"$name.r.cmp"
	json_untimed "$name.f.json" >"$name.f.cmp"
	ok "$name: identical --json under fork and replay" diff "$name.r.cmp" "$name.f.cmp"
}

for scn in "$SHARE"/*/*.scn; do
	base=$(basename "$scn" .scn)
	for h in raw canonical both; do
		both "$base-$h" "$scn" --hash "$h"
	done
done
ok "the fork executor forked (list)" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" list-raw.f.err
# list by raw: 1 + 3 + 6 states have an operation left (the 6 full lists
# have none), each is expanded once, and every one but the root takes its
# last operation itself (the pool never fills here): 9 spent, and of the
# 15 transitions the other 6 are forks
ok "snapshots took their last operation unforked (list)" \
	grep -q "executor fork: 1 spawns, 6 forks, 9 spent" list-raw.f.err
ok "the violation is found with the same trace (list-bug)" grep -q '"trace": \["INS 2", "INS 1"\]' list-bug-raw.f.json

# The t5 targets' scenarios: crash, exit status, heap fault, hang, counters.
printf 'target %s\nop inc "inc\\n"\nop bomb "bomb\\n"\nraw symbol counter\nhash raw\ndepth 4\n' "$PT" >crash.scn
both crash crash.scn
ok "crash: found by fork with the shortest trace" grep -q '"trace": \["inc", "inc", "bomb"\]' crash.f.json
printf 'target %s\nop inc "inc\\n" once\nop quit "exit 4\\n" once\nproperty exit 0\n' "$PT" >exit.scn
both exit exit.scn --keep-going
printf 'target %s\nheap-size 64K\nop big "alloc 1000000\\n"\nop small "alloc 100\\n"\ndepth 3\n' "$PT" >heap.scn
both heap heap.scn --keep-going
printf 'target %s\nop inc "inc\\n" once\nop hang "hang\\n" once\ntimeout 300\n' "$PT" >hang.scn
both hang hang.scn
# An event loop: fork shares an epoll interest list between snapshots, and
# the child's fresh stdin would not be in it; the preload makes each
# child's epoll instances anew (preload/epoll.c), so fork snapshots work.
printf 'target %s --epoll\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 4\nhash raw\n' "$PT" >epoll.scn
both epoll epoll.scn
ok "epoll: fork snapshots were used" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" epoll.f.err
not_ok "epoll: no fall back to replay" grep -q "fork snapshots unavailable" epoll.f.err
ok "epoll: the run explored more than the initial state" test "$(json_get epoll.f.json distinct)" -gt 1
# More epoll instances than the preload keeps: a child's could not all be
# made anew, so snapshots refuse and cmc replays, saying why.
printf 'target %s --epoll-many 40 --epoll\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 4\nhash raw\n' "$PT" >epm.scn
both epm epm.scn
ok "40 epoll instances: fork snapshots fall back, saying why" \
	grep -q "unavailable (the target has more epoll instances or entries than the preload keeps" epm.f.err
# A target that does not retry a poll() interrupted by a signal (as
# OpenBSD netcat does not) never sees the fork request's EINTR: the
# preload resumes the wait (preload/detwait.c), so fork snapshots serve it
# (t5350 compares its states one by one).
printf 'target %s --poll-eintr\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 3\nhash raw\n' "$PT" >eintr.scn
both eintr eintr.scn
not_ok "eintr: no fall-back to replay" grep -q "fork snapshots unavailable" eintr.f.err
# A target that runs programs: each one the shell starts (fork and exec)
# inherits the environment and the snapshot socket, and its preload said
# READY on it, where cmc then took it for the snapshot's answer and fell
# back.  Now such a program closes the socket (the socket's peer, cmc, is
# not its parent) and cmc passes over a stray READY; either one is enough
# here.  (Counts are not compared: the shell's heap keeps its children's
# pids.)
printf 'target /bin/sh\nop run "/bin/true; echo ran\\n"\nop say "echo hi\\n"\ndepth 3\nhash raw\n' >sh.scn
CMC_PROC_STATS=1 "$CMC" check --no-store --jobs 1 --exec fork sh.scn >sh.out 2>sh.err
is "sh running programs: exit 0" "$?" 0
ok "sh running programs: served by fork snapshots (one process started)" grep -q "executor fork: 1 spawns" sh.err
ok "sh running programs: no fall-back" sh -c '! grep -q unavailable sh.err'
printf 'target %s\nop a "alloc 5000\\n"\nop inc "inc\\n"\nraw-cap 1K\ndepth 3\nhash raw\n' "$PT" >alloc.scn
both alloc alloc.scn
printf 'target %s\nop a "alloc 48\\n"\nop inc "inc\\n"\nraw heap\nraw symbol counter\ndepth 7\nhash raw\n' "$PT" >small.scn
# a pool of 3 snapshots: most states are re-created from an ancestor
"$CMC" check --no-store --json --jobs 1 --exec replay small.scn >small.r.json 2>/dev/null
CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec fork --set snapshots=3 small.scn \
	>small.f.json 2>small.f.err
json_untimed small.r.json >small.r.cmp
json_untimed small.f.json >small.f.cmp
ok "a pool of 3 snapshots: identical --json" diff small.r.cmp small.f.cmp
ok "a pool of 3 snapshots: evicted states are re-created by replaying from an ancestor" \
	grep -q "ops ([1-9][0-9]* replayed)" small.f.err

# Most successors are states seen before (keys inserted in another order)
# or lie past the depth bound; the engine says so and the fork executor
# lets their children go at once, so the pool holds only states still to
# expand: never more snapshots than distinct states (--jobs 1; without
# the hint the pool kept every quiescent child until two levels on).
{
	echo "target $CMC_TOP/$B/examples/list-emit {port}"
	echo "transport tcp"
	for k in 1 2 3 4 5 6; do printf 'op "INS %d" "INS %d\\n" once\n' "$k" "$k"; done
	echo "hash canonical"
	echo "depth 4"
} >keys6.scn
both keys6 keys6.scn
ok "keys6: the run merges states (distinct < transitions)" \
	test "$(json_get keys6.f.json distinct)" -lt "$(json_get keys6.f.json transitions)"
disc=$(sed -n 's/.* \([0-9]*\) discarded, at most \([0-9]*\) snapshots.*/\1/p' keys6.f.err)
peak=$(sed -n 's/.* \([0-9]*\) discarded, at most \([0-9]*\) snapshots.*/\2/p' keys6.f.err)
ok "keys6: children of seen states are let go ($disc)" test "${disc:-0}" -gt 0
ok "keys6: at most one snapshot per distinct state ($peak <= $(json_get keys6.f.json distinct))" \
	test "${peak:-999999}" -le "$(json_get keys6.f.json distinct)"

# Snapshots let go (duplicates) are reaped as the run goes, not at its
# end, also when every expansion ends with the snapshot taking its last
# operation itself: under a low fd limit the pool shrinks to fit, and the
# 321 children of seen states (keys 1..7: 448 transitions, 128 states)
# would otherwise hold 8 fds each until the end.
{
	echo "target $CMC_TOP/$B/examples/list-emit {port}"
	echo "transport tcp"
	for k in 1 2 3 4 5 6 7; do printf 'op "INS %d" "INS %d\\n" once\n' "$k" "$k"; done
	echo "hash canonical"
} >keys7.scn
(ulimit -n 1024 && CMC_PROC_STATS=1 "$CMC" check --no-store --json --jobs 1 --exec fork keys7.scn) \
	>keys7.json 2>keys7.err
is "keys7 under 'ulimit -n 1024': exit 0" "$?" 0
is "keys7 under 'ulimit -n 1024': all 128 states" "$(json_get keys7.json distinct)" 128
ok "keys7 under 'ulimit -n 1024': the pool was shrunk to fit" grep -q "the fd limit (1024) holds" keys7.err
ok "keys7 under 'ulimit -n 1024': 321 children of seen states let go" grep -q " 321 discarded" keys7.err

for prog in dc ed sqlite3; do
	command -v "$prog" >/dev/null 2>&1 || { skip "$prog under both executors" "$prog is not installed"; continue; }
	case $prog in
	dc) printf 'target dc\nop "push 1" "1\\n"\nop "push 2" "2\\n"\nop add "+\\n"\nop print "p\\n"\nhash raw\ndepth 3\n' >dc.scn ;;
	sqlite3) printf 'target sqlite3 :memory:\nop create "create table t(x integer primary key);\\n" once\nop "ins 1" "insert into t values(1);\\n" once\nop "ins 2" "insert into t values(2);\\n" once\nop count "select count(*) from t;\\n"\nhash raw\ndepth 4\n' >sqlite3.scn ;;
	ed) printf 'target ed\nop "append a" "a\\nalpha\\n.\\n"\nop "append b" "a\\nbeta\\n.\\n"\nop "delete" "1d\\n"\nhash raw\ndepth 3\n' >ed.scn ;;
	esac
	both "$prog" "$prog.scn"
done

# Parallel workers: each has its own frontend (clone), executor and
# snapshots; the results do not depend on their number.
for scn in "$SHARE/list/list.scn" "$SHARE/list/list-bug.scn" "$SHARE/kv/kv.scn"; do
	base=$(basename "$scn" .scn)
	"$CMC" check --no-store --json --hash both --exec fork --jobs 1 "$scn" >"$base.j1.json" 2>/dev/null
	"$CMC" check --no-store --json --hash both --exec fork --jobs 2 "$scn" >"$base.j2.json" 2>/dev/null
	# frontier_max is how the engine scheduled the work, not a result
	json_untimed "$base.j1.json" | sed -e 's/"frontier_max": [0-9]*, //' >"$base.j1.cmp"
	json_untimed "$base.j2.json" | sed -e 's/"frontier_max": [0-9]*, //' >"$base.j2.cmp"
	ok "$base: identical --json under fork with --jobs 1 and --jobs 2" diff "$base.j1.cmp" "$base.j2.cmp"
done

# A trace found by the fork executor reproduces, fingerprint by fingerprint,
# in a fresh process of the replay executor.
CMC_EXEC=fork "$CMC" replay --json "$SHARE/list/list.scn" "INS 2" "INS 1" "INS 3" >rep.f.json 2>/dev/null
tr '{' '\n' <rep.f.json | sed -n 's/.*"label": "\([^"]*\)", "fp": "\([0-9a-f]*\)".*/\1	\2/p' >rep.trace
is "replay under fork records one fingerprint per step" "$(wc -l <rep.trace | tr -d ' ')" 3
CMC_EXEC=replay "$CMC" replay --file rep.trace "$SHARE/list/list.scn" >rep.out 2>&1
is "the fork-recorded trace reproduces under replay" "$?" 0

# A target with a thread cannot be forked: cmc says so and replays, with
# the same results.
TH=$CMC_TOP/$B/tests-helpers/threaded
printf 'target %s\nop inc "inc\\n"\nop nop "nop\\n"\nraw symbol counter\ndepth 3\n' "$TH" >thr.scn
both thr thr.scn
ok "threaded target: fork falls back to replay, saying why" grep -q "the target runs 2 threads, which cmc does not schedule: states and counts may differ from run to run): using the replay executor" thr.f.err
ok "threaded target: and replays (no forks)" grep -q "executor fork: [1-9][0-9]* spawns, 0 forks" thr.f.err
# Replay chosen by hand runs it too, and says as much, once a run, also
# when two workers replay it.
is "threaded target: --exec replay says the counts may differ, once" \
	"$(grep -c "thr.scn: the target runs 2 threads, which cmc does not schedule: states and counts may differ from run to run$" thr.r.err)" 1
"$CMC" check --no-store --jobs 2 --exec replay thr.scn >/dev/null 2>thr.r2.err
is "threaded target: --exec replay --jobs 2 says it once" \
	"$(grep -c "the target runs 2 threads" thr.r2.err)" 1
is "single-threaded examples: replay says nothing of threads" \
	"$(cat $(ls ./*.r.err | grep -v '^./thr\.') | grep -c 'threads, which cmc')" 0

done_testing
