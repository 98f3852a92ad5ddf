#!/bin/sh
# t5500-reach.sh — the real-program corpus: unmodified programs
# from Debian's packages, one per family, each with a scenario of a few
# meaningful operations explored to depth 4 (tests/reach/PROG.scn; a
# program's fixture files, configurations and documents, are in
# tests/reach/PROG-files/).  For every program:
#   1. the reference run (--exec replay) completes without a violation;
#   2. two runs under replay (one stored, one --no-store) give identical
#      --json, the clock's figures aside;
#   3. fork snapshots give the JSON replay gives;
#   4. fork and replay agree state by state: every stored state has the
#      same shortest trace, status, fingerprint, raw and canonical
#      fingerprints, fault, end (exit status, signal) and successors (read
#      back from both stores by tests/store/dumpstates.c);
#   5. `cmc replay` of the deepest state's trace reproduces, step by step,
#      the fingerprints the reference run recorded, under replay and under
#      fork (`cmc replay --exec` where it has it, else $CMC_EXEC);
#   6. no process of the program is left running once cmc is done;
#   7. nothing is left on disk: no new file in the target's working
#      directory (a copy of PROG-files/) or in /tmp.
# A last comment block sums up: states, raw fingerprints, the verdicts,
# seconds per executor and whether fork snapshots fell back to replay
# (nginx holds an eventfd; see cmc.1).  Every run uses --jobs 1.
# The packages come from the Makefile's TEST_DEPS (`make test` installs
# them); a program that is not installed is skipped.
#
# KNOWN_DIVERGENT lists the checks that fail today, one per line:
# "PROGRAM CHECK CAUSE".  CHECK is one of completes, json-twice, json-fork,
# states, replay-replay, replay-fork, running, disk.  A listed check still
# runs; when it fails it is reported as `ok N - ... # SKIP known divergence:
# CAUSE` with its evidence as # lines; when it passes the line
# says the entry is stale.  Remove an entry when its fix lands.
KNOWN_DIVERGENT='
'
# As root, the whole test runs in a mount namespace of its own with a fresh,
# empty /tmp: what appears there was made by this test, cmc or a target,
# never by another program on the machine.  (Otherwise /tmp is compared
# before and after, which another program writing there can confuse.)
# (Not when the tree itself is under /tmp, as a CI clone may be: the fresh
# /tmp would hide it.)
case $(cd "$CMC_TOP" && pwd -P) in /tmp | /tmp/*) CMC_REACH_NS=${CMC_REACH_NS:-no} ;; esac
if [ -z "${CMC_REACH_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs cmc-reach-tmp /tmp' 2>/dev/null; then
	CMC_REACH_NS=1 exec unshare -m sh -c \
		'mount --make-rprivate / && mount -t tmpfs cmc-reach-tmp /tmp && exec sh "$0"' "$0"
fi
. "$CMC_TOP/tests/test-lib.sh"
# REACH_KEEP=DIR keeps every program's runs, stores and evidence there.
[ -n "${REACH_KEEP:-}" ] && trap 'mkdir -p "$REACH_KEEP" && cp -R "$T/out/." "$REACH_KEEP/"; rm -rf "$T"' EXIT INT TERM

REACH=$CMC_TOP/tests/reach
PRELOAD=$CMC_TOP/$B/libcmc-preload.so
# `cmc replay --exec E` where the command has it, else the environment.
if "$CMC" help replay 2>&1 | grep -q -- '--exec'; then replay_has_exec=1; else replay_has_exec=0; fi

known() { # PROG CHECK: the cause, when listed
	printf '%s\n' "$KNOWN_DIVERGENT" | awk -v p="$1" -v c="$2" \
		'$1 == p && $2 == c { $1 = ""; $2 = ""; sub(/^  */, ""); print; exit }'
}
# verdict PROG CHECK DESCRIPTION RC EVIDENCE-FILE
verdict() {
	cause=$(known "$1" "$2")
	if [ "$4" -eq 0 ]; then
		if [ -n "$cause" ]; then
			_report 0 "$3 (listed in KNOWN_DIVERGENT, but passes: remove the entry)"
		else
			_report 0 "$3"
		fi
	elif [ -n "$cause" ]; then
		skip "$3" "known divergence: $cause"
		[ -s "$5" ] && head -n 12 "$5" | sed 's/^/#   /'
	else
		_report 1 "$3"
		[ -s "$5" ] && head -n 20 "$5" | sed 's/^/#   /'
	fi
	return 0
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# dump_states DB OUT: one line per stored state, in id order: id, trace
# (/label@state...), status, fingerprint, raw, canonical, fault, successors
# (tests/store/dumpstates.c).
DUMP=$CMC_TOP/$B/tests-helpers/store-dump
dump_states() { "$DUMP" "$1" >"$2" 2>&1; }

# targets_of PROGPATH WORKDIR: pids of the program still running that are
# ours (working directory under WORKDIR, or our preload in their environment).
targets_of() {
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		[ "$exe" = "$1" ] || continue
		cwd=$(readlink "$p/cwd" 2>/dev/null)
		case $cwd in "$2" | "$2"/*) echo "${p#/proc/} (cwd $cwd)"; continue ;; esac
		if tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "LD_PRELOAD=$PRELOAD"; then
			echo "${p#/proc/} (preloaded from $PRELOAD)"
		fi
	done
}
# /tmp's entries: in the namespace all but $T; outside it, all but cmc's
# own (cmc-*: test directories) and a compiler's (cc??????.*: builds)
tmp_entries() { ls -A /tmp 2>/dev/null | grep -v -e '^cmc-' -e '^cc[A-Za-z0-9]\{6\}\.' | sort; }
# (cmc-work: the fixed, empty mount point of targets' own directories)
[ "${CMC_REACH_NS:-}" = 1 ] && tmp_entries() { ls -A /tmp 2>/dev/null | grep -vxF -e "$(basename "$T")" -e cmc-work | sort; }

SUMMARY=$T/summary
mkdir -p "$T/out"
for scn in "$REACH"/*.scn; do
	P=$(basename "$scn" .scn)
	prog=$(sed -n 's/^target[ 	]*\([^ 	]*\).*/\1/p' "$scn" | head -n 1)
	path=$(command -v "$prog" 2>/dev/null || ls "/usr/sbin/$prog" 2>/dev/null)
	if [ -z "$path" ]; then
		skip "$P under cmc" "$prog is not installed (make test installs it)"
		continue
	fi
	path=$(readlink -f "$path")
	W=$T/$P O=$T/out/$P
	mkdir -p "$W" "$O"
	[ -d "$REACH/$P-files" ] && cp -R "$REACH/$P-files/." "$W/"
	cp "$scn" "$W/$P.scn"
	(cd "$W" && find . | sort) >"$O/files.before"
	tmp_entries >"$O/tmp.before"

	# the reference run, stored; a second one; fork, stored
	t0=$(now)
	(cd "$W" && "$CMC" check --json --jobs 1 --exec replay --db "$O/replay.db" "$P.scn") >"$O/replay.json" 2>"$O/replay.err"
	rc=$?
	t1=$(now)
	(cd "$W" && "$CMC" check --json --no-store --jobs 1 --exec replay "$P.scn") >"$O/replay2.json" 2>"$O/replay2.err"
	t2=$(now)
	(cd "$W" && CMC_PROC_STATS=1 "$CMC" check --json --jobs 1 --exec fork --db "$O/fork.db" "$P.scn") >"$O/fork.json" 2>"$O/fork.err"
	rcf=$?
	t3=$(now)
	n=$(json_get "$O/replay.json" distinct)
	{ echo "exit $rc, error $(json_get "$O/replay.json" error)"; grep -o '"violations": .*' "$O/replay.json"; head -n 5 "$O/replay.err"; } >"$O/completes.ev"
	[ "$rc" -eq 0 ] && [ "$(json_get "$O/replay.json" error)" = null ]
	verdict "$P" completes "$P: the reference run completes without a violation ($n states)" $? "$O/completes.ev"

	json_untimed "$O/replay.json" >"$O/replay.cmp"
	json_untimed "$O/replay2.json" >"$O/replay2.cmp"
	json_untimed "$O/fork.json" >"$O/fork.cmp"
	diff "$O/replay.cmp" "$O/replay2.cmp" | tr ',' '\n' | grep '^[<>]\|^ "[a-z_]*": [0-9]' >"$O/json-twice.ev"
	cmp -s "$O/replay.cmp" "$O/replay2.cmp"
	verdict "$P" json-twice "$P: two runs give identical --json" $? "$O/json-twice.ev"
	{ grep -h 'unavailable' "$O/fork.err"; echo "exit: replay $rc, fork $rcf"
	  for k in distinct generated transitions raw_distinct; do
		echo "$k: replay $(json_get "$O/replay.json" $k), fork $(json_get "$O/fork.json" $k)"; done; } >"$O/json-fork.ev"
	[ "$rc" -eq "$rcf" ] && cmp -s "$O/replay.cmp" "$O/fork.cmp"
	verdict "$P" json-fork "$P: fork gives the --json replay gives" $? "$O/json-fork.ev"

	# state by state
	dump_states "$O/replay.db" "$O/replay.states"
	dump_states "$O/fork.db" "$O/fork.states"
	nr=$(wc -l <"$O/replay.states" | tr -d ' ')
	diff "$O/replay.states" "$O/fork.states" >"$O/states.diff"
	{ echo "state: id, trace, status, fingerprint, raw, canonical, fault, successors (< replay, > fork)"
	  grep '^[<>]' "$O/states.diff"; } >"$O/states.ev"
	[ "$nr" -gt 0 ] && [ ! -s "$O/states.diff" ]
	verdict "$P" states "$P: fork and replay agree state by state ($nr states: trace, fingerprints, successors)" $? "$O/states.ev"
	same_states=no
	[ "$nr" -gt 0 ] && [ ! -s "$O/states.diff" ] && same_states=yes

	# the deepest state's trace, with the reference run's fingerprints
	last=$(tail -n 1 "$O/replay.states")
	steps=$(printf '%s\n' "$last" | cut -f2 | tr '/' '\n' | sed '/^$/d')
	: >"$O/deep.trace"
	printf '%s\n' "$steps" | while IFS= read -r st; do
		[ -n "$st" ] || continue
		awk -F'\t' -v id="${st##*@}" -v lab="${st%@*}" -v OFS='\t' '$1 == id {
			z = "00000000000000000000000000000000"
			print lab, $4, $5 == "-" ? z : $5, $6 == "-" ? z : $6 }' "$O/replay.states" >>"$O/deep.trace"
	done
	ns=$(wc -l <"$O/deep.trace" | tr -d ' ')
	rep_ok=""
	for e in replay fork; do
		te=$(now)
		if [ "$replay_has_exec" = 1 ]; then
			(cd "$W" && "$CMC" replay --exec "$e" --file "$O/deep.trace" "$P.scn") >"$O/deep.$e.out" 2>&1
		else
			(cd "$W" && CMC_EXEC=$e "$CMC" replay --file "$O/deep.trace" "$P.scn") >"$O/deep.$e.out" 2>&1
		fi
		rr=$?
		eval "tr_$e=\$(secs $te \$(now))"
		{ cat "$O/deep.$e.out"; echo "trace (label, fingerprint, raw, canonical):"; cat "$O/deep.trace"; } >"$O/deep.$e.ev"
		[ "$rr" -eq 0 ] && [ "$ns" -gt 0 ] &&
			[ "$(grep -c '^ *[0-9][0-9]*  matched ' "$O/deep.$e.out")" -eq "$ns" ]
		r=$?
		verdict "$P" "replay-$e" "$P: cmc replay of the deepest trace ($ns steps) reproduces under $e" $r "$O/deep.$e.ev"
		[ $r -eq 0 ] && rep_ok="$rep_ok $e"
	done

	# nothing left running, nothing left on disk
	targets_of "$path" "$W" >"$O/running.ev"
	[ ! -s "$O/running.ev" ]
	verdict "$P" running "$P: no $path left running" $? "$O/running.ev"
	(cd "$W" && find . | sort) >"$O/files.after"
	tmp_entries >"$O/tmp.after"
	{ comm -13 "$O/files.before" "$O/files.after" | sed 's|^\.|working directory: .|'
	  comm -13 "$O/tmp.before" "$O/tmp.after" | sed 's|^|/tmp/|'; } >"$O/disk.ev"
	[ ! -s "$O/disk.ev" ]
	verdict "$P" disk "$P: no new file in its working directory or /tmp" $? "$O/disk.ev"

	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$P" "$(json_get "$O/replay.json" distinct)" \
		"$(json_get "$O/replay.json" raw_distinct)" "$same_states" "${rep_ok# }" \
		"$(secs "$t0" "$t1")" "$(secs "$t2" "$t3")" "$(grep -c unavailable "$O/fork.err")" >>"$SUMMARY"
done
if [ -s "$SUMMARY" ]; then
	echo "# program, distinct, raw fingerprints, fork = replay state by state, replay reproduces under, s replay, s fork, fork fell back"
	sed 's/^/#   /' "$SUMMARY"
fi
done_testing
