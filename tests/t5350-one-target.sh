#!/bin/sh
# t5350-one-target.sh — one target whatever the executor: the
# fork-snapshot executor and the replay executor start the same program
# in the same environment with the same descriptors, and taking a
# snapshot leaves nothing the program can observe, so every state has the
# same fingerprint under both, and under fork on every run.  Each case
# keeps in its heap (or a global) something that used to differ:
#   env     the environment and a stack address (fork targets had two more
#           variables, one of them cmc's pid);
#   stack   uninitialised stack bytes (the fork request's signal frame was
#           written on the target's stack; the preload's start-up left
#           cmc's pid there);
#   epoll   how often its event loop woke (a fork request woke it with
#           EINTR, once more than under replay);
#   eintr   a loop that ends on EINTR (it ended in every snapshot's child);
#   altstack an alternate signal stack of the program's own, observed (the
#           fork request's frame would land there).
# States are compared one by one (`cmc diff`), not only counted.
. "$CMC_TOP/tests/test-lib.sh"

PT=$CMC_TOP/$B/tests-helpers/proctarget

same() { # NAME SCN: replay, fork, fork again: one graph, the same fingerprints
	name=$1 scn=$2
	"$CMC" check --json --jobs 1 --exec replay --db "$name.db" "$scn" >"$name.r.json" 2>"$name.r.err"
	CMC_PROC_STATS=1 "$CMC" check --json --jobs 1 --exec fork --db "$name.db" "$scn" \
		>"$name.f.json" 2>"$name.f.err"
	"$CMC" check --json --jobs 1 --exec fork --db "$name.db" "$scn" >"$name.g.json" 2>"$name.g.err"
	ok "$name: fork snapshots were used" grep -q "executor fork: 1 spawns, [1-9][0-9]* forks" "$name.f.err"
	ok "$name: the run explored more than the initial state" test "$(json_get "$name.r.json" distinct)" -gt 2
	"$CMC" diff --db "$name.db" 1 2 >"$name.d12" 2>&1
	ok "$name: replay and fork reach the same states, fingerprint by fingerprint" \
		grep -q "the two graphs do not part" "$name.d12"
	"$CMC" diff --db "$name.db" 2 3 >"$name.d23" 2>&1
	ok "$name: two fork runs reach the same states" grep -q "the two graphs do not part" "$name.d23"
	json_untimed "$name.r.json" >"$name.r.cmp"
	json_untimed "$name.f.json" >"$name.f.cmp"
	ok "$name: identical --json under fork and replay" diff "$name.r.cmp" "$name.f.cmp"
}

printf 'target %s\nop env "env\\n"\nop inc "inc\\n"\ndepth 3\nhash raw\n' "$PT" >env.scn
same env env.scn
# (PT_SUM: the reply carries a checksum of the bytes too)
printf 'target %s\nenv PT_SUM=1\nop stack "stack\\n"\nop inc "inc\\n"\ndepth 3\nhash raw\n' "$PT" >stack.scn
same stack stack.scn
printf 'target %s --epoll --epoll-ms 1000\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 3\nraw symbol wakeups\nhash raw\n' \
	"$PT" >epoll.scn
same epoll epoll.scn
printf 'target %s --epoll\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 3\nraw symbol wakeups\nhash raw\n' \
	"$PT" >epoll-inf.scn
same epoll-inf epoll-inf.scn
printf 'target %s --poll-eintr\nop inc "inc\\n"\nop a "alloc 32\\n" once\ndepth 3\nraw heap\nraw symbol counter\nhash raw\n' \
	"$PT" >eintr.scn
same eintr eintr.scn
not_ok "eintr: no fall-back to replay" grep -q "fork snapshots unavailable" eintr.f.err
printf 'target %s --altstack\nop inc "inc\\n"\nop q "altq\\n"\ndepth 3\nraw symbol counter\nraw symbol altarea\nhash raw\nproperty reply q "ALT ok"\n' \
	"$PT" >alt.scn
same altstack alt.scn
ok "altstack: sigaltstack reports the program's own stack in every state (no violation)" \
	grep -q '"violations": \[\]' altstack.f.json

# A tcp server that keeps its environment in the heap (nginx does): the
# real port cmc chose, different in every process, is not in it.
NT=$CMC_TOP/$B/tests-helpers/nettarget
printf 'target %s {port} --keep-env --tick -1\ntransport tcp\nop a "a\\n"\nop b "b\\n"\ndepth 2\nhash raw\n' "$NT" >netenv.scn
same netenv netenv.scn

# The ids a process sees are the same in every process cmc starts and in
# every snapshot's child: its pid, its parent, its group and its session
# (mksh keeps its real process group in $PGRP).
printf 'target %s\nop inc "inc\\n"\nop ids "ids\\n"\ndepth 2\nraw symbol counter\nhash raw\nproperty reply ids "IDS 4242 1 4242 4242 4240"\n' \
	"$PT" >ids.scn
for ex in replay fork; do
	"$CMC" check --keep-going --no-store --exec $ex ids.scn >ids.$ex.out 2>&1
	is "ids under $ex: pid, parent, group and session are fixed" "$?" 0
done

done_testing
