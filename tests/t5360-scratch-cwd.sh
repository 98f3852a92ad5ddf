#!/bin/sh
# t5360-scratch-cwd.sh — files a target writes in its working directory
# belong to its run (issue 17): each target works on a copy of the
# scenario's `cwd`, seen at that path in a mount namespace of its own,
# removed with it.  A file one state's target wrote is not seen by another
# replayed state's, nor by a later run; the directory itself is left as it
# was, and no copy is left behind.  (Under fork snapshots the states of
# one start still share their copy: engine/proc_scratch.c.)
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
# own history's writes), more only if another state's target wrote it.
printf 'target %s\ncwd work\nop w1 "write one\\n"\nop w2 "write one\\n"\nop f "files\\n"\ndepth 3\nproperty reply w1 "SIZE [123]"\nproperty reply w2 "SIZE [123]"\nproperty reply f "FILES [23]"\n' \
	"$PT" >w.scn
"$CMC" check --keep-going --jobs 1 --exec replay --no-store --json w.scn >w1.json 2>w1.err
is "replay: no state sees another state's files (exit 0)" "$?" 0
"$CMC" check --keep-going --jobs 2 --exec replay --no-store --json w.scn >w2.json 2>w2.err
is "replay, two workers: no state sees another state's files (exit 0)" "$?" 0
json_untimed w1.json >w1.cmp
json_untimed w2.json >w2.cmp
ok "two runs: identical --json" diff w1.cmp w2.cmp
is "the directory is left as it was" "$(ls -A work | wc -l)" 0
is "no copy is left behind" "$(ls -A tmp | wc -l)" 0
# A later run, under fork snapshots, starts from the directory as it was.
printf 'target %s\ncwd work\nop f "files\\n"\ndepth 1\nproperty reply f "FILES 2"\n' "$PT" >f.scn
"$CMC" check --exec fork --no-store f.scn >f.out 2>&1
is "fork: a later run sees none of the earlier runs' files" "$?" 0
is "fork: no copy is left behind" "$(ls -A tmp | wc -l)" 0
done_testing
