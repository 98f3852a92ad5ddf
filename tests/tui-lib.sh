# tests/tui-lib.sh — sourced after test-lib.sh by the workbench tests
# (t4*): skips the script when tmux is missing, and gives it a private tmux
# server with helpers to start the workbench in an 80x24 pane, send keys,
# read the screen and wait (bounded) for text to appear.
if ! command -v tmux >/dev/null 2>&1; then
	skip "workbench through tmux" "tmux is not installed (make test installs it)"
	done_testing
	exit
fi

# Each session gets its own private server (a fresh socket name), so one
# shutting down never races the next one starting.
N=0 SOCK=cmc-test-$$-0
# Sockets in the scratch directory: removed with it, whatever happens.
TMUX_TMPDIR=$T; export TMUX_TMPDIR
tm() { tmux -L "$SOCK" "$@"; }
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# start CMD: run CMD in an 80x24 pane; the pane stays after it exits and
# shows EXITED=status.  A workbench killed mid-draw can leave an escape
# sequence half written, which would swallow the next bytes (the E of
# EXITED is a CSI final byte); CAN (0x18) cancels any sequence in progress.
start() {
	tm kill-server >/dev/null 2>&1
	N=$((N + 1)) SOCK=cmc-test-$$-$N
	tm new-session -d -x 80 -y 24 -s wb \
		"cd '$T' && $*; st=\$?; printf '\\030\\n'; echo EXITED=\$st; sleep 600"
}
keys() { tm send-keys -t wb "$@"; }
screen() { tm capture-pane -p -t wb; }
# wait_for PATTERN: poll the screen (grep -E) for up to 10 s.  The screen
# it leaves in $T/screen for the checks that follow is a whole frame: a
# capture can catch the workbench half way through drawing one (the title
# written, the rows under it not yet), so once PATTERN shows, the screen
# is read again until two captures agree (at most 1 s: a live search's
# title never holds still).  Should the settled frame have lost PATTERN
# (something transient, a "busy" line), the capture that had it is kept.
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		screen >"$T/screen" 2>/dev/null
		if grep -Eq -- "$1" "$T/screen"; then
			settle_screen "$1"
			return 0
		fi
		# the workbench has gone: nothing more will appear
		grep -q '^EXITED=' "$T/screen" && break
		sleep 0.1
		i=$((i + 1))
	done
	echo "# waited for: $1"
	sed 's/^/# | /' "$T/screen"
	return 1
}

settle_screen() {
	cp "$T/screen" "$T/screen.hit"
	j=0
	while [ $j -lt 20 ]; do
		sleep 0.05
		screen >"$T/screen.next" 2>/dev/null
		cmp -s "$T/screen" "$T/screen.next" && break
		mv "$T/screen.next" "$T/screen"
		j=$((j + 1))
	done
	grep -Eq -- "$1" "$T/screen" || cp "$T/screen.hit" "$T/screen"
}

# press_until PATTERN KEY MAX FILE: press KEY until a settled screen
# shows PATTERN, at most MAX times (an empty PATTERN: MAX times, and
# succeed), appending every settled screen to FILE.  Each press waits (at most 3 s) for the screen, attributes and
# all (a moved selection changes only its highlight), to change before the
# next: keys sent faster than a slow build draws would queue, and the
# captures would stop before the screens they were meant to see.
press_until() {
	n=0
	tm capture-pane -p -e -t wb >"$T/press.now" 2>/dev/null
	while :; do
		screen >>"$4"
		[ -n "$1" ] && screen | grep -Eq -- "$1" && return 0
		[ $n -lt "$3" ] || { [ -z "$1" ]; return; }
		keys "$2"
		n=$((n + 1))
		w=0
		while [ $w -lt 60 ]; do
			sleep 0.02
			tm capture-pane -p -e -t wb >"$T/press.next" 2>/dev/null
			cmp -s "$T/press.now" "$T/press.next" || break
			w=$((w + 1))
		done
		# a whole frame, not one caught half drawn
		w=0
		while [ $w -lt 20 ]; do
			sleep 0.02
			tm capture-pane -p -e -t wb >"$T/press.now" 2>/dev/null
			cmp -s "$T/press.now" "$T/press.next" && break
			cp "$T/press.now" "$T/press.next"
			w=$((w + 1))
		done
	done
}

# quit: q, and the workbench exits 0.
quit() { keys q; wait_for 'EXITED=0' >/dev/null; }
# job KEY...: send keys that need the worker once it is idle; a key that
# comes while it works (the state view has the target print the state,
# a replay step, a render) is answered "busy".  Only after the screen
# shows the previous key's effect: a job is submitted before the screen
# that follows the key is drawn.
idle() {
	i=0
	while [ $i -lt 100 ]; do
		screen | sed -n 1p | grep -Eq 'SEARCHING|replaying|simulating|rendering|reading|starting|stepping|\| busy' ||
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# the worker stayed busy"
	return 1
}
job() { idle; keys "$@"; }
