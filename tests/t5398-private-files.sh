#!/bin/sh
# t5398-private-files.sh — what a target keeps in open files, and the
# seeds it reads by the paths Debian's builds take, are the same on every
# run and under both executors.
#   - A fork snapshot's child shared its origin's open file descriptions:
#     one offset, and one copy of an unnamed file's contents (GNU ed keeps
#     its buffer in a tmpfile(): 103 states under fork, 95 under replay).
#     preload/snapfiles.c gives each child descriptions, and unnamed files,
#     of its own.
#   - A _FORTIFY_SOURCE build's open() with flags the compiler cannot see
#     is __open_2, and fopen() opens by libc's internal open: neither went
#     through the preload's open(), so /dev/urandom gave the machine's
#     bytes (perl: every fingerprint different on every run).
# tests/proc/filestarget.c does all of it.
. "$(dirname "$0")/test-lib.sh"
FT=$CMC_TOP/$B/tests-helpers/filestarget
{
	echo "target $FT"
	printf '%s\n' 'op "add a" "add a\n"' 'op "add b" "add b\n" once' 'op "count" "count\n"' \
		'op "mem" "mem xy\n"' 'hash raw' 'depth 3'
} >f.scn
fps() { sqlite3 "$1" 'SELECT depth, hex(fp) FROM states ORDER BY 2'; }
for run in "replay 1 r1" "replay 1 r2" "fork 1 f1" "fork 2 f2"; do
	set -- $run
	"$CMC" check --exec $1 --jobs $2 --db f-$3.db --json f.scn >f-$3.json 2>f-$3.err
	is "$3 ($1, --jobs $2): exit 0" "$?" 0
	fps f-$3.db >f-$3.fps
done
n=$(json_get f-r1.json distinct)
ok "the search reached more than the initial state ($n)" test "$n" -gt 20
ok "two replay runs: the same states" cmp f-r1.fps f-r2.fps
ok "fork (--jobs 1): replay's states" cmp f-r1.fps f-f1.fps
ok "fork (--jobs 2): replay's states" cmp f-r1.fps f-f2.fps
# The same with the memfd on a high descriptor (900): the fork child finds
# the program's files by scanning descriptor numbers (preload/procfd.c).
sed "s|^target .*|target $FT 900|" f.scn >h.scn
for run in "replay 1 hr" "fork 1 hf"; do
	set -- $run
	"$CMC" check --exec $1 --jobs $2 --db h-$3.db --json h.scn >h-$3.json 2>h-$3.err
	is "fd 900, $3 ($1): exit 0" "$?" 0
	fps h-$3.db >h-$3.fps
done
ok "fd 900: fork reaches replay's states" cmp h-hr.fps h-hf.fps
ok "fd 900: ... and they are those of fd 3 or so (mem's lengths)" cmp f-r1.fps h-hr.fps
# The seed: the deterministic environment's, the same on every run.
printf 'target %s\nop "seed" "seed\\n"\ndepth 1\n' "$FT" >s.scn
for run in a b; do
	"$CMC" check --exec replay --db s-$run.db s.scn >/dev/null 2>&1
	"$CMC" show --db s-$run.db 1 | grep '^reply' >s-$run.reply
done
ok "the seed from fopen and __open_2 is the same on two runs" cmp s-a.reply s-b.reply
ok "... and it is a seed" grep -Eq '"[0-9a-f]{32}' s-a.reply
done_testing
