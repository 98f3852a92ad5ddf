#!/bin/sh
# t6700-escapes.sh — nothing from outside cmc reaches the terminal raw: a
# scenario file whose name holds an OSC sequence (ESC ]0;...BEL sets a
# terminal's window title), a bad scenario line holding raw escape bytes,
# and `cmc replay --file` with a trace file so named, each under both
# executors.  cmc's stdout and stderr carry no control byte but newline and
# tab (tui/cli/escape.c filters both streams), and --json stays valid JSON with
# the bytes \u-escaped.
. "$(dirname "$0")/test-lib.sh"

PT=$CMC_TOP/$B/tests-helpers/proctarget
ESC=$(printf '\033') BEL=$(printf '\007')
OSC="${ESC}]0;PWNED${BEL}"

# No byte outside printable ASCII but tab and newline (C0, DEL, C1 and
# any other high byte are all escaped).
clean() { [ "$(LC_ALL=C tr -d '\11\12\40-\176' <"$1" | wc -c | tr -d ' ')" = 0 ]; }
# Both of a command's streams clean: WHAT OUT ERR.
both_clean() {
	ok "$1: stdout has no control byte" clean "$2"
	ok "$1: stderr has no control byte" clean "$3"
}

# 1. The scenario's file name (cmc's warnings and reports name it).
name="evil${OSC}.scn"
printf 'target %s\nop inc "inc\\n"\nop crash "crash\\n"\n' "$PT" >"$name"
for x in replay fork; do
	"$CMC" check --no-store --exec $x "$name" >name.$x.out 2>name.$x.err
	is "file name ($x): the crash is found" "$?" 1
	ok "file name ($x): the name is quoted, escaped" grep -q 'evil\\x1b]0;PWNED\\x07.scn' name.$x.err
	both_clean "file name ($x)" name.$x.out name.$x.err
	"$CMC" check --no-store --json --exec $x "$name" >name.$x.json 2>name.$x.jerr
	both_clean "file name --json ($x)" name.$x.json name.$x.jerr
	ok "file name --json ($x): the name \\u-escaped" grep -q 'evil\\u001b]0;PWNED\\u0007.scn' name.$x.json
	if command -v python3 >/dev/null; then
		ok "file name --json ($x): valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' name.$x.json
	fi
done
# A missing one: the error names it, escaped.
"$CMC" check --no-store "missing${OSC}.scn" >miss.out 2>miss.err
is "missing scenario: exit 2" "$?" 2
both_clean "missing scenario" miss.out miss.err

# 2. A scenario line quoted in an error: raw escape bytes in the key, in a
# value, and in a quoted op label's duplicate.
printf 'target %s\nop inc "inc\\n"\nfoo%s 1\n' "$PT" "$OSC" >key.scn
printf 'target %s\nop inc "inc\\n"\ndepth 1%s\n' "$PT" "$OSC" >val.scn
printf 'target %s\nop "a\\e]0;X\\a" "inc\\n"\nop "a\\e]0;X\\a" "inc\\n"\n' "$PT" >dup.scn
for s in key val dup; do
	for x in replay fork; do
		"$CMC" check --no-store --exec $x $s.scn >$s.$x.out 2>$s.$x.err
		is "bad line $s ($x): exit 2" "$?" 2
		ok "bad line $s ($x): file:line" grep -q "$s.scn:3: expected" $s.$x.err
		both_clean "bad line $s ($x)" $s.$x.out $s.$x.err
	done
done
ok "bad line: the quoted bytes are shown as \\xHH" grep -q "got 'foo\\\\x1b]0;PWNED\\\\x07'" key.replay.err

# 3. cmc replay --file: the trace file's name in a bad-line error and in a
# cannot-open error, and labels that hold escapes (a quoted op label).
printf 'target %s\nop "t\\e]0;X\\a" "crash\\n"\n' "$PT" >lab.scn
tf="trace${OSC}.txt"
printf 'init zz\n' >"$tf"
printf 't%s\n' "${ESC}]0;X${BEL}" >lab.trace
printf 'expect cr%sash\nt%s\n' "$OSC" "${ESC}]0;X${BEL}" >expect.trace
for x in replay fork; do
	"$CMC" replay --exec $x --file "$tf" lab.scn >tf.$x.out 2>tf.$x.err
	is "trace file name ($x): exit 2" "$?" 2
	ok "trace file name ($x): file:line" grep -q 'trace\\x1b]0;PWNED\\x07.txt:1: expected' tf.$x.err
	both_clean "trace file name ($x)" tf.$x.out tf.$x.err
	"$CMC" replay --exec $x --file "nothere${OSC}" lab.scn >nf.$x.out 2>nf.$x.err
	is "missing trace file ($x): exit 2" "$?" 2
	both_clean "missing trace file ($x)" nf.$x.out nf.$x.err
	"$CMC" replay --exec $x --file lab.trace lab.scn >lab.$x.out 2>lab.$x.err
	is "escaped labels ($x): the crash reproduces" "$?" 1
	both_clean "escaped labels ($x)" lab.$x.out lab.$x.err
	"$CMC" replay --exec $x --file expect.trace lab.scn >ex.$x.out 2>ex.$x.err
	both_clean "expect line ($x)" ex.$x.out ex.$x.err
	"$CMC" replay --json --exec $x --file lab.trace lab.scn >lab.$x.json 2>lab.$x.jerr
	both_clean "escaped labels --json ($x)" lab.$x.json lab.$x.jerr
	if command -v python3 >/dev/null; then
		ok "escaped labels --json ($x): valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' lab.$x.json
	fi
done

# 4. A crafted database: a run's search order holds a quote and escapes;
# `cmc runs --json` stays valid JSON, `cmc runs` clean.
if command -v sqlite3 >/dev/null; then
	"$CMC" check --db c.db lab.scn >/dev/null 2>&1
	sqlite3 c.db "UPDATE runs SET search_order = 'x\"' || char(27) || ']0;Y' || char(7)" 2>sq.err
	if [ -s sq.err ]; then
		skip "crafted database" "cannot edit the runs table: $(head -n 1 sq.err)"
	else
		"$CMC" runs --db c.db >runs.out 2>runs.err
		both_clean "crafted runs" runs.out runs.err
		"$CMC" runs --json --db c.db >runs.json 2>runs.jerr
		both_clean "crafted runs --json" runs.json runs.jerr
		if command -v python3 >/dev/null; then
			ok "crafted runs --json: valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' runs.json
		fi
	fi
else
	skip "crafted database" "no sqlite3 program"
fi

done_testing
