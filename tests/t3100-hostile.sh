#!/bin/sh
# t3100-hostile: labels carry untrusted target bytes.  A run whose operation
# labels, canonical records, fault text and violation are full of quotes,
# braces, angle brackets, HTML, Graphviz escapes (\N \G \l \n), control
# bytes and invalid UTF-8 (written by the t3-viz helper) renders to DOT
# that cgraph reads back with every node and edge, and to well-formed SVG
# in which none of those bytes survives raw.
. "$(dirname "$0")/test-lib.sh"

H=$CMC_TOP/$B/tests-helpers/t3-viz
db=$T/h.db
ok "the hostile run is stored" "$H" hostile "$db"
# The helper's system: states 0..3 in a chain, each of 1..3 back to 0.
ok "DOT of it is written" "$CMC" graph --db "$db" -o h.dot
is "... and reads back whole: 4 states, 3 + 3 transitions" "$("$H" count h.dot)" \
	"nodes 4 edges 6 clusters 0 trace 0 legend 1"
ok "SVG of it is well-formed XML" sh -c '"$CMC" graph --db "$0" -o h.svg && xmllint --noout h.svg' "$db"
ok "raw vs canonical SVG is well-formed too" sh -c '"$CMC" graph --db "$0" --raw-vs-canonical -o hr.svg && xmllint --noout hr.svg' "$db"
"$CMC" graph --db "$db" --raw-vs-canonical -o hr.dot >/dev/null
is "... with one cluster per canonical record" "$("$H" count hr.dot | cut -d' ' -f5-6)" "clusters 4"
ok "the counterexample SVG is well-formed" sh -c '"$CMC" graph --db "$0" --trace 1 -o ht.svg && xmllint --noout ht.svg' "$db"
ok "PNG and PDF render too" sh -c '"$CMC" graph --db "$0" -o h.png && "$CMC" graph --db "$0" -o h.pdf' "$db"

# No control byte (ESC, BEL, SOH...) and no byte >= 0x80 reaches the files.
nonascii() { LC_ALL=C tr -d '\11\12\15\40-\176' <"$1" | wc -c | tr -d ' '; }
is "no control or non-ASCII byte in the SVG" "$(nonascii h.svg)" 0
is "... nor in the DOT" "$(nonascii h.dot)" 0
is "... nor in the raw-vs-canonical SVG" "$(nonascii hr.svg)" 0
not_ok "no <script> element from a label" grep -q "<script" h.svg
not_ok "no </text> from a label closes an SVG element early" grep -q "</text><script" h.svg
ok "the escape sequence shows as text" grep -q 'x1b\[31mred' h.svg
ok "invalid UTF-8 shows as \\xHH" grep -q 'xff\\\\xfe' h.dot
# Graphviz would expand \N to the node name: the label keeps a literal \N.
"$H" labels h.dot >labels
ok "backslash escapes stay literal (doubled in DOT)" grep -q 'SET \\\\N\\\\G\\\\l\\\\n' labels
ok "the fault text is escaped in the tooltip" grep -q 'hung "<forever>" \\\\x1b\]0;title\\\\x07' labels
ok "the run name is HTML-escaped in the caption" grep -q 'hostile&lt;&quot;&amp;&quot;&gt;' labels
done_testing
