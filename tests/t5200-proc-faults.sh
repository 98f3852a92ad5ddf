#!/bin/sh
# t5200-proc-faults.sh — every way a target can misbehave is a clear report
# with its trace, never a hang of cmc, and no process is left behind.  The
# target is tests/proc/proctarget.c, copied under a name unique to this run
# so stray processes can be counted by path.
. "$CMC_TOP/tests/test-lib.sh"

PT=$T/pt-$$
cp "$CMC_TOP/$B/tests-helpers/proctarget" "$PT"
strays() { pgrep -f "$PT" | wc -l | tr -d ' '; }

# Missing target: exit 2, named.
printf 'target ./does-not-exist\nop a "a\\n"\n' >missing.scn
"$CMC" check missing.scn >out 2>err
is "missing target: exit 2" "$?" 2
ok "missing target: the message names it" grep -q "does-not-exist' was not found" err

# Exits at start: exit 2 with the status.
printf 'target %s --exit-at-start 3\nop inc "inc\\n"\n' "$PT" >start.scn
"$CMC" check start.scn >out 2>err
is "exits at start: exit 2" "$?" 2
ok "exits at start: says so with the status" grep -q "exited with status 3 during start-up" err
# ... and with what it said last, made printable (an escape sequence, a
# backslash and quotes): the user sees why without running it by hand
printf 'target /bin/sh -c "printf \\"\\\\033[2Jno config\\\\\\\\ \\\\\\"q\\\\\\"\\\\n\\" >&2; exit 4"\nop a "a\\n"\n' >said.scn
"$CMC" check said.scn >out 2>err
is "exits at start, saying why: exit 2" "$?" 2
ok "... the message ends with its output, escaped" \
	grep -qF 'exited with status 4 during start-up; its output ended "\x1b[2Jno config\x5c \x22q\x22"' err
ok "... and no escape byte reaches the terminal" sh -c "! grep -q \"\$(printf '\033')\" err out"

# Never listens (tcp): exit 2 after the timeout.
printf 'target %s --pause {port}\ntransport tcp\nop inc "inc\\n"\ntimeout 300\n' "$PT" >listen.scn
"$CMC" check listen.scn >out 2>err
is "never listens: exit 2" "$?" 2
ok "never listens: says so with the port" grep -q "never listened on 127.0.0.1:[0-9]*" err

# Crashes on an op: a violation "crash" with the shortest trace.  bomb
# crashes once the counter (a global, hashed as a raw symbol) is >= 2, so
# the shortest trace is inc, inc, bomb (BFS: 3 steps, nothing shorter).
printf 'target %s\nop inc "inc\\n"\nop bomb "bomb\\n"\nraw symbol counter\nhash raw\ndepth 4\n' "$PT" >crash.scn
"$CMC" check --json crash.scn >crash.json 2>/dev/null
is "crash: exit 1" "$?" 1
ok "crash: property crash" grep -q '"property": "crash"' crash.json
ok "crash: shortest trace inc, inc, bomb" grep -q '"trace": \["inc", "inc", "bomb"\]' crash.json
ok "crash: the message names the signal" grep -q 'signal 11' crash.json

# Hangs: a fault after the timeout, with its trace; nothing left running.
printf 'target %s\nop inc "inc\\n" once\nop hang "hang\\n" once\ntimeout 300\n' "$PT" >hang.scn
"$CMC" check --json hang.scn >hang.json 2>/dev/null
is "hang: exit 1" "$?" 1
ok "hang: reported as a timeout" grep -q '"property": "timeout"' hang.json
ok "hang: with the trace" grep -q '"trace": \["hang"\]' hang.json
is "hang: no stray target processes" "$(strays)" 0

# Floods: more output than reply-cap for one op.
printf 'target %s\nop flood "flood\\n"\nreply-cap 64K\n' "$PT" >flood.scn
"$CMC" check --json flood.scn >flood.json 2>/dev/null
is "flood: exit 1" "$?" 1
ok "flood: reported as flood" grep -q '"property": "flood"' flood.json

# Heap exhausted: the preload's fault, reported with the trace.
printf 'target %s\nheap-size 64K\nop big "alloc 1000000\\n"\n' "$PT" >heap.scn
"$CMC" check --json heap.scn >heap.json 2>/dev/null
is "heap exhausted: exit 1" "$?" 1
ok "heap exhausted: property heap, preload's message" grep -q '"property": "heap", "message": "after big: preload fault' heap.json

# Heap base taken: 0x400000 is where a non-PIE executable's text lives... use
# the page the target's own stack or text holds; the null page is refused
# by the kernel for everyone, so a low address that is mapped: the vdso is
# not fixed, the text of /usr/bin programs is PIE.  Use the preload's own
# rule instead: a base inside the target's text (non-PIE helper at 0x400000).
if [ -x "$CMC_TOP/$B/tests-helpers/pltest" ]; then
	printf 'target %s/%s/tests-helpers/pltest wait\nheap-base 0x400000\nop a "a\\n"\n' "$CMC_TOP" "$B" >base.scn
	"$CMC" check base.scn >out 2>err
	is "heap base taken: exit 2" "$?" 2
	ok "heap base taken: the preload's reason reaches the message" grep -qi "preload\|base" err
fi

# A raw window larger than raw-cap is reported, not silently cut: alloc
# 5000 bytes per step makes the heap windows after 0, 1 and 2 steps differ in
# size, so 3 distinct states at depth 2; those after a step exceed 1 KiB.
printf 'target %s\nop a "alloc 5000\\n"\nraw-cap 1K\ndepth 2\nhash raw\n' "$PT" >over.scn
"$CMC" check --json over.scn >over.json 2>over.err
is "raw over cap: the run completes" "$?" 0
is "raw over cap: 3 distinct (fingerprints cover the whole window)" "$(json_get over.json distinct)" 3
ok "raw over cap: reported on stderr" grep -q "raw window exceeds raw-cap (1024 bytes)" over.err

# Exit status property.
printf 'target %s\nop inc "inc\\n" once\nop quit "exit 4\\n" once\nproperty exit 0\n' "$PT" >exit.scn
"$CMC" check --json exit.scn >exit.json 2>/dev/null
is "exit status: exit 1" "$?" 1
ok "exit status: property exit, shortest trace quit" grep -q '"property": "exit", "message": "target exited with status 4, expected 0", "state": [0-9]*, "trace": \["quit"\]' exit.json

# SIGTERM in the middle of a run: cmc stops and leaves no target behind.
# The target tells exactly when it hangs (a FIFO it writes) and holds a
# second FIFO open until it dies, so `cat` on that one ends at its death.
mkfifo ready hold
printf 'target %s\nop hang "hang\\n"\nop inc "inc\\n"\ntimeout 20000\nenv PT_READY=%s/ready\nenv PT_HOLD=%s/hold\n' \
	"$PT" "$T" "$T" >term.scn
for sig in TERM INT KILL; do
	"$CMC" check term.scn >/dev/null 2>"$T/term-$sig.err" &
	cpid=$!
	timeout 20 cat hold >/dev/null &
	hpid=$!
	timeout 20 sh -c 'read x <ready'
	is "SIG$sig: the target reached its hang" "$?" 0
	kill -"$sig" "$cpid"
	wait "$hpid"
	r=$?
	is "SIG$sig: the target died with cmc (its FIFO closed)" "$r" 0
	if [ "$r" -ne 0 ]; then # say what was still there, for whoever meets this
		echo "# cmc said:"; sed 's/^/#   /' "$T/term-$sig.err"
		echo "# processes:"; ps -eo pid,ppid,pgid,stat,wchan:20,args | grep -E "cmc|pt-" | grep -v grep | sed 's/^/#   /'
	fi
	wait "$cpid" 2>/dev/null
	is "SIG$sig: no stray target processes" "$(strays)" 0
done

done_testing
