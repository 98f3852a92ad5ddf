# tests/test-lib.sh — sourced by every tests/tNNNN-*.sh.
#
# Gives each script a scratch directory ($T), the built binaries ($CMC,
# $B, $CMC_TOP) and TAP helpers in the manner of git's test-lib:
#   ok "description" CMD...        pass when CMD succeeds
#   not_ok "description" CMD...    pass when CMD fails
#   is "description" GOT WANT      pass when the two strings are equal
#   skip "description" "reason"
#   done_testing                   last line of every script
# Families: t0 engine, t1 preload, t2 store, t3 viz, t4 tui, t5 process mode,
# t6 robustness (hostile targets, limits, crashes, interrupts, memory).
set -u
: "${B:=build}"
: "${CMC_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CMC:=$CMC_TOP/$B/cmc}"
export B CMC_TOP CMC
T=$(mktemp -d "${TMPDIR:-/tmp}/cmc-t.XXXXXX"); export T
trap 'rm -rf "$T"' EXIT INT TERM
cd "$T" || exit 1
_n=0 _failed=0

_report() { # status description
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}
ok() { d=$1; shift; "$@" >"$T/.out" 2>&1; r=$?; _report $r "$d"; [ $r -eq 0 ] || sed 's/^/# /' "$T/.out" | head -n 20; return $r; }
not_ok() { d=$1; shift; "$@" >"$T/.out" 2>&1; r=$?; [ $r -ne 0 ]; _report $? "$d"; }
is() {
	if [ "$2" = "$3" ]; then _report 0 "$1"; else _report 1 "$1"; echo "#   got:  '$2'"; echo "#   want: '$3'"; fi
}
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
# json_get FILE KEY — a top-level scalar from cmc's --json output.
# signal_when PID SIG FILE: wait (30 s at most) until FILE is not empty
# (a target wrote it: the run is midway) or PID is gone, then send SIG.
signal_when() {
	_i=0
	while [ ! -s "$3" ] && [ $_i -lt 3000 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.01
		_i=$((_i + 1))
	done
	kill -"$2" "$1" 2>/dev/null
}
json_get() { sed -n "s/.*\"$2\": *\([^,}]*\).*/\1/p" "$1" | head -n 1 | tr -d '"'; }

# explored_or_stop RC JSON WANT ERRFILE WHAT — a check the rest of a test
# builds on: unless it exited 0 with WANT distinct states, report WHAT as
# failed with the start of its stderr and end the test here.
explored_or_stop() {
	[ "$1" -eq 0 ] && [ "$(json_get "$2" distinct)" = "$3" ] && return 0
	_report 1 "$5 (exit $1, $3 states)"
	sed 's/^/#   /' "$4" | head -n 5
	done_testing
	exit
}
# first_violation FILE FIELD — property, message or trace of the first
# violation in cmc's --json output (one line; sed alone is greedy).
first_violation() {
	case $2 in
	trace) sed 's/"trace": \[/\n/g' "$1" | sed -n '2{s/\].*//;p;q}' ;;
	*) sed "s/\"$2\": \"/\n/g" "$1" | sed -n '2{s/".*//;p;q}' ;;
	esac
}
# json_untimed FILE — cmc's --json output without the figures that depend on
# the clock (elapsed_s, states_per_s, transitions_per_s, levels' first_s),
# for comparing two runs that must agree on everything else.
json_untimed() {
	sed -e 's/"elapsed_s": [^,]*, //; s/"states_per_s": [^,]*, //; s/"transitions_per_s": [^,]*, //' \
		-e 's/, "first_s": [0-9.]*//g' "$1"
}
done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }

# list_scenario FILE BINARY N: the list server (share/examples/list, built
# as $B/examples/BINARY) on tcp, keys 1..N each inserted once, every reply
# OK (t5000, t5380).
list_scenario() {
	{
		echo "target $CMC_TOP/$B/examples/$2 {port}"
		echo "transport tcp"
		echo "timeout 3000"
		k=1
		while [ "$k" -le "$3" ]; do
			printf 'op "INS %d" "INS %d\\n" once\n' "$k" "$k"
			k=$((k + 1))
		done
		echo "property reply * OK"
	} >"$1"
}
