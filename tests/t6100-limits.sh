#!/bin/sh
# t6100-limits.sh — resource limits on targets (scenario `limit KIND VALUE`,
# engine/proc/limits.c): each breach is a `limit` fault with its trace
# [a, evil] (the hostile target misbehaves on evil after a), and nothing the
# target started is left running.  The process cap needs cgroups (root and
# the v1 pids controller): without them that part is skipped, said why.
. "$(dirname "$0")/test-lib.sh"

HB=$CMC_TOP/$B/examples/hostile/hostile
if [ ! -x "$HB" ]; then
	skip "limits" "$B/examples/hostile/hostile is not built"
	done_testing
	exit
fi
alive() {
	n=0
	for p in $(cat hostile.pids 2>/dev/null); do
		[ -r /proc/$p/stat ] || continue
		st=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)
		[ "$st" = Z ] || n=$((n + 1))
	done
	echo $n
}
# A target works on a copy of its scenario's cwd: this one's hostile.pids
# and hostile.big are symbolic links to ours, so what the target writes
# there lands here, whichever copy it runs in.
mkdir tcwd && ln -s "$T/hostile.pids" tcwd/hostile.pids && ln -s "$T/hostile.big" tcwd/hostile.big
scn() { # NAME MODE LIMIT-LINES...
	name=$1 mode=$2
	shift 2
	{
		echo "target $HB $mode"
		printf 'op a "a\\n" once\nop evil "evil\\n" once\ntimeout %s\n' "${TO:-5000}"
		for l in "$@"; do echo "$l"; done
		echo "cwd $T/tcwd"
	} >"$name.scn"
}
trace_re='"property": "limit", "message": .*, "state": [0-9]*, "trace": \["a", "evil"\]'

# File size: SIGXFSZ at the limit, reported as `limit`, the file cut there.
scn fsize bigfile "limit fsize 1M"
rm -f hostile.pids hostile.big
timeout 60 "$CMC" check --json --no-store fsize.scn >fsize.json 2>fsize.err
is "fsize: exit 1" "$?" 1
ok "fsize: a limit fault with the trace [a, evil]" grep -q "$trace_re" fsize.json
ok "fsize: the message names the limit" grep -q 'limit fsize' fsize.json
is "fsize: the file stopped at the limit (1M = 1048576 bytes)" "$(wc -c <hostile.big | tr -d ' ')" 1048576
is "fsize: no process left" "$(alive)" 0

# Address space: the default limit (16G) refuses a 64 GiB mapping; the
# preload reports the refusal, and the abort() it leads to is reported as
# the limit's, not as a crash.  Under both executors.  With a limit that
# allows it, the same target maps it and goes on.
scn as bigmap
for ex in replay fork; do
	rm -f hostile.pids
	timeout 60 "$CMC" check --exec $ex --json --no-store as.scn >as-$ex.json 2>as-$ex.err
	is "as ($ex): exit 1" "$?" 1
	ok "as ($ex): a limit fault with the trace [a, evil]" grep -q "$trace_re" as-$ex.json
	ok "as ($ex): the message names the limit and the refused size" \
		grep -q 'address-space limit of 17179869184 bytes (limit as) refused the target a mapping of 68719476736 bytes' as-$ex.json
	ok "as ($ex): ... and the abort it led to" grep -q 'then died on signal 6' as-$ex.json
	is "as ($ex): no process left" "$(alive)" 0
done
scn as-ok bigmap "limit as 128G"
timeout 60 "$CMC" check --json --no-store as-ok.scn >as-ok.json 2>as-ok.err
is "as: with room for the mapping, no violation" "$?" 0

# CPU time: SIGXCPU after 1 s of CPU.  The per-op timeout is wall time,
# so it is long here (60 s): on a loaded machine the spinning target gets
# its second of CPU late, and a 5 s timeout once fired first (a timeout
# fault, not the limit's).
TO=60000; scn cpu spin "limit cpu 1"; TO=
rm -f hostile.pids
timeout 120 "$CMC" check --json --no-store cpu.scn >cpu.json 2>cpu.err
is "cpu: exit 1" "$?" 1
ok "cpu: a limit fault with the trace [a, evil]" grep -q "$trace_re" cpu.json
ok "cpu: the message names the limit" grep -q 'limit cpu' cpu.json
is "cpu: no process left" "$(alive)" 0

# Processes: a fork bomb under `limit procs 8`.
pids_mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ {print $2; exit}' /proc/self/mounts)
if [ "$(id -u)" != 0 ] || [ -z "$pids_mnt" ] || [ -n "${CMC_NO_CGROUP:-}" ]; then
	skip "procs: fork bomb capped" "needs root and the cgroup v1 pids controller (RLIMIT_NPROC is per user; root ignores it)"
else
	scn procs forkbomb "limit procs 8"
	rm -f hostile.pids
	timeout 60 "$CMC" check --json --db p.db procs.scn >procs.json 2>procs.err
	is "procs: exit 1" "$?" 1
	ok "procs: a limit fault with the trace [a, evil]" grep -q "$trace_re" procs.json
	ok "procs: the message names the limit" grep -q 'limit procs' procs.json
	# pids.max 8 counts the target itself: 7 children, then fork fails.
	"$CMC" show --db p.db 3 >show.txt 2>&1
	ok "procs: the target could fork 7 children (8 minus itself)" grep -q 'reply .*"OK forked 7\\n"' show.txt
	is "procs: none of the 7 (nor the target) is left" "$(alive)" 0
	# A fork child that cannot get into its jail by itself (the preload's
	# test switch) waits until cmc has moved it, though its operation's
	# input is in its channel already: the cap counts the same 7.
	scn procs-m forkbomb "limit procs 8" "env CMC_SNAP_NO_SELF_MOVE=1"
	rm -f hostile.pids
	timeout 60 "$CMC" check --exec fork --json --db pm.db procs-m.scn >procs-m.json 2>procs-m.err
	is "procs, moved from outside: exit 1" "$?" 1
	ok "procs, moved from outside: served by fork snapshots" sh -c '! grep -q unavailable procs-m.err'
	"$CMC" show --db pm.db 3 >show-m.txt 2>&1
	ok "procs, moved from outside: 7 children again" grep -q 'reply .*"OK forked 7\\n"' show-m.txt
	is "procs, moved from outside: none left" "$(alive)" 0
fi

# Containment: a target runs in a cgroup of cmc's own (cmc-PID/tN), a
# fork-snapshot child from its first instruction (started there with
# CLONE_INTO_CGROUP, or moving itself in before it runs the target's
# code), on one hierarchy: the v1 pids controller where it is mounted
# (cap and scope at once), else cgroup v2.  proctarget answers `cgroup`
# with the hierarchy and path; state 3 is [inc, cg]: a child of a child
# of the root.
# CMC_CGROUP=v2 puts the jail on v2 where both are mounted: each one the
# machine has is checked.
PTG=$CMC_TOP/$B/tests-helpers/proctarget
hiers=
[ -n "$pids_mnt" ] && hiers=pids
awk '$3 == "cgroup2" {f = 1} END {exit !f}' /proc/self/mounts && hiers="$hiers v2"
if [ "$(id -u)" != 0 ] || [ -n "${CMC_NO_CGROUP:-}" ] || [ -z "$hiers" ]; then
	skip "cgroup jail" "needs root and the v1 pids controller or a cgroup v2 mount"
else
	printf 'target %s\nop inc "inc\\n" once\nop cg "cgroup\\n" once\n' "$PTG" >cg.scn
	for hier in $hiers; do
		pref=
		[ $hier = v2 ] && pref=v2
		for ex in fork replay; do
			CMC_CGROUP=$pref "$CMC" check --exec $ex --db cg-$hier-$ex.db cg.scn >/dev/null 2>cg-$ex.err
			is "cgroup jail on $hier ($ex): exit 0" "$?" 0
			"$CMC" show --db cg-$hier-$ex.db 3 >cg-$ex.txt 2>&1
			ok "cgroup jail on $hier ($ex): the target after [inc, cg] ran in cmc's jail there" \
				grep -q "reply  *\"CG $hier /\\(.*/\\)\\{0,1\\}cmc-[0-9]*/t[0-9]*\\\\n\"" cg-$ex.txt
		done
		ok "cgroup jail on $hier (fork): served by fork snapshots" sh -c '! grep -q unavailable cg-fork.err'
	done
fi

# The scenario keys: bad values are input errors naming file:line.
scn bad1 bigfile "limit fsize lots"
"$CMC" check --no-store bad1.scn >/dev/null 2>bad1.err
is "bad value: exit 2" "$?" 2
ok "bad value: file:line and what was expected" grep -q "bad1.scn:5: expected 'limit fsize BYTES' or 'none', got 'lots'" bad1.err
scn bad2 bigfile "limit stack 1M"
"$CMC" check --no-store bad2.scn >/dev/null 2>bad2.err
is "unknown kind: exit 2" "$?" 2
ok "unknown kind: names the kinds" grep -q "bad2.scn:5: expected 'limit as|fsize|cpu|procs VALUE|none'" bad2.err
scn bad3 bigfile "heap-size 64M" "limit as 32M"
"$CMC" check --no-store bad3.scn >/dev/null 2>bad3.err
is "address space below the heap: exit 2" "$?" 2
ok "address space below the heap: says why" grep -q "expected 'limit as' above heap-size" bad3.err
# `none` lifts a limit: the same bigfile run without the cap writes its 1 GiB?
# No — 1 GiB is the default cap; lifting it is only parsed here.
scn none bigfile "limit fsize none" "limit cpu none" "limit procs none" "limit as none"
ok "'none' is accepted for every kind" "$CMC" check --no-store --max-depth 1 none.scn
done_testing
