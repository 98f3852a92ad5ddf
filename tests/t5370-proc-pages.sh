#!/bin/sh
# t5370-proc-pages.sh — the heap window hashed page by page
# (engine/proc/pages.c): a fork snapshot's child re-reads only the pages
# its operation changed, and still gets the fingerprint the replay
# executor computes from every byte.  On the heap-size target
# (tests/proc/heapsize.c), each operation changing one page, past raw-cap
# and within it:
#   - fork and replay store the same states with the same fingerprints,
#     state by state (tests/store/dumpstates.c), at several heap sizes;
#   - the fork executor took the incremental path (CMC_PROC_STATS counts
#     observations that reused cached page hashes), replay never did;
#   - the cross-check (CMC_CHECK_PAGES=1, on in CHECK >= 2 builds) agrees
#     on a correct run and fails loudly when a cached hash is made stale
#     (CMC_TEST_PAGES_STALE=1);
#   - the allocator's validators run when `property alloc` asks, and are
#     not run past raw-cap when nothing asks;
#   - a process run an older cmc stored (schema 7: raw fingerprints over
#     the heap as one stream) is migrated with runs.raw_scheme 1, and
#     --resume refuses it, saying why; a run of this cmc resumes.
. "$CMC_TOP/tests/test-lib.sh"

HS=$CMC_TOP/$B/tests-helpers/heapsize
DUMP=$CMC_TOP/$B/tests-helpers/store-dump

scn() { # H RAWCAP KEYS... -> a scenario on stdout
	h=$1 cap=$2
	shift 2
	printf 'target %s %s\ntransport stdin\nhash raw\nraw-cap %s\n' "$HS" "$h" "$cap"
	for k in "$@"; do printf 'op "SET %s" "SET %s\\n" once\n' "$k" "$k"; done
	printf 'op "CLR %s" "CLR %s\\n"\ndepth 3\n' "$1" "$1"
}

for c in "64K 4K 1 3 7 12" "1M 64K 2 100 200 255" "2M 1M 5 300 400 500"; do
	set -- $c
	name=h$1-c$2
	scn "$@" >"$name.scn"
	CMC_PROC_STATS=1 "$CMC" check --db "$name.r.db" --json --jobs 1 --exec replay "$name.scn" \
		>"$name.r.json" 2>"$name.r.err"
	rr=$?
	CMC_PROC_STATS=1 "$CMC" check --db "$name.f.db" --json --jobs 1 --exec fork "$name.scn" \
		>"$name.f.json" 2>"$name.f.err"
	rf=$?
	is "$name: both executors end alike ($rr)" "$rf" "$rr"
	"$DUMP" "$name.r.db" >"$name.r.states" 2>&1
	"$DUMP" "$name.f.db" >"$name.f.states" 2>&1
	ok "$name: states stored" test "$(wc -l <"$name.r.states")" -gt 10
	ok "$name: fork and replay agree state by state (trace, fingerprints)" \
		diff "$name.r.states" "$name.f.states"
	ok "$name: the fork executor reused cached page hashes" \
		grep -Eq "heap pages: [1-9][0-9]* observations incremental, .* [1-9][0-9]* reused" "$name.f.err"
	ok "$name: replay never does" grep -q "heap pages: 0 observations incremental" "$name.r.err"
done

# A pool of one snapshot: most states are made again by forking an
# ancestor and replaying the rest of their trace, then forked from
# themselves (exec_fork.c recreate()); the pages such a state wrote while
# replaying are shared with its children, and the cache it passes on must
# say what they hold (proc_pages_settle()).  Checked page by page, with
# page frame numbers hidden as they are from a cmc that is not root (with
# them, a changed page is also told by its new frame).
CMC_TEST_PAGES_NO_PFN=1 CMC_CHECK_PAGES=1 CMC_PROC_STATS=1 "$CMC" check --db pool1.db --json --jobs 1 --exec fork \
	--set snapshots=1 h2M-c1M.scn >pool1.json 2>pool1.err
is "pool of one: the run ends cleanly" "$?" 0
ok "pool of one: states were made again by replay" grep -Eq "ops \([1-9][0-9]* replayed\)" pool1.err
"$DUMP" pool1.db >pool1.states 2>&1
ok "pool of one: fork and replay agree state by state" diff h2M-c1M.r.states pool1.states

# The cross-check: quiet on a correct run, loud on a stale cache.
CMC_CHECK_PAGES=1 "$CMC" check --no-store --jobs 1 --exec fork h2M-c1M.scn >chk.out 2>chk.err
is "cross-check: a correct run passes" "$?" 0
not_ok "cross-check: nothing reported" grep -q "internal check failed" chk.err
CMC_CHECK_PAGES=1 CMC_TEST_PAGES_STALE=1 "$CMC" check --no-store --jobs 1 --exec fork h2M-c1M.scn \
	>stale.out 2>stale.err
rc=$?
ok "cross-check: a stale cached hash stops the run (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 1
ok "cross-check: and says which page" grep -q "internal check failed.*heap page .* pagemap entry said clean" stale.err

# The allocator check: past raw-cap only when property alloc asks.
"$CMC" show --db h2M-c1M.f.db --json 2 >alloc0.json 2>&1
not_ok "alloc: not checked past raw-cap without property alloc" grep -q '"alloc_checked"' alloc0.json
{ cat h2M-c1M.scn; echo "property alloc"; } >alloc1.scn
"$CMC" check --db alloc1.db --jobs 1 --exec fork alloc1.scn >/dev/null 2>&1
"$CMC" show --db alloc1.db --json 2 >alloc1.json 2>&1
ok "alloc: checked past raw-cap with property alloc" grep -q '"alloc_checked"' alloc1.json
sed 's/raw-cap 4K/raw-cap 1M/' h64K-c4K.scn >alloc2.scn
"$CMC" check --db alloc2.db --jobs 1 --exec fork alloc2.scn >/dev/null 2>&1
"$CMC" show --db alloc2.db --json 2 >alloc2.json 2>&1
ok "alloc: checked within raw-cap without asking" grep -q '"alloc_checked"' alloc2.json

# The stored meaning of raw fingerprints (store schema 8, runs.raw_scheme).
cp h64K-c4K.f.db new.db
sqlite3 new.db "UPDATE runs SET status = 'interrupted'"
"$CMC" check --db new.db --jobs 1 --exec fork --resume 1 h64K-c4K.scn >new.out 2>new.err
is "resume: a run of this cmc resumes" "$?" 0
cp h64K-c4K.f.db old.db
sqlite3 old.db "UPDATE runs SET status = 'interrupted'; ALTER TABLE runs DROP COLUMN raw_scheme;
	PRAGMA user_version = 7"
"$CMC" check --db old.db --jobs 1 --exec fork --resume 1 h64K-c4K.scn >old.out 2>old.err
rc=$?
ok "resume: an older cmc's process run is refused (exit $rc)" test "$rc" -eq 2
ok "resume: saying why" grep -q "cannot be resumed: an older cmc stored it, whose raw fingerprints" old.err
is "resume: the file was migrated, the run marked" "$(sqlite3 old.db 'PRAGMA user_version; SELECT raw_scheme FROM runs')" "9
1"

done_testing
