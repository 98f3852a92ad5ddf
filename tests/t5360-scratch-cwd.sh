#!/bin/sh
# t5360-scratch-cwd.sh — files a target writes in its working directory
# belong to its run: each target works on a copy of the
# scenario's `cwd`, seen at that path in a mount namespace of its own,
# removed with it.  A file one state's target wrote is not seen by another
# replayed state's, nor by a later run; the directory itself is left as it
# was, and no copy is left behind.  Under fork snapshots each child works
# on a copy of its origin's (engine/proc/scratch.c), so siblings never see
# each other's files either.
. "$CMC_TOP/tests/test-lib.sh"

PT=$CMC_TOP/$B/tests-helpers/proctarget
if ! unshare -m true 2>/dev/null; then
	skip "working directories of their own" "no mount namespaces here (unshare -m fails)"
	done_testing
	exit
fi
mkdir -p work tmp
export TMPDIR=$T/tmp
# `write` answers the file's size: in a state of depth d at most d (its
# own history's writes), more only if another state's target wrote it;
# `files` answers how many entries the directory has: 2 or 3 (".", ".."
# and "one" once this state's history wrote it).  Each write also counts
# (inc), so the states differ and the search goes on past them.
printf 'target %s\ncwd work\nop w1 "inc\\nwrite one\\n"\nop w2 "inc\\nwrite one\\n"\nop f "files\\n"\ndepth 3\nraw symbol counter\nproperty reply w1 "OK\\nSIZE [123]"\nproperty reply w2 "OK\\nSIZE [123]"\nproperty reply f "FILES [23]"\n' \
	"$PT" >w.scn
for ex in replay fork; do
	for jobs in 1 2; do
		CMC_PROC_STATS=1 "$CMC" check --keep-going --jobs $jobs --exec $ex --no-store --json w.scn \
			>w.$ex.$jobs.json 2>w.$ex.$jobs.err
		is "$ex, $jobs worker(s): no state sees another state's files (exit 0)" "$?" 0
		json_untimed w.$ex.$jobs.json >w.$ex.$jobs.cmp
	done
	is "$ex: the directory is left as it was" "$(ls -A work | wc -l)" 0
	is "$ex: no copy is left behind" "$(ls -A tmp | wc -l)" 0
done
ok "the fork executor forked" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" w.fork.1.err
# A child's copy goes to the next child once its target is gone, emptied,
# with the mount namespace cmc made for it (engine/proc/scratchns.c): the
# searches above judged that no state sees a file an earlier holder wrote.
ok "the fork executor handed copies on, with their namespaces" \
	grep -q "working directories: [1-9][0-9]* copies made, [1-9][0-9]* with a namespace made ahead, [1-9][0-9]* handed on" w.fork.1.err
ok "replay, one worker and two: identical --json" diff w.replay.1.cmp w.replay.2.cmp
ok "replay and fork: identical --json" diff w.replay.1.cmp w.fork.1.cmp
ok "fork, one worker and two: identical --json" diff w.fork.1.cmp w.fork.2.cmp
# fork_as_replay NAME WHAT: NAME.scn under both executors, one worker,
# keeping going: each exits 0 (WHAT held in every state), and both say the
# same (--json).
fork_as_replay() {
	for ex in replay fork; do
		CMC_PROC_STATS=1 "$CMC" check --keep-going --jobs 1 --exec $ex --no-store --json "$1.scn" \
			>"$1.$ex.json" 2>"$1.$ex.err"
		is "$ex: $2 (exit 0)" "$?" 0
		json_untimed "$1.$ex.json" >"$1.$ex.cmp"
	done
	ok "$1: identical --json under fork and replay" diff "$1.replay.cmp" "$1.fork.cmp"
}
# A file held open across operations, written through the descriptor and
# through a shared mapping: a fork child reopens and maps it anew on its
# own copy, so neither count goes past the depth.
printf 'target %s --hold f --map g\ncwd work\nop hw "inc\\nhw\\n"\nop mw "inc\\nmw\\n"\ndepth 3\nraw symbol counter\nproperty reply hw "OK\\nSIZE [123]"\nproperty reply mw "OK\\nMAPPED [123] OWN"\n' \
	"$PT" >held.scn
fork_as_replay held "a file held open is the state's own, through its fd and its mapping"
ok "held: the fork executor forked" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" held.fork.err
# The same mapping where histories do not merge (x adds 5 to the counter,
# mw 1): a child that writes through the mapping of its origin's file
# (not mapped again on its copy) shows in a sibling's count (SHARED).
printf 'target %s --map g\ncwd work\nop mw "inc\\nmw\\n"\nop x "inc\\ninc\\ninc\\ninc\\ninc\\n"\ndepth 4\nraw symbol counter\nproperty reply mw "OK\\nMAPPED * OWN"\n' \
	"$PT" >mapped.scn
fork_as_replay mapped "a shared mapping of a file in the directory is each state's own"
# A child enters the namespace cmc made for it: its working directory is
# the one its origin had, under the copy or elsewhere.
printf 'target %s\ncwd work\nop out "inc\\ncd /proc\\n" once\nop back "inc\\ncd %s\\n" once\nop where "pwd\\n"\nop w "inc\\nwrite two\\n" once\ndepth 4\nraw symbol counter\nproperty reply where "PWD /?*"\n' \
	"$PT" "$T/work" >pwd.scn
fork_as_replay pwd "a child keeps its origin's working directory"
# A fork child that exits during its operation takes a while to end (its
# mount namespace is torn down first): its /proc files may be gone before
# cmc opens them.  cmc waits for its end instead of killing it, which made
# the kernel report SIGKILL instead of its exit status (a false crash in 8
# of 20 runs with two workers) or fell back to replay.
printf 'target %s\nop inc "inc\\n" once\nop quit "exit 3\\n" once\n' "$PT" >quit.scn
bad=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$CMC" check --exec fork --jobs 2 --no-store quit.scn >quit.out 2>&1 || bad=$((bad + 1))
	grep -q "unavailable" quit.out && bad=$((bad + 1))
done
is "a child that exits during its operation: ten runs, no false crash, no fall-back" "$bad" 0
# A later run starts from the directory as it was.
printf 'target %s\ncwd work\nop f "files\\n"\ndepth 1\nproperty reply f "FILES 2"\n' "$PT" >f.scn
"$CMC" check --exec fork --no-store f.scn >f.out 2>&1
is "a later run sees none of the earlier runs' files" "$?" 0
is "no copy is left behind" "$(ls -A tmp | wc -l)" 0
# A cmc killed outright leaves its copies; the next one removes them.
mkfifo ready
printf 'target %s\ncwd work\nop hang "hang\\n"\ntimeout 20000\nenv PT_READY=%s/ready\nenv PT_HOLD=%s/ready\n' \
	"$PT" "$T" "$T" >hang.scn
"$CMC" check --no-store hang.scn >/dev/null 2>&1 &
cpid=$!
timeout 20 sh -c 'read x <ready'
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
ok "a cmc killed outright leaves its copy" test "$(ls -A tmp | wc -l)" -gt 0
"$CMC" check --exec fork --no-store f.scn >f.out 2>&1
is "... which the next cmc removes" "$(ls -A tmp | wc -l)" 0
# A cmc that sees no other (in a pid namespace of its own) must not take a
# running cmc's copies for a dead one's: they were swept from under its
# targets ("cannot execute target: No such file or directory").
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	"$CMC" check --no-store hang.scn >/dev/null 2>&1 &
	cpid=$!
	timeout 20 sh -c 'read x <ready'
	unshare --pid --fork --mount-proc "$CMC" check --exec fork --no-store f.scn >f.out 2>&1
	is "a cmc in another pid namespace runs" "$?" 0
	ok "... and leaves a running cmc's copy alone" sh -c "ls -d tmp/cmc-cwd.$cpid-* >/dev/null 2>&1"
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	"$CMC" check --exec fork --no-store f.scn >f.out 2>&1
	is "... which is removed once that cmc is gone" "$(ls -A tmp | wc -l)" 0
else
	skip "sweeping from another pid namespace" "unshare --pid is refused here (not root?)"
fi
done_testing
