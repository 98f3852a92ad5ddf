#!/bin/sh
# t5010-proc-scenario.sh — the scenario parser: every bad line is reported as
# file:line with what was expected, and cmc exits 2; good scenarios with
# comments, escapes and relative paths load.
. "$CMC_TOP/tests/test-lib.sh"

PT=$CMC_TOP/$B/tests-helpers/proctarget

# bad NAME LINE EXPECTED-TEXT: the scenario in file NAME fails at LINE
bad() {
	"$CMC" check "$1" >out 2>err
	rc=$?
	is "$1: exit 2" "$rc" 2
	ok "$1: names $1:$2 and says '$3'" grep -q "$1:$2: .*$3" err
}

printf '# no target\nop a "x\\n"\n' >notarget.scn
"$CMC" check notarget.scn >out 2>err
is "no target: exit 2" "$?" 2
ok "no target: says a target line is expected" grep -q "notarget.scn: expected a 'target" err

printf 'target %s\n\n# comment\nop a "x\\q"\n' "$PT" >esc.scn
bad esc.scn 4 "expected a C escape"
printf 'target %s\nop a "unterminated\n' "$PT" >quote.scn
bad quote.scn 2 "expected a closing"
printf 'target %s\nop a "x\\n" sometimes\n' "$PT" >once.scn
bad once.scn 2 "expected 'once' or 'repeat'"
printf 'target %s\nop a "x\\n"\nop a "y\\n"\n' "$PT" >dup.scn
bad dup.scn 3 "already defined"
printf 'target %s\nop a "x\\n"\nhash fuzzy\n' "$PT" >hash.scn
bad hash.scn 3 "expected 'hash raw|canonical|both"
printf 'target %s\nop a "x\\n"\ntransport udp\n' "$PT" >tr.scn
bad tr.scn 3 "expected 'transport stdin|tcp'"
printf 'target %s\nop a "x\\n"\ntimeout soon\n' "$PT" >to.scn
bad to.scn 3 "expected 'timeout MS'"
printf 'target %s\nop a "x\\n"\nfrobnicate 1\n' "$PT" >key.scn
bad key.scn 3 "expected a setting"
printf 'target %s\nop a "x\\n"\nproperty reply a\n' "$PT" >prop.scn
bad prop.scn 3 "expected 'property reply LABEL PATTERN'"
printf 'target %s\nop a "x\\n"\nplugin nothere.so\n' "$PT" >plug.scn
bad plug.scn 3 "expected a readable plugin"
printf 'target ./no-such-program\nop a "x\\n"\n' >missing.scn
bad missing.scn 1 "expected an executable target, './no-such-program' was not found"
printf 'target %s\nop a "x\\n"\nraw symbol no_such_symbol\n' "$PT" >sym.scn
"$CMC" check sym.scn >out 2>err
is "unknown raw symbol: exit 2" "$?" 2
ok "unknown raw symbol: named" grep -q "raw symbol 'no_such_symbol' not found" err
printf 'target ${CMC_NO_SUCH_VARIABLE}/x\nop a "x\\n"\n' >var.scn
bad var.scn 1 "expected environment variable CMC_NO_SUCH_VARIABLE"

# A target path relative to the scenario's directory; comments; escapes
# (\x69 is 'i'); `depth` counts operations.
mkdir -p sub/bin
cp "$PT" sub/bin/pt
cat >sub/rel.scn <<'SCN'
# a comment line
target bin/pt    # a trailing comment
transport stdin

op inc "\x69nc\n"      # repeatable
raw symbol counter
hash raw
depth 3
SCN
"$CMC" check --json sub/rel.scn >rel.json 2>rel.err
is "relative target: runs" "$?" 0
# counter = 0..3 along the only path: 4 distinct states in 4 levels.
is "relative target: counter 0..3 is 4 distinct states" "$(json_get rel.json distinct)" 4
is "depth 3 means 3 operations (4 engine levels)" "$(json_get rel.json depth)" 4
"$CMC" check --json --set depth=5 sub/rel.scn >rel5.json 2>/dev/null
is "--set depth=5 overrides the scenario" "$(json_get rel5.json distinct)" 6
"$CMC" check --hash fuzzy sub/rel.scn >out 2>err
is "--hash fuzzy: exit 2" "$?" 2

# A raw identity that sees none of the state: bss keeps its set in a
# global array, and without `raw symbol bss_present` raw hashing reads the
# heap alone, which never changes.  cmc says so (Python's own arenas are
# the common case); with the symbol, or for a heap target, it does not.
export CMC_BIN="$CMC_TOP/$B"
grep -v '^raw symbol' "$CMC_TOP/share/examples/bss/bss.scn" >bss-heap.scn
for j in 1 2; do
	"$CMC" check --no-store --json --jobs $j bss-heap.scn >bh.json 2>bh.err
	ok "state outside the heap (--jobs $j): cmc says every state had the initial raw fingerprint" \
		grep -q "every state had the raw fingerprint of the initial one" bh.err
	is "... (--jobs $j) and merges what it cannot tell apart" "$(json_get bh.json raw_distinct)" 1
done
"$CMC" check --no-store "$CMC_TOP/share/examples/bss/bss.scn" >/dev/null 2>b.err
not_ok "with raw symbol bss_present: no such note" grep -q "every state had" b.err
"$CMC" check --no-store "$CMC_TOP/share/examples/list/list.scn" >/dev/null 2>l.err
not_ok "a heap target: no such note" grep -q "every state had" l.err

done_testing
