#!/bin/sh
# tests/bench/tui.sh — how fast the workbench answers the common moves on a
# database of a million states (the aim: under 50 ms a keypress).  A run of
# bench-counters-small cut at 1,000,000 states is stored, the workbench is
# opened on it in tmux, and each move is timed from send-keys until the
# screen shows its result (polling capture-pane every few ms, so figures
# include tmux's own round trip: the `help` move, which reads nothing from
# the store, is that baseline).  One figure per line, in milliseconds.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
CMC=$top/$B/cmc
command -v tmux >/dev/null 2>&1 || { echo "tui: tmux is not installed; skipped"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench-tui.XXXXXX")
SOCK=cmc-bench-$$
TMUX_TMPDIR=$T; export TMUX_TMPDIR
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
cd "$T" || exit 1

N=1000000
"$CMC" check --db big.db --max-states $N bench-counters-small >/dev/null 2>&1
case $? in 0 | 1) ;; *) echo "tui: could not build the database"; exit 1 ;; esac

tm() { tmux -L "$SOCK" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed NAME PATTERN KEYS...: send the keys, wait for the pattern (60 s max).
timed() {
	name=$1 pat=$2
	shift 2
	t0=$(now_ms)
	[ $# -gt 0 ] && tm send-keys -t wb "$@"
	i=0
	while ! tm capture-pane -p -t wb | grep -Eq -- "$pat"; do
		i=$((i + 1))
		if [ $i -gt 6000 ]; then
			echo "tui_${name}_ms timeout"
			return 1
		fi
		sleep 0.005
	done
	echo "tui_${name}_ms $(($(now_ms) - t0))"
}

t0=$(now_ms)
tm new-session -d -x 80 -y 24 -s wb "'$CMC' tui big.db; sleep 600"
while ! tm capture-pane -p -t wb 2>/dev/null | grep -q "run 1 bench-counters-small"; do sleep 0.005; done
echo "tui_open_1M_states_ms $(($(now_ms) - t0))"
timed help_baseline 'this list of keys' '?'
timed back_to_list '^\[states by discovery' '<'
timed end_of_list '^ +999999 ' G
timed page_up '^ +9999(5|7)[0-9] ' PPage
timed first_row '^ +0 +1 +- ' g
timed jump_to_id '^state 999999 ' / 999999 Enter
timed back_view '^\[states by discovery' '<'
# the fingerprint prefix of the last state (a scan of the whole run)
fp=$("$CMC" show --db big.db 999999 | sed -n 's/^fingerprint *\([0-9a-f]\{10\}\).*/\1/p')
timed fp_prefix_key_answered 'looking for fingerprint' / "$fp" Enter
timed fp_prefix_of_last_found_on_worker '^state 999999 ' 
timed back_view_again '^\[states by discovery' '<'
timed open_state_0 '^state 0 ' g Enter
timed take_edge_to_successor '^state [1-9][0-9]* ' Enter
timed levels_view '^1 +1 \|' 2
timed deepest_level '\| +[0-9]+ +[0-9]+ ' G
timed tree_view '^\+ 0 \(initial\)' 3
timed tree_open_root '^  \+ [0-9]+ ' Right
timed neighbourhood 'neighbourhood of state' n
timed violations_view 'no violation in this run' v
timed compare_key_answered 'comparing raw against canonical' c
timed compare_1M_result_on_worker 'distinct canonical' 
tm send-keys -t wb q
