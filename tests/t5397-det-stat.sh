#!/bin/sh
# t5397-det-stat.sh — what the system says of a target's files and CPU
# time is the same on every run and under both executors
# (preload/detstat.c, detenv.c): stat()'s inodes and devices renumbered
# in the order first asked about (a pipe's inode, counted machine-wide,
# and the inode of a file in the target's fresh working directory, change
# on every run otherwise), its times at the virtual epoch, and
# getrusage(), times(), clock() on the virtual clock (calc kept real
# figures in its globals: t5382).  tests/proc/stattarget.c prints them.
. "$(dirname "$0")/test-lib.sh"
ST=$CMC_TOP/$B/tests-helpers/stattarget
printf 'target %s\nop STAT "STAT\\n"\nop CPU "CPU\\n"\ndepth 2\n' "$ST" >st.scn
printf '%s\n%s\n' 'property reply STAT "pipe ino 1 dev 256 | f ino 2 dev 257 mtime 1767225600 same"' \
	"$(cat st.scn)" >exact.scn
for ex in replay fork; do
	"$CMC" check --exec $ex --no-store exact.scn >exact-$ex.out 2>&1
	is "stat ($ex): the pipe and the file renumbered 1 and 2, devices 256 and 257, mtime the epoch" "$?" 0
done
replies() { # DB -> every stored state's reply, in id order
	n=$(sqlite3 "$1" 'SELECT count(*) FROM states')
	i=0
	while [ "$i" -lt "$n" ]; do
		"$CMC" show --db "$1" "$i" | grep '^reply'
		i=$((i + 1))
	done
}
for run in r1 r2 fork; do
	ex=replay
	[ $run = fork ] && ex=fork
	"$CMC" check --exec $ex --db st-$run.db st.scn >st-$run.out 2>&1
	is "STAT and CPU ($run): exit 0" "$?" 0
	replies st-$run.db >st-$run.replies
done
ok "CPU: getrusage, times and clock answer on the virtual clock" grep -q '^reply  *"cpu 0\.' st-r1.replies
ok "two runs: the same replies, state by state" cmp st-r1.replies st-r2.replies
ok "fork: replay's replies, state by state" cmp st-r1.replies st-fork.replies
done_testing
