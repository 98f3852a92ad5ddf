#!/bin/sh
# t1530-leak.sh — memory still live at exit (INV-23), reported by the
# preload from its destructor and judged by `property leak`:
#   share/examples/heapbugs/leak: a second OPEN drops the first buffer, so
#   OPEN 1, OPEN 2, QUIT is the shortest trace to a lost block (QUIT alone,
#   or OPEN, CLOSE, OPEN, QUIT, lose nothing); its start-up block stays
#   reachable from a global, which `leak` accepts and `leak reachable`
#   reports at once (trace QUIT).
# A stdio target (fgets/printf: stdin and stdout buffers held by libc) that
# frees everything it owns exits clean under `leak reachable`: the C
# runtime's own blocks are told apart.  A forged exit report is a protocol fault.
# @inv INV-23
. "$CMC_TOP/tests/test-lib.sh"
export CMC_BIN="$CMC_TOP/$B"
SCN=$CMC_TOP/share/examples/heapbugs/leak.scn

for ex in replay fork; do
	"$CMC" check --exec $ex --no-store --json "$SCN" >leak-$ex.json 2>leak-$ex.err
	is "leak ($ex): a violation (exit 1)" "$?" 1
	is "leak ($ex): reported as property leak" "$(first_violation leak-$ex.json property)" leak
	is "leak ($ex): the shortest trace drops the first buffer" \
		"$(first_violation leak-$ex.json trace)" '"OPEN 1", "OPEN 2", "QUIT"'
	msg=$(first_violation leak-$ex.json message)
	case $msg in
	"INV-23: 1 block, 64 bytes unreachable (lost)"*) _report 0 "leak ($ex): one 64-byte block lost" ;;
	*) _report 1 "leak ($ex): one 64-byte block lost"; echo "#   got: $msg" ;;
	esac
done

# Without the bug's order the same target is clean: forbid the second OPEN.
grep -v '"OPEN 2"' "$SCN" >one-open.scn
"$CMC" check --no-store --json one-open.scn >one.json 2>one.err
is "one OPEN: no violation in any order" "$?" 0
is "one OPEN: the whole space explored" "$(json_get one.json complete)" true

sed 's/^property leak$/property leak reachable/' "$SCN" >reach.scn
"$CMC" check --no-store --json reach.scn >reach.json 2>reach.err
is "leak reachable: a violation" "$?" 1
is "leak reachable: the global's block counts at the first exit" "$(first_violation reach.json trace)" '"QUIT"'
case $(first_violation reach.json message) in
*"1 block, 32 bytes still live"*) _report 0 "leak reachable: the 32-byte start-up block" ;;
*) _report 1 "leak reachable: the 32-byte start-up block"; first_violation reach.json message | sed 's/^/#   /' ;;
esac

# A stdio target: at exit the C library still holds its stdin and stdout
# buffers.  Pushing twice and quitting frees all the target's own blocks:
# clean even under `leak reachable`.  Dropping the list loses both nodes.
H=$CMC_BIN/tests-helpers/stdioexit
printf '%s\n' "target $H" 'op "push 1" "push\n" once' 'op "push 2" "push\n" once' \
	'op "quit" "quit\n" once' 'property leak reachable' >stdio.scn
"$CMC" check --no-store --json stdio.scn >stdio.json 2>stdio.err
is "stdio target: the C library's buffers are not the target's (exit 0)" "$?" 0
is "stdio target: the whole space explored" "$(json_get stdio.json complete)" true
printf '%s\n' "target $H" 'op "push 1" "push\n" once' 'op "drop" "drop\n" once' \
	'op "quit" "quit\n" once' 'property leak' >drop.scn
"$CMC" check --no-store --json drop.scn >drop.json 2>drop.err
is "stdio target, drop: a violation" "$?" 1
is "stdio target, drop: the shortest trace" "$(first_violation drop.json trace)" '"push 1", "drop", "quit"'

# Bad scenario lines name file:line.
printf '%s\n' "target $CMC_BIN/examples/kv" 'op "A" "A\n"' 'property leak often' >bad.scn
"$CMC" check --no-store bad.scn >bad.out 2>bad.err
is "property leak with a bad word: exit 2" "$?" 2
ok "... naming file:line and what was expected" grep -q "bad.scn:3: expected 'property leak' or 'property leak reachable'" bad.err
done_testing
