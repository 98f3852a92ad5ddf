#!/bin/sh
# demo.sh CMC DB — what `make run` runs: the seed's raw-against-canonical
# story on the list example.  list.scn is explored once with both
# fingerprints (`--hash both`): the 16 orders of inserting keys 1, 2, 3 are
# 16 raw heap states, which the target's canonical record merges into 8
# sets.  The run is stored afresh in DB (the demo's own database, replaced
# each time); on a terminal the workbench then opens it, otherwise the
# summary is printed with the commands that open and compare it.
set -u
if [ $# -ne 2 ]; then
	echo "usage: sh demo.sh CMC DB" >&2
	exit 2
fi
cmc=$1 db=$2
scn=$(dirname "$0")/list.scn
rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
if [ -t 0 ] && [ -t 1 ] && "$cmc" help tui >/dev/null 2>&1; then
	# The summary would flash by before the workbench takes the screen:
	# it is shown only when the check fails.
	out=$("$cmc" check --hash both --db "$db" "$scn" 2>&1) || {
		printf '%s\n' "$out" >&2
		exit 1
	}
	exec "$cmc" tui "$db"
fi
echo "the list demo: $scn explored with raw and canonical fingerprints"
"$cmc" check --hash both --db "$db" "$scn" || exit
echo
echo "stored as run 1 of $db; no workbench without a terminal.  From one:"
printf '  %-44s # %s\n' "$cmc tui $db" "the workbench on it (what make run opens)" \
	"$cmc compare --db $db" "each canonical state with its raw variants"
