#!/bin/sh
# t5396-state-files.sh — files as part of the state (issue 23): with
# `state-file PATH` / `state-dir PATH` a target's declared files join its
# identity (engine/proc/files.c), so a program that keeps its data on disk
# is not merged on its heap alone; the same counts and fingerprints under
# both executors; `cmc show` lists each file with its size and a short
# hash; bad paths are refused with file:line.  The target is
# tests/proc/filekv.c: a stdin key-value store whose heap never changes
# (no malloc, stdin read with read(2)), its data in data.txt or db/.
. "$CMC_TOP/tests/test-lib.sh"

KV=$CMC_TOP/$B/tests-helpers/filekv
fps() { sqlite3 "$1" 'SELECT fp FROM states ORDER BY fp'; }

cat >kv.scn <<SCN
target $KV
op "PUT a 1" "PUT a 1\n"
op "PUT a 2" "PUT a 2\n"
op "DEL a" "DEL a\n"
depth 3
SCN
{ cat kv.scn; echo "state-file data.txt"; } >kvf.scn

# ---- without the keyword: what cmc finds today ----------------------------------
# The heap never changes, so every state merges into the initial one: 1
# distinct state, 4 generated (the initial and its three successors).
"$CMC" check --exec replay --db plain.db kv.scn >plain.out 2>plain.err
is "no state-file: exit 0" "$?" 0
ok "no state-file: 1 distinct state, 4 generated (the files are not state)" \
	grep -q "^1 distinct state, 4 generated" plain.out
ok "no state-file: cmc says no state moved the heap" grep -q "every state had the raw fingerprint" plain.err

# ---- with state-file data.txt -------------------------------------------------
# 4 states: data.txt missing (initial), "a=1", "a=2", and empty after DEL
# (an empty file is not a missing one); 13 generated (1 + 3 x 4).
for e in replay fork; do
	"$CMC" check --exec $e --db kv-$e.db kvf.scn >kv-$e.out 2>kv-$e.err
	is "state-file, --exec $e: exit 0" "$?" 0
	ok "state-file, --exec $e: 4 distinct states, 13 generated" \
		grep -q "^4 distinct states, 13 generated" kv-$e.out
	not_ok "state-file, --exec $e: no 'raw fingerprint never moved' warning" \
		grep -q "every state had the raw fingerprint" kv-$e.err
done
ok "the summary says states with one heap differ by their state files" \
	grep -q "; 1 distinct heap (raw fingerprints): states with one heap differ by their declared state files" kv-replay.out
fps kv-replay.db >kv-replay.fps
fps kv-fork.db >kv-fork.fps
ok "state-file: the same 4 fingerprints under both executors" \
	sh -c 'test "$(wc -l <kv-replay.fps)" -eq 4 && cmp kv-replay.fps kv-fork.fps'
# --jobs 2 hands observations between threads (engine/parallel.c): the
# summaries must cross too.
"$CMC" check --jobs 2 --db kv-j2.db kvf.scn >kv-j2.out 2>/dev/null
ok "state-file, --jobs 2: the same 4 fingerprints" sh -c 'sqlite3 kv-j2.db "SELECT fp FROM states ORDER BY fp" | cmp - kv-fork.fps'
ok "state-file, --jobs 2: every state's files are stored" \
	sh -c 'for i in 0 1 2 3; do "$CMC" show --db kv-j2.db $i | grep -q "^state files      data.txt" || exit 1; done'
# PUT a 1 and PUT a 2 leave the same heap, different files: two states.
"$CMC" show --json --db kv-replay.db 1 >s1.json
"$CMC" show --json --db kv-replay.db 2 >s2.json
is "same heap after PUT a 1 and PUT a 2 (raw)" "$(json_get s1.json raw_fp)" "$(json_get s2.json raw_fp)"
ok "... but two states (fingerprints differ)" test "$(json_get s1.json fp)" != "$(json_get s2.json fp)"
# PUT a 2 then PUT a 1 leaves what PUT a 1 left: it merges into state 1.
ok "the same file merges: PUT a 2, PUT a 1 reaches state 1" \
	sh -c "grep -q '\"label\": \"PUT a 1\", \"to\": 1, \"new\": false' s2.json"
"$CMC" show --db kv-fork.db 0 >show0.out
ok "cmc show: a missing file says so" grep -q "^state files      data.txt  missing$" show0.out
"$CMC" show --db kv-fork.db 1 >show1.out
ok "cmc show: the file, its size and hash" grep -Eq "^state files      data.txt  4 bytes, xxh3 [0-9a-f]{16}$" show1.out
"$CMC" show --db kv-fork.db 3 >show3.out
ok "cmc show: DEL leaves an empty file, not a missing one" grep -q "^state files      data.txt  0 bytes" show3.out
ok "cmc show --json: state_files with path, kind, size, hash" \
	grep -Eq '"state_files": \[\{"path": "data.txt", "kind": "file", "size": 4, "hash": "[0-9a-f]{16}"\}\]' s1.json

# ---- state-dir: a directory of several files, one made and removed by ops ---------
mkdir -p seed/db/sub
printf x >seed/db/x.txt
printf yy >seed/db/sub/y.txt
ln -s /etc/passwd seed/db/out
echo not declared >seed/other.txt
cat >dir.scn <<SCN
target $KV dir
cwd seed
op "PUT a 1" "PUT a 1\n"
op "PUT b 1" "PUT b 1\n"
op "DEL a" "DEL a\n"
depth 3
SCN
"$CMC" check --no-store dir.scn >dir0.out 2>/dev/null
ok "no state-dir: 1 distinct state (the heap never changes)" grep -q "^1 distinct state, 4 generated" dir0.out
{ cat dir.scn; echo "state-dir db"; } >dird.scn
for e in replay fork; do
	"$CMC" check --exec $e --db dir-$e.db dird.scn >dir-$e.out 2>&1
	is "state-dir, --exec $e: exit 0" "$?" 0
	# {}, {a}, {b}, {a,b}: DEL a after PUT a is the initial state again
	ok "state-dir, --exec $e: 4 distinct states, 13 generated" \
		grep -q "^4 distinct states, 13 generated" dir-$e.out
done
fps dir-replay.db >dir-replay.fps
fps dir-fork.db >dir-fork.fps
ok "state-dir: the same fingerprints under both executors" cmp dir-replay.fps dir-fork.fps
"$CMC" show --db dir-fork.db 0 >d0.out
ok "cmc show: the dir, then its files in sorted order, the link not followed" \
	sh -c "sed -n '/^state files/,/^trace/p' d0.out | sed 's/, xxh3 .*//' >d0.files && printf '%s\n' \
	'state files      db/  directory' \
	'                 db/out  symlink, 11 bytes' \
	'                 db/sub/y.txt  2 bytes' \
	'                 db/x.txt  1 byte' 'trace (0 steps):' | cmp - d0.files"
ok "a file an op creates is listed" sh -c "$CMC show --db dir-fork.db 1 | grep -q '^                 db/a  1 byte'"
ok "a file an op removes is gone again: PUT a 1, DEL a is the initial state" \
	sh -c "$CMC show --json --db dir-fork.db 1 | grep -q '\"label\": \"DEL a\", \"to\": 0'"
# cmc compare --files A B: which declared files differ between two states.
# States: 0 {} (the seed's x.txt, sub/y.txt, out), 1 {a}, 2 {b}, 3 {a,b}.
"$CMC" compare --db dir-fork.db --files 0 3 >cf03.out 2>&1
is "compare --files 0 3: exit 0" "$?" 0
"$CMC" show --db dir-fork.db 3 >cf-s3.out
h=$(sed -n 's/.*db\/a  1 byte, xxh3 \([0-9a-f]*\)$/\1/p' cf-s3.out)
printf '%s\n' "run 1: declared files of states 0 and 3: 2 differ, 4 the same" "  db/a" "    A: absent" \
	"    B: 1 byte, xxh3 $h" >cf03.want
ok "compare --files 0 3: the first lines name db/a, absent in A, its size and hash in B" \
	sh -c 'test -n "'"$h"'" && head -4 cf03.out | cmp -s - cf03.want'

ok "compare --files 0 3: db/b too" sh -c "sed -n 5p cf03.out | grep -qx '  db/b'"
"$CMC" compare --db dir-fork.db --files 1 1 --json >cf11.json
ok "compare --files A A: nothing differs" grep -q '"differ_count": 0, "differ": \[\]' cf11.json
"$CMC" compare --db dir-fork.db --files 1 2 --json >cf12.json
ok "compare --files --json: a path in one state only is null in the other" \
	grep -q '"path": "db/a", "in_a": {"path": "db/a", "kind": "file", "size": 1, "hash": "[0-9a-f]*"}, "in_b": null}' cf12.json
"$CMC" compare --db kv-fork.db --files 0 1 >cfkv.out
ok "compare --files: a state-file missing in A, present in B" \
	sh -c "grep -qx '    A: missing' cfkv.out && grep -q '^    B: 4 bytes, xxh3 ' cfkv.out"
"$CMC" compare --db kv-fork.db --files 1 2 >cfkv12.out
ok "compare --files: one file, two contents (same size, other hash)" \
	sh -c "grep -q '1 differ, 0 the same' cfkv12.out && test \$(grep -c '4 bytes, xxh3' cfkv12.out) -eq 2"
"$CMC" compare --db kv-fork.db --files 1 99 >cfbad.out 2>&1
is "compare --files with a state the run lacks: exit 2" "$?" 2
ok "... saying which" grep -q "run 1 has no state 99" cfbad.out
"$CMC" compare --db kv-fork.db --files 1 >cfone.out 2>&1
is "compare --files with one state: a usage error" "$?" 2

# An empty directory below a state-dir is not seen, and walking it is no
# error (the walk once handed qsort a NULL list for it: the sanitizer
# build stopped there, and a crash scenario's durable image has such
# directories).
mkdir -p seed2/db/empty seed2/db/sub/deeper
printf x >seed2/db/x.txt
sed 's/^cwd seed$/cwd seed2/' dird.scn >empty.scn
"$CMC" check --no-store --json empty.scn >empty.json 2>empty.err
is "an empty directory below a state-dir: exit 0" "$?" 0
ok "... 4 distinct states, as without it" grep -q '"distinct": 4,' empty.json

# The same directory named by its absolute path inside the working directory.
{ cat dir.scn; echo "state-dir $(cd seed && pwd -P)/db/"; } >dirabs.scn
"$CMC" check --db dirabs.db dirabs.scn >dirabs.out 2>&1
ok "state-dir by an absolute path inside cwd: the same states" \
	sh -c 'grep -q "^4 distinct states, 13 generated" dirabs.out && fps() { sqlite3 "$1" "SELECT fp FROM states ORDER BY fp"; } && fps dirabs.db | cmp - dir-fork.fps'

# ---- the cap: more than state-cap is a limit fault, not a silent cut --------------
cat >cap.scn <<SCN
target $KV pad 4096
op "PUT a 1" "PUT a 1\n"
state-dir db
state-cap 1K
SCN
"$CMC" check --no-store cap.scn >cap.out 2>&1
is "state-cap exceeded: exit 1" "$?" 1
ok "state-cap exceeded: a limit fault naming the cap" grep -q "more than 1024 bytes in the declared state files (state-cap), at db/pad" cap.out

# ---- bad lines: file:line, exit 2 ---------------------------------------------
printf 'target %s\nop a "PUT a 1\\n"\nstate-file /etc/passwd\n' "$KV" >bad1.scn
"$CMC" check --no-store bad1.scn >bad1.out 2>&1
is "state-file /etc/passwd: exit 2" "$?" 2
ok "... naming file:line" grep -q "^cmc check: bad1.scn:3: expected 'state-file PATH' inside the target's working directory" bad1.out
printf 'target %s\nop a "PUT a 1\\n"\nstate-file ../x\n' "$KV" >bad2.scn
"$CMC" check --no-store bad2.scn >bad2.out 2>&1
is "state-file ../x: exit 2" "$?" 2
ok "... naming file:line and why" grep -q "bad2.scn:3: expected 'state-file PATH' inside the target's working directory, got '../x' ('..' leads out of it)" bad2.out
printf 'target %s\nop a "PUT a 1\\n"\nstate-dir a/../../x\n' "$KV" >bad3.scn
"$CMC" check --no-store bad3.scn >bad3.out 2>&1
is "state-dir a/../../x: exit 2" "$?" 2

done_testing
