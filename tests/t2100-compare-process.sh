#!/bin/sh
# t2100-compare-process.sh — `cmc compare` and `cmc diff` from the command
# line on real process runs of the list example (share/examples/list).
#
# Expected figures, derived from the scenario (not read off the output):
# keys 1, 2, 3 inserted in any order, each at most once, so with --hash both
# the raw states are the ordered selections of {1,2,3} (1 + 3 + 6 + 6 = 16)
# and the canonical ones its subsets (8): merge factor 16 / 8 = 2; a subset
# of k keys is reached in k! orders, each its own raw variant, and each
# variant's shortest trace is its order of insertion.  The two variants of
# {1,2} (INS 1, INS 2 and INS 2, INS 1) hold the same keys in nodes
# allocated in another order, so their raw snapshots differ in a few bytes;
# the count is checked against cmp(1) on the blobs sqlite3 reads from the
# store.  `cmc diff` is checked against the set difference of the canonical
# fingerprints each run's `cmc compare --json` lists.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null 2>&1 || { skip "compare on process runs" "sqlite3 CLI missing (TEST_DEPS installs it)"; done_testing; exit; }
export CMC_BIN="$CMC_TOP/$B"
LIST=$CMC_TOP/share/examples/list
db=$T/l.db
q() { sqlite3 "$db" "$1" 2>&1; }

"$CMC" check --db "$db" --hash both --json "$LIST/list.scn" >check.json 2>check.err
explored_or_stop $? check.json 16 check.err "the list example is explored"
distinct=$(json_get check.json distinct)
raw=$(json_get check.json raw_distinct)
canon=$(json_get check.json canonical_distinct)
is "check: 16 raw and 8 canonical fingerprints (ordered selections, subsets)" "$raw $canon" "16 8"

# ---- cmc compare, human -----------------------------------------------------
"$CMC" compare --db "$db" >cmp.txt 2>cmp.err
is "compare exits 0" $? 0
mf=$(awk -v r="$raw" -v c="$canon" 'BEGIN { printf "%.2f", r / c }')
ok "the head line: states, distinct raw, distinct canonical, merge factor $mf" \
	grep -q "^run 1: $distinct states, $raw distinct raw, $canon distinct canonical, merge factor $mf\$" cmp.txt
is "one block per canonical state" "$(grep -c '^canonical [0-9a-f]\{32\}: ' cmp.txt)" "$canon"
is "one line per raw variant" "$(grep -c '^  raw [0-9a-f]\{32\}  state ' cmp.txt)" "$raw"
is "every stored state is listed exactly once" \
	"$(sed -n 's/^  raw [0-9a-f]*  state \([0-9]*\) .*/\1/p' cmp.txt | sort -n | tr '\n' ' ')" \
	"$(seq 0 $((distinct - 1)) | tr '\n' ' ')"
# blocks.txt: one line per canonical block, "N_RAW|trace|trace|..." with the
# traces of its variants sorted.
awk '
	/^canonical / { if (h != "") print h "|" t; split($0, w, " "); h = w[3]; t = ""; n = 0; next }
	/^  raw / { s = $0; sub(/^  raw [0-9a-f]+  state [0-9]+ +/, "", s); tr[++n] = s
		    # sort the traces of this block (insertion sort, blocks are small)
		    for (i = n; i > 1 && tr[i - 1] > tr[i]; i--) { x = tr[i]; tr[i] = tr[i - 1]; tr[i - 1] = x }
		    t = ""; for (i = 1; i <= n; i++) t = t (i > 1 ? "|" : "") tr[i] }
	END { if (h != "") print h "|" t }' cmp.txt >blocks.txt
is "the {1,2} state: exactly two raw variants, INS 1 ; INS 2 and INS 2 ; INS 1" \
	"$(awk -F'|' '{ for (i = 2; i <= NF; i++) if ($i == "INS 1 ; INS 2") print }' blocks.txt)" \
	"2|INS 1 ; INS 2|INS 2 ; INS 1"
# the record: the keys as 8-byte little-endian words, escaped
rec12=$(awk '/^canonical /{ h = $0 } /  INS 1 ; INS 2$/{ print h }' cmp.txt | sed -n 's/.*, record //p')
is "... whose canonical record holds keys 1 and 2" "$rec12" \
	'"\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"'
is "the full set {1,2,3}: 3! = 6 variants, one per order" \
	"$(grep -F '|INS 1 ; INS 2 ; INS 3|' blocks.txt)" \
	"6|INS 1 ; INS 2 ; INS 3|INS 1 ; INS 3 ; INS 2|INS 2 ; INS 1 ; INS 3|INS 2 ; INS 3 ; INS 1|INS 3 ; INS 1 ; INS 2|INS 3 ; INS 2 ; INS 1"
ok "the empty set: one variant, the initial state" grep -qx '1|(initial)' blocks.txt
# every block: k keys inserted (trace length k) in k! orders, all distinct
bad=$(awk -F'|' '{ k = split($2, a, " ; "); if ($2 == "(initial)") k = 0
		  f = 1; for (i = 2; i <= k; i++) f *= i
		  if ($1 != f || NF - 1 != f) print $0
		  for (i = 2; i <= NF; i++) { if ($i in seen) print "dup " $i; seen[$i] }
		  for (i = 2; i <= NF; i++) { m = split($i, b, " ; "); if ($i == "(initial)") m = 0; if (m != k) print "len " $i } }' blocks.txt)
is "every canonical state of k keys has k! variants with distinct traces of k steps" "${bad:-none}" none
# each variant's trace and canonical fingerprint agree with `cmc show`
bad=
awk '/^canonical /{ c = substr($2, 1, 32) } /^  raw /{ s = $0; sub(/^  raw [0-9a-f]+  state [0-9]+ +/, "", s); print $4, c, $2, s }' cmp.txt >vars.txt
while read -r id c r tr; do
	"$CMC" show --db "$db" --json "$id" >s.json
	[ "$(json_get s.json canon_fp)" = "$c" ] || bad="$bad $id:canon"
	[ "$(json_get s.json raw_fp)" = "$r" ] || bad="$bad $id:raw"
	want=$(grep -o '"label": "[^"]*", "state"' s.json | sed 's/"label": "\(.*\)", "state"/\1/' | sed -n '1h;1!H;${x;s/\n/ ; /g;p}')
	[ "${want:-(initial)}" = "$tr" ] || bad="$bad $id:trace($tr/$want)"
done <vars.txt
is "each variant's fingerprints and trace are those cmc show reports" "${bad:-none}" none

# ---- cmc compare --json -------------------------------------------------------
"$CMC" compare --db "$db" --json >cmp.json
is "compare --json exits 0" $? 0
is "json: raw_distinct" "$(json_get cmp.json raw_distinct)" "$raw"
is "json: canon_distinct" "$(json_get cmp.json canon_distinct)" "$canon"
is "json: merge_factor" "$(json_get cmp.json merge_factor)" "$(awk -v r="$raw" -v c="$canon" 'BEGIN { printf "%.4f", r / c }')"
is "json: one entry per canonical state" "$(grep -c '{"canon": ' cmp.json)" "$canon"
is "json: the states of the entries sum to the run's" \
	"$(sed -n 's/.*"states": \([0-9]*\), "record".*/\1/p' cmp.json | awk '{ s += $1 } END { print s }')" "$(json_get cmp.json states)"
is "json: the raw variants listed sum to raw_distinct" "$(grep -o '{"raw": "' cmp.json | wc -l | tr -d ' ')" "$raw"
line12=$(grep -F '"trace": ["INS 1", "INS 2"]}' cmp.json)
is "json: the {1,2} entry has two states, two raw variants" \
	"$(echo "$line12" | sed -n 's/.*"states": \([0-9]*\), "record".*/\1/p') $(echo "$line12" | grep -o '{"raw": "' | wc -l | tr -d ' ')" "2 2"
is "json: ... traces INS 1, INS 2 and INS 2, INS 1" \
	"$(echo "$line12" | grep -o '"trace": \[[^]]*\]' | sort | tr '\n' ' ')" \
	'"trace": ["INS 1", "INS 2"] "trace": ["INS 2", "INS 1"] '
is "json and human output list the same (canonical, raw, state) triples" \
	"$(sed -n 's/.*{"canon": "\([0-9a-f]*\)".*/\1/p' cmp.json | sort | tr '\n' ' ')" \
	"$(cut -d' ' -f2 vars.txt | sort -u | tr '\n' ' ')"
is "json: the same state ids under the same raw fingerprints" \
	"$(grep -o '{"raw": "[0-9a-f]*", "state": [0-9]*' cmp.json | sed 's/{"raw": "\(.*\)", "state": \(.*\)/\2 \1/' | sort -n | tr '\n' ' ')" \
	"$(awk '{ print $1, $3 }' vars.txt | sort -n | tr '\n' ' ')"

# ---- cmc compare --bytes ------------------------------------------------------
set -- $(echo "$line12" | grep -o '"state": [0-9]*, "trace"' | sed 's/[^0-9]//g')
A=$1 B=$2
ok "the two variants of {1,2} are two states ($A, $B)" test -n "$A" -a -n "$B" -a "$A" != "$B"
# the stored snapshots, independently: sqlite3 writes the blobs out
blob_of() { "$CMC" show --db "$db" --json "$1" | sed -n 's/.*"raw_blob": "\([0-9a-f]*\)".*/\1/p'; }
q "SELECT writefile('a.bin', data) FROM blobs WHERE hash = X'$(blob_of "$A")'" >/dev/null
q "SELECT writefile('b.bin', data) FROM blobs WHERE hash = X'$(blob_of "$B")'" >/dev/null
cmp -l a.bin b.bin >cmp-l.txt
ndiff=$(wc -l <cmp-l.txt | tr -d ' ')
ok "sqlite3: the two raw snapshots are stored, same size, and differ ($ndiff bytes)" \
	test -s a.bin -a "$(wc -c <a.bin)" -eq "$(wc -c <b.bin)" -a "$ndiff" -gt 0

"$CMC" compare --db "$db" --bytes "$A" "$B" >bytes.txt 2>bytes.err
is "compare --bytes exits 0" $? 0
ok "it reports the differing bytes, as many as cmp counts" \
	grep -q "^run 1: raw snapshots of states $A ($(wc -c <a.bin | tr -d ' ') bytes) and $B ([0-9]* bytes): $ndiff $([ "$ndiff" = 1 ] && echo 'byte differs' || echo 'bytes differ')\$" bytes.txt
is "the hex rows are the 16-byte rows holding a difference, by offset" \
	"$(sed -n 's/^0x\([0-9a-f]\{8\}\) .*/\1/p' bytes.txt | tr '\n' ' ')" \
	"$(awk '{ printf "%08x\n", int(($1 - 1) / 16) * 16 }' cmp-l.txt | uniq | tr '\n' ' ')"
is "each differing byte is starred in both columns" "$(grep '^0x' bytes.txt | tr -cd '*' | wc -c | tr -d ' ')" "$((2 * ndiff))"
# the first differing byte: its value in A's and B's column, as cmp reads it
read -r off va vb <cmp-l.txt
row=$(printf '0x%08x' $(((off - 1) / 16 * 16)))
col=$(((off - 1) % 16))
got=$(grep "^$row " bytes.txt | awk -v c="$col" '{ print substr($0, 12 + 3 * c, 2), substr($0, 62 + 3 * c, 2) }')
is "the first difference shows A's and B's byte at its column" "$got" \
	"$(printf '%02x %02x' "$(printf '%d' "0$va")" "$(printf '%d' "0$vb")")"

"$CMC" compare --db "$db" --json --bytes "$A" "$B" >bytes.json
is "--bytes --json: bytes_differ" "$(json_get bytes.json bytes_differ)" "$ndiff"
is "--bytes --json: the ranges cover exactly the differing bytes" \
	"$(grep -o '{"offset": [0-9]*, "len": [0-9]*' bytes.json | sed 's/[^0-9 ]//g' |
		awk '{ for (i = 0; i < $2; i++) print $1 + i + 1 }' | tr '\n' ' ')" \
	"$(awk '{ print $1 }' cmp-l.txt | tr '\n' ' ')"
is "--bytes --json: lengths of both snapshots" "$(json_get bytes.json len_a) $(json_get bytes.json len_b)" \
	"$(wc -c <a.bin | tr -d ' ') $(wc -c <b.bin | tr -d ' ')"

"$CMC" compare --db "$db" --bytes "$A" "$A" >self.txt
is "a state against itself exits 0" $? 0
ok "... 0 bytes differ" grep -q "^run 1: raw snapshots of states $A .* and $A .*: 0 bytes differ\$" self.txt
not_ok "... and no hex rows" grep -q '^0x' self.txt
"$CMC" compare --db "$db" --json --bytes "$B" "$B" >self.json
is "... --json: bytes_differ 0, no ranges" "$(json_get self.json bytes_differ) $(grep -c '"ranges": \[\]' self.json)" "0 1"

"$CMC" compare --db "$db" --bytes "$A" "$distinct" >bad.out 2>bad.err
is "a state id past the last exits 2" $? 2
ok "... naming the state" grep -q "run 1 has no state $distinct" bad.err
not_ok "... printing no listing" grep -q 'bytes differ' bad.out
"$CMC" compare --db "$db" --bytes 99999 "$A" >/dev/null 2>bad.err
is "a bad first state id exits 2" $? 2
ok "... naming it" grep -q "no state 99999" bad.err
"$CMC" compare --db "$db" --bytes "$A" x >/dev/null 2>bad.err
is "a state id that is not a number exits 2" $? 2
ok "... with a usage message" grep -q -- '--bytes takes two state ids' bad.err
"$CMC" compare --db "$db" --bytes "$A" >/dev/null 2>bad.err
is "--bytes with one state exits 2" $? 2

# ---- cmc diff -----------------------------------------------------------------
# canon_set RUN: the canonical fingerprints `cmc compare --json RUN` lists.
canon_set() { "$CMC" compare --db "$db" --json "$1" | sed -n 's/.*{"canon": "\([0-9a-f]*\)".*/\1/p' | sort; }
# only_set FILE SIDE: the canonical fingerprints `cmc diff --json` lists on a side.
only_set() {
	case $2 in
	only_a) sed -n 's/.*"only_a": \(.*\)"only_b": .*/\1/p' "$1" ;;
	*) sed -n 's/.*"only_b": \(.*\)"parting": .*/\1/p' "$1" ;;
	esac | grep -o '"canon": "[0-9a-f]*"' | sed 's/.*"\([0-9a-f]*\)"/\1/' | sort
}
setminus() { comm -23 "$1" "$2" | tr '\n' ' '; }

# list-bug: the planted bug loses a key; the search stops at its first
# violation (INS 2, INS 1), before the level of three keys.
"$CMC" check --db "$db" --hash both --json "$LIST/list-bug.scn" >bug.json 2>/dev/null
is "list-bug: a violation (exit 1)" $? 1
canon_set 1 >c1.txt
canon_set 2 >c2.txt
"$CMC" diff --db "$db" --json 1 2 >diff12.json
is "diff list list-bug --json exits 0" $? 0
only_set diff12.json only_a >oa.txt
only_set diff12.json only_b >ob.txt
is "only in the list run: its canonical states the bug run did not reach" "$(tr '\n' ' ' <oa.txt)" "$(setminus c1.txt c2.txt)"
ok "... some ($(wc -l <oa.txt | tr -d ' '))" test -s oa.txt
is "only in the bug run: those the list run did not reach" "$(tr '\n' ' ' <ob.txt)" "$(setminus c2.txt c1.txt)"
is "... the count field agrees" \
	"$(sed -n 's/.*"only_a": {"run": 1, "count": \([0-9]*\).*/\1/p' diff12.json)" "$(wc -l <oa.txt | tr -d ' ')"
vtrace=$(sed -n 's/.*"violations": \[{[^]]*"trace": \[\([^]]*\)\].*/\1/p' bug.json)
is "the bug's counterexample is INS 2, INS 1" "$vtrace" '"INS 2", "INS 1"'
pf=$(sed -n 's/.*"parting": {"from_a": \([0-9]*\), .*"label": "\([^"]*\)".*/\1 \2/p' diff12.json)
from_trace=$("$CMC" show --db "$db" --json --run 1 "${pf%% *}" | grep -o '"label": "[^"]*", "state"' | sed 's/"label": \("[^"]*"\).*/\1/' | tr '\n' ',' | sed 's/,/, /g')
is "the graphs part on the counterexample's last step, after its first" "$from_trace\"${pf#* }\"" "$vtrace"
"$CMC" diff --db "$db" 1 2 >diff12.txt
ok "human: only in run 1, with the count" grep -q "^only in run 1: $(wc -l <oa.txt | tr -d ' ') canonical states\$" diff12.txt
bad=
for c in $(cat oa.txt); do grep -q "^  state [0-9]* *$c  INS" diff12.txt || bad="$bad $c"; done
is "human: each state only in run 1 listed with its trace" "${bad:-none}" none
ok "human: where the graphs part" grep -q "^the graphs first part at: from run 1 state ${pf%% *} / run 2 state [0-9]*, step ${pf#* } " diff12.txt

# fewer keys: keys 1 and 2 only; every canonical state holding key 3 is
# only in the three-key run, nothing only in the two-key run.
grep -v '"INS 3"' "$LIST/list.scn" >two.scn
"$CMC" check --db "$db" --hash both --json two.scn >two.json
is "two keys: 4 canonical states (the subsets of {1,2})" "$(json_get two.json canonical_distinct)" 4
canon_set 3 >c3.txt
"$CMC" diff --db "$db" --json 1 3 >diff13.json
only_set diff13.json only_a >oa.txt
only_set diff13.json only_b >ob.txt
is "diff 3 keys / 2 keys: only in the first, its states minus the second's" "$(tr '\n' ' ' <oa.txt)" "$(setminus c1.txt c3.txt)"
is "... $((canon - 4)) of them: the subsets holding key 3" "$(wc -l <oa.txt | tr -d ' ')" "$((canon - 4))"
is "... none only in the two-key run" "$(wc -l <ob.txt | tr -d ' ')" 0
ok "... every one reached through INS 3" sh -c "grep -o '\"trace\": \[[^]]*\]' '$T/diff13.json' | grep -v -q 'INS 3' && exit 1; exit 0"
ok "... they part at INS 3 from the initial state, which the two-key run cannot take" \
	grep -q '"parting": {"from_a": 0, "from_b": 0, "label": "INS 3", "to_a": [0-9]*, "to_b": null}' diff13.json
"$CMC" diff --db "$db" --json 3 1 >diff31.json
only_set diff31.json only_b >ob31.txt
is "diff the other way round: the same states, on the other side" "$(tr '\n' ' ' <ob31.txt)" "$(tr '\n' ' ' <oa.txt)"
"$CMC" diff --db "$db" 1 1 >same.txt
ok "diff of a run with itself: no parting" grep -q 'do not part' same.txt
"$CMC" diff --db "$db" 1 99 >/dev/null 2>err.txt
is "diff against a missing run exits 2" $? 2
ok "... naming it" grep -q 'no run 99' err.txt

# ---- compare by run after more runs ----------------------------------------------
"$CMC" compare --db "$db" 1 >cmp1.txt
ok "compare 1 still reports the list run, now not the latest" cmp -s cmp.txt cmp1.txt
"$CMC" compare --db "$db" --run 1 --bytes "$A" "$B" >bytes1.txt
ok "--run 1 --bytes: the same listing" cmp -s bytes.txt bytes1.txt
"$CMC" compare --db "$db" >cmp3.txt
ok "compare with no run: the latest (the two-key run)" grep -q "^run 3: $(json_get two.json distinct) states, $(json_get two.json raw_distinct) distinct raw, $(json_get two.json canonical_distinct) distinct canonical, " cmp3.txt
done_testing
