#!/bin/sh
# t6400-fork-protocol.sh — targets that go after the snapshot socket (fd
# 1000, cmc_region.h section 5; share/examples/hostile/hostile.c's modes
# fdfull, dup2snap, closesnap, snapgarb, reexec).  Each misbehaves on
# `evil` after `a` and then serves on (ops b and c make cmc fork the state
# it left), and each must give the same result under both executors: the
# same exit, states and violations, and never a false `crash`.
#   fdfull     the fd table full: the snapshot answers ERROR (EMFILE) and
#              the fork executor goes on by replay, saying so
#   dup2snap   dup2/dup3/F_DUPFD onto 1000 behave as if 1000 were free
#              (the target replies BAD otherwise: property reply), and
#              the socket keeps working (no fall-back)
#   closesnap  close(1000) is EBADF and close_range closes around it
#   snapgarb   a forged FORKED (pid 1) and junk on the socket: a protocol
#              fault of [a, evil], read and judged under replay too
#   reexec     execve of /proc/self/exe mid-operation: the new image is
#              observed (its address space, not the old one's) and forks
. "$(dirname "$0")/test-lib.sh"

HB=$CMC_TOP/$B/examples/hostile/hostile
if [ ! -x "$HB" ]; then
	skip "hostile targets" "$B/examples/hostile/hostile is not built"
	done_testing
	exit
fi

# The violations of a --json report, property and trace only.
viols() { grep -o '"property": "[^"]*"\|"trace": \[[^]]*\]' "$1" | tr '\n' ' '; }

# mode | expected exit | expected violations (- : none)
while IFS='|' read -r m rc want; do
	{
		printf '%s\n' "target $HB $m" 'op a "a\n" once' 'op evil "evil\n" once' 'op b "b\n"' \
			'op c "c\n"' 'property reply * "OK*"' "depth 4" "timeout 500"
	} >"$m.scn"
	for ex in replay fork; do
		timeout 60 "$CMC" check --exec $ex --json --db "$m-$ex.db" "$m.scn" >"$m-$ex.json" 2>"$m-$ex.err"
		echo $? >"$m-$ex.rc"
	done
	is "$m: replay exits $rc" "$(cat "$m-replay.rc")" "$rc"
	is "$m: fork exits as replay does" "$(cat "$m-fork.rc")" "$(cat "$m-replay.rc")"
	is "$m: fork finds as many states as replay" "$(json_get "$m-fork.json" distinct)" \
		"$(json_get "$m-replay.json" distinct)"
	is "$m: fork reports the violations replay does" "$(viols "$m-fork.json")" "$(viols "$m-replay.json")"
	if [ "$want" = - ]; then
		is "$m: no violation" "$(viols "$m-replay.json")" ""
	else
		is "$m: $want" "$(viols "$m-replay.json")" "$want"
	fi
	for ex in replay fork; do
		not_ok "$m ($ex): no false crash" grep -q '"crash' "$m-$ex.json"
	done
	case $m in
	fdfull)
		ok "$m: the fork executor says the fd table is full and goes on by replay" \
			grep -q 'fork snapshots unavailable (.*(Too many open files))' "$m-fork.err" ;;
	*)
		not_ok "$m: the fork executor keeps forking" grep -q 'fork snapshots unavailable' "$m-fork.err" ;;
	esac
done <<'EOF_MODES'
fdfull|0|-
dup2snap|0|-
closesnap|0|-
snapgarb|1|"property": "protocol" "trace": ["a", "evil"] 
reexec|0|-
EOF_MODES
ok "snapgarb: the fault names the forged FORKED" \
	grep -q 'sent a FORKED no fork request asked for on the snapshot socket' snapgarb-fork.json

# reexec over tcp: the new image listens on {port} (7070) again, which the
# preload binds as the real port named by the CONFIG message it peeks on
# the socket (cmc_region.h section 5).  With 7070 itself taken, an image
# that found no CONFIG (a fork child's socket, or a snapshot's whose
# server passed over it) binds 7070 and fails: BAD.
nc -lk 127.0.0.1 7070 >/dev/null 2>&1 &
ncpid=$!
trap 'kill "$ncpid" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
i=0
while [ $i -lt 100 ] && ! nc -z 127.0.0.1 7070 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
if nc -z 127.0.0.1 7070 2>/dev/null; then
	printf '%s\n' "target $HB reexec {port}" "transport tcp" 'op a "a\n" once' 'op evil "evil\n" once' \
		'op b "b\n"' 'op c "c\n"' 'property reply * "OK*"' "depth 4" "timeout 500" >treexec.scn
	for ex in replay fork; do
		timeout 60 "$CMC" check --exec $ex --json --db "treexec-$ex.db" treexec.scn >"treexec-$ex.json" \
			2>"treexec-$ex.err"
		is "reexec over tcp ($ex): exit 0, the new image listens again" "$?" 0
		is "reexec over tcp ($ex): no violation" "$(viols "treexec-$ex.json")" ""
	done
	is "reexec over tcp: fork finds as many states as replay" "$(json_get treexec-fork.json distinct)" \
		"$(json_get treexec-replay.json distinct)"
	not_ok "reexec over tcp: the fork executor keeps forking" grep -q 'fork snapshots unavailable' treexec-fork.err
else
	skip "reexec over tcp" "nothing listens on 127.0.0.1:7070 (netcat missing?)"
fi
done_testing
