#!/bin/sh
# t0002-man: the man page is kept current — every command in cmc's table and
# every long option of `cmc check` is documented in share/man/cmc.1, and the
# page renders without warnings.
. "$(dirname "$0")/test-lib.sh"
man="$CMC_TOP/share/man/cmc.1"
"$CMC" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' >"$T/cmds"
ok "cmc --help lists commands" test -s "$T/cmds"
while read -r c; do
	ok "man page documents the $c command" grep -Eq "^\.B(I)? \"?$c\b|^\.B cmc $c\b" "$man"
done <"$T/cmds"
"$CMC" help check | sed -n 's/^  \(--[a-z-]*\).*/\1/p; s/^  --[a-z]* | \(--[a-z-]*\).*/\1/p' | sort -u >"$T/opts"
ok "cmc help check lists options" test -s "$T/opts"
while read -r o; do
	esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
	ok "man page documents check $o" grep -q -- "$esc" "$man"
done <"$T/opts"
if command -v groff >/dev/null 2>&1; then
	LC_ALL=C groff -man -Tutf8 -ww "$man" >/dev/null 2>"$T/warn"
	ok "the man page renders without warnings" test ! -s "$T/warn"
else
	skip "the man page renders without warnings" "groff is not installed"
fi
done_testing
