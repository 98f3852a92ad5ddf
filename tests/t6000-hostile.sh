#!/bin/sh
# t6000-hostile.sh — targets that misbehave on purpose, on stdin and (closeconn) over TCP
# (share/examples/hostile/hostile.c, one scenario per misbehaviour).  Each
# misbehaves on `evil` only after `a`, so the right trace is [a, evil]: the
# test asserts cmc finishes (under `timeout 60`) with the fault named and
# that trace, stores a run that `cmc runs`/`cmc show` read back with every
# target byte escaped, draws a graph that parses, and leaves none of the
# target's processes behind (each one appends its pid to ./hostile.pids).
. "$(dirname "$0")/test-lib.sh"

HB=$CMC_TOP/$B/examples/hostile/hostile
if [ ! -x "$HB" ]; then
	skip "hostile targets" "$B/examples/hostile/hostile is not built"
	done_testing
	exit
fi
SCN=$CMC_TOP/share/examples/hostile
db=$T/h.db
VIZ=$CMC_TOP/$B/tests-helpers/t3-viz

# Live (not zombie) processes among those listed in hostile.pids.
alive() {
	n=0
	for p in $(cat hostile.pids 2>/dev/null); do
		[ -r /proc/$p/stat ] || continue
		st=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)
		[ "$st" = Z ] || n=$((n + 1))
	done
	echo $n
}
# No byte outside printable ASCII (tab, newline allowed): nothing from the
# target reaches a terminal raw.
clean() { [ "$(LC_ALL=C tr -d '\11\12\40-\176' <"$1" | wc -c | tr -d ' ')" = 0 ]; }

# A target works on a copy of its scenario's cwd: this one's hostile.pids
# is a symbolic link to ours, so the pids every process of the target's
# appends land here, whichever copy it runs in.
mkdir tcwd && ln -s "$T/hostile.pids" tcwd/hostile.pids
scn_here() { { cat "$SCN/$1.scn"; echo "cwd $T/tcwd"; } >"$1.scn"; }

run=0
# Both executors: stateless replay and fork snapshots.
for ex in replay fork; do
# mode  expected exit  expected property (- : none)
while read -r m rc prop; do
	f=$m-$ex mode="$m ($ex)"
	rm -f hostile.pids
	scn_here "$m"
	timeout 60 "$CMC" check --exec $ex --json --db "$db" "$m.scn" >"$f.json" 2>"$f.err"
	is "$mode: cmc check ends with exit $rc" "$?" "$rc"
	run=$((run + 1))
	if [ "$prop" != - ]; then
		ok "$mode: '$prop' reported with the trace [a, evil]" \
			grep -q "\"property\": \"$prop\", \"message\": .*, \"state\": [0-9]*, \"trace\": \\[\"a\", \"evil\"\\]" "$f.json"
	fi
	ok "$mode: the JSON report carries no raw control byte" clean "$f.json"
	ok "$mode: stderr carries no raw control byte" clean "$f.err"
	is "$mode: no process of the target's is left" "$(alive)" 0
	[ -s hostile.pids ] || echo "# $mode: no pids were recorded"

	# The stored run reads back: listed, every state showable, escaped.
	"$CMC" runs --db "$db" >runs.txt 2>&1
	ok "$mode: cmc runs lists run $run" grep -q "^$run " runs.txt
	n=$(json_get "$f.json" distinct)
	i=0 bad=0
	while [ "$i" -lt "${n:-0}" ]; do
		"$CMC" show --db "$db" --run "$run" "$i" >show.txt 2>&1 || bad=$((bad + 1))
		clean show.txt || bad=$((bad + 1))
		i=$((i + 1))
	done
	is "$mode: cmc show reads all $n states back, escaped" "$bad" 0
	if "$CMC" help graph >/dev/null 2>&1; then
		"$CMC" graph --db "$db" --run "$run" -o "$f.svg" >/dev/null 2>&1 &&
			xmllint --noout "$f.svg" 2>/dev/null
		is "$mode: cmc graph draws well-formed SVG" "$?" 0
		if [ -x "$VIZ" ]; then
			"$CMC" graph --db "$db" --run "$run" -o "$f.dot" >/dev/null 2>&1
			c=$("$VIZ" count "$f.dot" 2>/dev/null | cut -d' ' -f1-2)
			is "$mode: its DOT parses back with every state" "$c" "nodes $n"
		fi
	fi
done <<'EOF_MODES'
escapes 1 reply:\*
flood 1 flood
noread 1 timeout
closein 1 timeout
closeconn 1 timeout
orphans 1 exit
exec 1 timeout
setsid 0 -
sigstop 1 stopped
exitmid 1 exit
exhaust 1 heap
trunc 1 protocol
oversize 1 protocol
garbage 1 protocol
EOF_MODES
done

# The escapes run keeps the target's bytes, escaped where they are shown.
"$CMC" show --db "$db" --run 1 3 >esc.txt 2>&1
ok "escapes: the reply is stored and shown as \\x escapes" grep -q 'OK\\x1b\]0;pwned\\x07\\x1b\[31mRED' esc.txt
ok "escapes: ... past its NUL byte" grep -q '\\x00after-nul' esc.txt
ok "escapes: the canonical record too" grep -q 'canonical record "OK\\x1b\]0;pwned' esc.txt
"$CMC" trace --db "$db" --run 1 >trace.txt 2>&1
ok "escapes: cmc trace prints the counterexample escaped" clean trace.txt
# Through a terminal: the pane's title and colours stay untouched.
if command -v tmux >/dev/null 2>&1; then
	SOCK=cmc-t6000-$$
	tmux -L "$SOCK" new-session -d -x 100 -y 30 -s h \
		"'$CMC' show --db '$db' --run 1 3; '$CMC' trace --db '$db' --run 1; echo SHOWN; sleep 60"
	i=0
	while [ $i -lt 100 ] && ! tmux -L "$SOCK" capture-pane -p -t h | grep -q SHOWN; do
		sleep 0.1
		i=$((i + 1))
	done
	tmux -L "$SOCK" capture-pane -p -t h >pane.txt
	tmux -L "$SOCK" capture-pane -e -p -t h >pane-e.txt
	title=$(tmux -L "$SOCK" display -p -t h '#{pane_title}')
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	ok "terminal: the escaped reply is on the screen" grep -q 'pwned' pane.txt
	not_ok "terminal: the OSC sequence did not set the pane title" test "$title" = pwned
	not_ok "terminal: no colour reached the pane" grep -q "$(printf '\033')\[[0-9;]*31m" pane-e.txt
else
	skip "terminal check" "tmux is not installed (make test installs it)"
fi
ok "the database passes SQLite's integrity check" sh -c "sqlite3 '$db' 'pragma integrity_check' | grep -qx ok"
done_testing
