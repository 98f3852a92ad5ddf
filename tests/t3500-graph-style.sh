#!/bin/sh
# t3500-graph-style: what the pictures look like, read back from the DOT
# cmc writes (flattened by the awk below into one line per node and edge
# with its attributes) and from the SVG Graphviz renders (xmllint XPath),
# against what the store says about each state and transition:
#   - initial states (parent none) have the double border and the legend's
#     "initial" fill; violating states (named by a violations row) the
#     legend's violation fill; states the store marks as faults (crash,
#     hang) the legend's fault fill; every other state no fill;
#   - each non-initial state has exactly one solid edge into it, from its
#     parent with its operation (the BFS tree), so the solid edges are
#     distinct - initial and the dashed ones transitions - (distinct -
#     initial); a dashed edge to a state no deeper than its source (depth
#     from the store) is a back edge, in the legend's back-edge colour and
#     without layout constraint, any other a grey "already seen" edge;
#   - every picture has a legend whose swatches are the colours used: the
#     state graph, --trace, --raw-vs-canonical, the canonical collapse, the
#     level summary, and `cmc heap` (slot colours by the slot strip).
# Runs: diehard (complete: 80 back edges, 1 into a deeper seen state),
# diehard-solve (a violation), the list example by canonical identity
# (merges: edges into seen states, no back edge), a proctarget scenario
# with a crash, a hang and a forbidden exit, and the heapbugs overflow.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null 2>&1 || { skip "graph style" "sqlite3 CLI missing (TEST_DEPS installs it)"; done_testing; exit; }
have_xmllint=yes
command -v xmllint >/dev/null 2>&1 || have_xmllint=
export CMC_BIN="$CMC_TOP/$B"
H=$CMC_TOP/$B/tests-helpers/t3-viz

# ---- reading the DOT back ---------------------------------------------------
# One line per statement: "node NAME|k=v|...|", "edge TAIL HEAD|k=v|...|"
# (ports dropped), "default node|...|"; quoted values unquoted, HTML labels
# kept whole.  cgraph ends every statement with ";", "{" or "}" and breaks
# lines only between attributes (or inside a long string, after "\").
cat >"$T/dot.awk" <<'EOF'
function flush(   s, i, c, n, head, key, val, depth, out, q, hp) {
	s = stmt; stmt = ""
	n = length(s); q = 0
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (q) { if (c == "\\") i++; else if (c == "\"") q = 0; continue }
		if (c == "\"") q = 1
		else if (c == "[") break
	}
	head = substr(s, 1, i - 1); gsub(/^[ \t]+|[ \t;]+$/, "", head); gsub(/"/, "", head)
	if (head ~ /^(graph|node|edge)$/) out = "default " head "|"
	else if (head ~ /->/) {
		split(head, hp, /[ \t]*->[ \t]*/); sub(/:.*/, "", hp[1]); sub(/:.*/, "", hp[2])
		out = "edge " hp[1] " " hp[2] "|"
	} else if (head == "" || head ~ /^(subgraph|digraph|graph|strict)[ \t]|^[{}]/) return
	else out = "node " head "|"
	i++
	while (i <= n) {
		c = substr(s, i, 1)
		if (c ~ /[ \t,]/) { i++; continue }
		if (c == "]") break
		key = ""
		while (i <= n && (c = substr(s, i, 1)) != "=" && c != "]") { key = key c; i++ }
		i++; val = ""; c = substr(s, i, 1)
		if (c == "\"") {
			for (i++; i <= n && (c = substr(s, i, 1)) != "\""; i++) {
				if (c == "\\") { val = val c; i++; c = substr(s, i, 1) }
				val = val c
			}
			i++
		} else if (c == "<") {
			for (depth = 0; i <= n; ) {
				c = substr(s, i, 1); val = val c; i++
				if (c == "<") depth++
				else if (c == ">" && --depth == 0) break
			}
		} else
			for (; i <= n && (c = substr(s, i, 1)) !~ /[,\] \t]/; i++) val = val c
		gsub(/[ \t]+$/, "", key)
		out = out key "=" val "|"
	}
	print out
}
{
	line = $0; sub(/^[ \t]+/, "", line)
	if (cont) { sub(/\\$/, "", stmt); stmt = stmt line } else stmt = stmt (stmt == "" ? "" : " ") line
	cont = line ~ /\\$/
	if (!cont && line ~ /[;{}]$/) flush()
}
END { if (stmt != "") flush() }
EOF
flat() { awk -f "$T/dot.awk" "$1"; }
# attr LINE-FILE KEY: the value of KEY on each line ("-" when absent)
attrs() { awk -v k="$2" '{ v = "-"; if (match($0, "\\|" k "=[^|]*")) v = substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2); print v }' "$1"; }
# legend_rows FLAT: "colour<TAB>text" per legend row (colour "-" when none)
legend_rows() {
	grep '^node legend|' "$1" | sed 's/<TR>/\n/g' | sed -n '3,$p' | awk '{
		c = "-"; if (match($0, /BGCOLOR="[^"]*"/)) c = substr($0, RSTART + 9, RLENGTH - 10)
		t = $0; gsub(/<[^>]*>/, "", t); sub(/\|.*/, "", t); gsub(/^[ >]+|[ >]+$/, "", t)
		print c "\t" t }'
}
# legend_colour FLAT PREFIX: the swatch of the row whose text starts so
legend_colour() { legend_rows "$1" | awk -F'\t' -v p="$2" 'index($2, p) == 1 { print $1; exit }'; }
# node_ids FLAT KEY VALUE: the state ids whose node has KEY=VALUE
node_ids() { grep '^node s[0-9]*|' "$1" | grep -F "|$2=$3|" | sed 's/^node s\([0-9]*\)|.*/\1/' | sort -n | tr '\n' ' '; }
# xp FILE XPATH: an XPath number from an SVG
xp() { xmllint --xpath "$2" "$1" 2>/dev/null; }
E="//*[local-name()='g'][@class='edge']"
N="//*[local-name()='g'][@class='node']"

# ---- the store's view of a run ----------------------------------------------
# states DB RUN > FILE: "id depth parent status label" (parent "-" for an
# initial state; label "-" too), from `cmc show --json`.
states() {
	n=$(sqlite3 "$1" "SELECT stored_states FROM runs WHERE id = $2")
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		"$CMC" show --db "$1" --run "$2" --json "$i" | sed -n '1s/^{"run": [0-9]*, "state": \([0-9]*\), "depth": \([0-9]*\), "status": "\([a-z]*\)", "parent": \([0-9a-z]*\), "label": \("[^"]*"\|null\).*/\1 \2 \4 \3 \5/p' |
			sed 's/ null / - /; s/ null$/ -/; s/"//g'
		i=$((i + 1))
	done
}
ids_where() { awk -v c="$2" '{ if (c == "initial" && $3 == "-") print $1; else if ($4 == c) print $1 }' "$1" | sort -n | tr '\n' ' '; }
viol_ids() { sqlite3 "$1" "SELECT DISTINCT state FROM violations WHERE run = $2 AND state IS NOT NULL ORDER BY 1" | tr '\n' ' '; }
minus() { { echo "$1" | tr ' ' '\n'; echo "$2" | tr ' ' '\n'; echo "$2" | tr ' ' '\n'; } | grep . | sort -n | uniq -u | tr '\n' ' '; }

# style NAME DB RUN: draw RUN to NAME.dot and NAME.svg and check the
# styling against the store; leaves the counts in n_back n_seen n_tree.
style() {
	name=$1 db=$2 run=$3
	"$CMC" graph --db "$db" --run "$run" -o "$name.dot" >/dev/null 2>&1
	is "$name: graph writes DOT" $? 0
	flat "$name.dot" >"$name.flat"
	states "$db" "$run" >"$name.states"
	distinct=$(sqlite3 "$db" "SELECT stored_states FROM run_list WHERE run = $run")
	trans=$(sqlite3 "$db" "SELECT stored_transitions FROM run_list WHERE run = $run")
	is "$name: every stored state in the store's view" "$(wc -l <"$name.states" | tr -d ' ')" "$distinct"
	is "$name: DOT parses with every state, transition and the legend" "$("$H" count "$name.dot" | cut -d' ' -f1-4,9-10)" \
		"nodes $distinct edges $trans legend 1"

	IC=$(legend_colour "$name.flat" "initial state")
	VC=$(legend_colour "$name.flat" "a property is violated")
	FC=$(legend_colour "$name.flat" "fault")
	BC=$(legend_colour "$name.flat" "dashed blue edge: back edge")
	ok "$name: the legend has distinct swatches for initial, violation, fault, back edge ($IC $VC $FC $BC)" \
		test -n "$IC" -a -n "$VC" -a -n "$FC" -a -n "$BC" -a "$(printf '%s\n' "$IC" "$VC" "$FC" "$BC" | sort -u | wc -l)" -eq 4
	legend_rows "$name.flat" >"$name.legend"
	ok "$name: ... and names the tree edges" grep -q '	solid edge: first reached this way' "$name.legend"
	ok "$name: ... and the edges into already-seen states" grep -q '	dashed grey edge: into an already-seen state' "$name.legend"

	init=$(ids_where "$name.states" initial)
	fault=$(ids_where "$name.states" fault)
	viol=$(minus "$(viol_ids "$db" "$run")" "$fault")
	ok "$name: the store names initial states ($init)" test -n "$init"
	is "$name: the initial states, and only they, have the double border" "$(node_ids "$name.flat" peripheries 2)" "$init"
	is "$name: violating states have the violation fill" "$(node_ids "$name.flat" fillcolor "$VC")" "$viol"
	is "$name: fault states have the fault fill" "$(node_ids "$name.flat" fillcolor "$FC")" "$fault"
	is "$name: initial states that are neither have the initial fill" "$(node_ids "$name.flat" fillcolor "$IC")" \
		"$(minus "$(minus "$init" "$viol")" "$fault")"
	is "$name: no other state is filled" \
		"$(grep '^node s[0-9]*|' "$name.flat" | grep '|fillcolor=' | grep -v -F -e "|fillcolor=$VC|" -e "|fillcolor=$FC|" -e "|fillcolor=$IC|")" ""

	# edges: "tail head style color constraint label" (ids without the s)
	grep '^edge s[0-9]* s[0-9]*|' "$name.flat" >"$name.e"
	sed 's/^edge s\([0-9]*\) s\([0-9]*\)|.*/\1 \2/' "$name.e" >"$name.ends"
	attrs "$name.e" style >"$name.st"
	attrs "$name.e" color >"$name.co"
	attrs "$name.e" constraint >"$name.cn"
	attrs "$name.e" label >"$name.lb"
	paste -d' ' "$name.ends" "$name.st" "$name.co" "$name.cn" "$name.lb" >"$name.edges"
	n_init=$(echo "$init" | wc -w | tr -d ' ')
	n_tree=$(awk '$3 == "-"' "$name.edges" | wc -l | tr -d ' ')
	is "$name: solid edges = distinct - initial states ($((distinct - n_init)))" "$n_tree" "$((distinct - n_init))"
	is "$name: ... each from the state's parent by its operation (the BFS tree)" \
		"$(awk '$3 == "-" { t = $1 " " $2; for (i = 6; i <= NF; i++) t = t " " $i; print t }' "$name.edges" | sort)" \
		"$(awk '$3 != "-" { t = $3 " " $1; for (i = 5; i <= NF; i++) t = t " " $i; print t }' "$name.states" | sort)"
	is "$name: dashed edges = transitions - (distinct - initial) = $((trans - distinct + n_init))" \
		"$(awk '$3 == "dashed"' "$name.edges" | wc -l | tr -d ' ')" "$((trans - distinct + n_init))"
	is "$name: no edge of another style" "$(awk '$3 != "-" && $3 != "dashed"' "$name.edges")" ""
	# depth of each state from the store; classify every dashed edge
	awk 'NR == FNR { d[$1] = $2; next }
	     $3 == "dashed" { print (d[$2] <= d[$1] ? "back" : "seen"), $4, $5, $1 "->" $2 }' \
		"$name.states" "$name.edges" >"$name.kinds"
	n_back=$(grep -c '^back' "$name.kinds")
	n_seen=$(grep -c '^seen' "$name.kinds")
	is "$name: back edges (to no deeper a state, $n_back) in the back colour, unconstrained" \
		"$(awk -v c="$BC" '$1 == "back" && !($2 == c && $3 == "false")' "$name.kinds")" ""
	is "$name: edges into deeper seen states ($n_seen) in one grey, constrained" \
		"$(awk '$1 == "seen" && !(substr($2, 2, 2) == substr($2, 4, 2) && substr($2, 4, 2) == substr($2, 6, 2) && $3 != "false") { print } $1 == "seen" && !($2 in g) { g[$2]; ng++ } END { if (ng > 1) print "greys" }' "$name.kinds")" ""

	if [ -n "$have_xmllint" ]; then
		"$CMC" graph --db "$db" --run "$run" -o "$name.svg" >/dev/null 2>&1
		ok "$name: SVG well-formed" xmllint --noout "$name.svg"
		is "$name: SVG edges: all, dashed, dashed in the back colour" \
			"$(xp "$name.svg" "count($E)") $(xp "$name.svg" "count($E/*[local-name()='path'][@stroke-dasharray])") $(xp "$name.svg" "count($E/*[local-name()='path'][@stroke-dasharray][@stroke='$BC'])")" \
			"$trans $((trans - distinct + n_init)) $n_back"
		S="$N[starts-with(*[local-name()='title'],'s')]"
		is "$name: SVG nodes filled: violation, fault" \
			"$(xp "$name.svg" "count($S//*[local-name()='path'][@fill='$VC'])") $(xp "$name.svg" "count($S//*[local-name()='path'][@fill='$FC'])")" \
			"$(echo "$viol" | wc -w | tr -d ' ') $(echo "$fault" | wc -w | tr -d ' ')"
		i=${init%% *}
		is "$name: SVG: initial state $i drawn with two outlines" \
			"$(xp "$name.svg" "count($N[*[local-name()='title']='s$i']//*[local-name()='path'])")" 2
		is "$name: SVG: the legend is drawn" "$(xp "$name.svg" "count($N[*[local-name()='title']='legend'])")" 1
	else
		skip "$name: SVG" "xmllint missing"
	fi
}

db=$T/g.db

# ---- diehard: a complete model run ------------------------------------------
"$CMC" check --db "$db" --json diehard >dh.json
is "diehard is stored" $? 0
style dh "$db" 1
is "diehard: the store's transitions are the engine's" "$trans" "$(json_get dh.json transitions)"
ok "diehard: both kinds of non-tree edge occur (back $n_back, seen $n_seen)" test "$n_back" -gt 0 -a "$n_seen" -gt 0

# ---- diehard-solve: a violation, and its trace ----------------------------
"$CMC" check --db "$db" diehard-solve >/dev/null
is "diehard-solve: a violation (exit 1)" $? 1
style ds "$db" 2
ok "diehard-solve: one state has the violation fill" test "$(echo "$viol" | wc -w)" -eq 1
vid=$(sqlite3 "$db" 'SELECT violation FROM violations_with_traces WHERE run = 2')
"$CMC" graph --db "$db" --trace "$vid" -o tr.dot >/dev/null 2>&1
flat tr.dot >tr.flat
TC=$(legend_colour tr.flat "bold red: the counterexample")
ok "--trace: the legend explains the highlighted path ($TC)" test -n "$TC"
is "--trace: the highlighted edges (penwidth 3) are in its colour and bold" \
	"$(grep '^edge s' tr.flat | grep -F '|penwidth=3|' | grep -v -F "|color=$TC|" ; grep '^edge s' tr.flat | grep -F '|penwidth=3|' | grep -v -F '|style=bold|')" ""
is "--trace: as many as the trace has steps" "$(grep '^edge s' tr.flat | grep -c -F "|color=$TC|")" \
	"$(sqlite3 "$db" "SELECT steps FROM violations_with_traces WHERE violation = $vid")"

# ---- the list example by canonical identity: merges -------------------------
"$CMC" check --db "$db" --json "$CMC_TOP/share/examples/list/list.scn" >list.json 2>list.err
explored_or_stop $? list.json 8 list.err "the list example is explored by canonical identity"
style list "$db" 3
# keys only grow: no transition leads back up, and {1,2} reached from {1}
# and from {2} means edges into already-seen states of the next level.
is "list: no back edge (keys are only added)" "$n_back" 0
ok "list: merged orders are edges into seen states ($n_seen)" test "$n_seen" -gt 0

# ---- a crash, a hang and a forbidden exit (tests/proc/proctarget.c) ---------
# inc counts; bomb crashes once the counter is >= 2 (SIGSEGV: a fault);
# hang never answers (a fault after the timeout); quit exits with 3, which
# `property exit 0` forbids (a violation).  Every exit is the same ended
# state, so quit from any counter after the first is an edge back to it.
printf 'target %s\nop inc "inc\\n"\nop bomb "bomb\\n"\nop quit "exit 3\\n"\nop hang "hang\\n" once\nproperty exit 0\nraw symbol counter\nhash raw\ndepth 4\ntimeout 500\n' \
	"$CMC_TOP/$B/tests-helpers/proctarget" >faults.scn
"$CMC" check --db "$db" --keep-going --json faults.scn >faults.json 2>/dev/null
is "faults: violations found (exit 1)" $? 1
style faults "$db" 4
ok "faults: the store holds fault states ($fault) and violations ($viol)" test -n "$fault" -a -n "$viol"
ok "faults: a crash among the faults" grep -q '"property": "crash"' faults.json
ok "faults: a hang among the faults" grep -q '"property": "timeout"' faults.json
ok "faults: back edges into the ended state ($n_back)" test "$n_back" -gt 0
bad=
for i in $fault; do
	f=$("$CMC" show --db "$db" --run 4 --json "$i" | sed -n 's/.*"fault": "\([^"]*\)".*/\1/p')
	[ -z "$f" ] && continue
	grep "^node s$i|" faults.flat | grep -q -F "fault: $f" || bad="$bad s$i"
done
is "faults: a fault's tooltip carries the store's fault text" "${bad:-none}" none
# an exit the scenario allows (no exit property) is an ordinary end state
printf 'target %s\nop inc "inc\\n" once\nop quit "exit 3\\n" once\n' "$CMC_TOP/$B/tests-helpers/proctarget" >exit.scn
"$CMC" check --db "$db" --json exit.scn >exit.json 2>/dev/null
is "allowed exit: no violation" $? 0
"$CMC" graph --db "$db" --run 5 -o exit.dot >/dev/null 2>&1
flat exit.dot >exit.flat
ex=
n=$(sqlite3 "$db" 'SELECT stored_states FROM runs WHERE id = 5'); i=0
while [ "$i" -lt "$n" ]; do
	"$CMC" show --db "$db" --run 5 --json "$i" | grep -q '"status": "ok".*"exit_status": 3' && ex="$ex $i"
	i=$((i + 1))
done
ok "allowed exit: the store has ok states that exited ($ex)" test -n "$ex"
bad=
for i in $ex; do grep "^node s$i|" exit.flat | grep -q '|fillcolor=' && bad="$bad s$i"; done
is "... drawn without a fill" "${bad:-none}" none
legend_rows exit.flat >exit.legend
ok "... and the legend has a fault row" grep -q '^#[0-9a-f]*	fault' exit.legend
not_ok "... that does not call an exit a fault" grep -q '	fault.*exit' exit.legend

# ---- the level summary ------------------------------------------------------
"$CMC" graph --db "$db" --run 4 --summary -o sum.dot >/dev/null 2>&1
flat sum.dot >sum.flat
LC=$(legend_colour sum.flat "a level holding a violation")
ok "--summary: a legend with the level colour ($LC)" test -n "$LC" -a "$("$H" count sum.dot | cut -d' ' -f9-10)" = "legend 1"
vdepths=$(for i in $(viol_ids "$db" 4); do awk -v i="$i" '$1 == i { print $2 }' faults.states; done | sort -n | uniq | tr '\n' ' ')
is "--summary: the levels holding violations ($vdepths) have that fill, and only they" \
	"$(grep '^node L[0-9]*|' sum.flat | grep -F "|fillcolor=$LC|" | sed 's/^node L\([0-9]*\)|.*/\1/' | sort -n | tr '\n' ' ')" "$vdepths"

# ---- raw against canonical, and the canonical collapse ----------------------
"$CMC" check --db "$db" --hash both "$CMC_TOP/share/examples/list/list.scn" >/dev/null 2>&1
"$CMC" graph --db "$db" --run 6 --raw-vs-canonical -o rvc.dot >/dev/null 2>&1
flat rvc.dot >rvc.flat
ok "--raw-vs-canonical: the legend explains the boxes" sh -c "grep '^node legend|' '$T/rvc.flat' | grep -q 'box around states: one canonical state'"
is "--raw-vs-canonical: ... and still marks the initial state" "$(node_ids rvc.flat fillcolor "$(legend_colour rvc.flat "initial state")")" "0 "
# five keys: 326 orders in 32 subsets; --budget 32 leaves 8 x 32 = 256 < 326
# nodes, so raw-vs-canonical collapses to one node per subset.  The bug run
# keeps going: every group holding a violating state is coloured.
{ grep -v '^op' "$CMC_TOP/share/examples/list/list-bug.scn"; for k in 1 2 3 4 5; do printf 'op "INS %s" "INS %s\\n" once\n' $k $k; done; } >bug5.scn
"$CMC" check --db "$db" --hash both --keep-going bug5.scn >/dev/null 2>&1
rid=$(sqlite3 "$db" 'SELECT max(id) FROM runs')
"$CMC" graph --db "$db" --run "$rid" --raw-vs-canonical --budget 32 -o col.dot >/dev/null 2>col.err
ok "collapse: one node per canonical state" grep -q 'collapsed into 32 canonical states' col.err
flat col.dot >col.flat
CI=$(legend_colour col.flat "initial state") CV=$(legend_colour col.flat "a property is violated")
ok "collapse: the legend explains the colours it uses ($CI $CV)" test -n "$CI" -a -n "$CV"
ok "... and the collapse" sh -c "grep '^node legend|' '$T/col.flat' | grep -q 'one node per canonical state'"
# expected per group, in discovery order (compare lists every state of a
# group here: with --hash both each state is its own raw variant)
sqlite3 "$db" "SELECT DISTINCT state FROM violations WHERE run = $rid" | sort -n >bug5.viol
"$CMC" compare --db "$db" --json "$rid" | grep '{"canon": ' >bug5.groups
is "collapse: compare lists the 32 canonical states" "$(wc -l <bug5.groups | tr -d ' ')" 32
k=0 bad=
while read -r line; do
	cnt=$(echo "$line" | sed -n 's/.*"states": \([0-9]*\), "record".*/\1/p')
	ids=$(echo "$line" | grep -o '"state": [0-9]*' | sed 's/[^0-9]//g' | sort -n)
	want=-
	echo "$ids" | grep -q -x 0 && want=$CI
	echo "$ids" | grep -q -x -F -f bug5.viol && want=$CV
	got=$(grep "^node c$k|" col.flat | sed -n 's/.*|fillcolor=\([^|]*\)|.*/\1/p')
	lab=$(grep "^node c$k|" col.flat | sed -n "s/.*|label=c$k: \([0-9]*\) state.*/\1/p")
	[ "${got:--}" = "$want" ] && [ "$lab" = "$cnt" ] || bad="$bad c$k($cnt:$want/$lab:${got:--})"
	k=$((k + 1))
done <bug5.groups
is "collapse: each canonical node's count, and its fill: violation when a state in it violates, else initial" "${bad:-none}" none

# ---- cmc heap: the legend, and the slot colours it names --------------------
# slot_check FLAT: the slot cells of chunk k0 against its strip (cmc_slots)
# and the legend: "cells N" when all N are in the colour the legend gives
# their character, else the first mismatches.
slot_check() {
	grep '^node k0|' "$1" >k0.line
	sed -n 's/.*|cmc_slots=\([^|]*\)|.*/\1/p' k0.line | fold -w1 >k0.chars
	grep -o 'TD BGCOLOR="#[0-9a-f]*"[^>]*WIDTH="10" HEIGHT="10"' k0.line | sed 's/TD BGCOLOR="\([^"]*\)".*/\1/' >k0.cells
	legend_rows "$1" >heap.legend
	paste -d' ' k0.chars k0.cells | awk -F'\t' '
		NR == FNR { leg[$2] = $1; next }
		{
			split($0, a, " "); c = a[1]; col = a[2]; t = "none"
			if (c == "#") t = "live slot"
			else if (c == ".") t = "free slot"
			else if (c == "p") t = "freed slot, poisoned"
			else if (c == "x") t = "x: free slot written (poison broken)"
			else if (c == "!") t = "!: live slot, redzone written (overflow)"
			else if (c == "?") t = "slot unknown: the stored raw window is cut (--raw-cap)"
			if (!(t in leg) || leg[t] != col) { if (bad++ < 3) print "slot " (FNR - 1) ": " c " " col " (" t ")" }
			n++
		}
		END { if (!bad) print "cells " n }' heap.legend -
}
"$CMC" heap --db "$db" --run 1 0 -o hm.dot >/dev/null 2>&1
is "heap of a model state: nothing to draw, exit 2" "$?" 2
not_ok "... and no picture without a legend" test -e hm.dot
"$CMC" heap --db "$db" --run 3 7 -o hl.dot >hl.out 2>&1
is "heap of the list's {1,2,3}: exit 0" $? 0
flat hl.dot >hl.flat
is "... a legend" "$(grep -c '^node legend|' hl.flat)" 1
ok "... three live slots in the strip" sh -c "grep '^node k0|' '$T/hl.flat' | grep -q '|cmc_live=3|'"
is "... every slot cell coloured as the legend says for its strip character" "$(slot_check hl.flat)" "cells 478"
ok "... the passing invariants' colour is the legend's live colour" \
	sh -c "grep '^node invariants|' '$T/hl.flat' | grep -q 'BGCOLOR=\"$(legend_colour hl.flat "live slot")\"> *pass'"
"$CMC" check --db "$db" "$CMC_TOP/share/examples/heapbugs/overflow.scn" >/dev/null 2>&1
rid=$(sqlite3 "$db" 'SELECT max(id) FROM runs')
s=$(sqlite3 "$db" "SELECT state FROM violations WHERE run = $rid LIMIT 1")
"$CMC" heap --db "$db" --run "$rid" "$s" -o ho.dot >/dev/null 2>&1
flat ho.dot >ho.flat
ok "heap of the overflow: an overrun slot in the strip" sh -c "grep '^node k0|' '$T/ho.flat' | grep -q '|cmc_slots=!'"
is "... every slot cell coloured as the legend says" "$(slot_check ho.flat)" "cells 478"
ok "... the failing invariant in the legend's 'failing invariant' colour" \
	sh -c "grep '^node invariants|' '$T/ho.flat' | grep -q 'BGCOLOR=\"$(legend_colour ho.flat "failing invariant points here")\">FAIL'"
# a raw window cut by --raw-cap: slots that cannot be read are drawn
# "unknown".  A file of its own: blobs are shared by content, so in $db the
# list run's whole snapshots would be found again.
"$CMC" check --db cut.db --raw-cap 17300 "$CMC_TOP/share/examples/list/list.scn" >/dev/null 2>&1
"$CMC" heap --db cut.db 7 -o hc.dot >/dev/null 2>&1
flat hc.dot >hc.flat
ok "heap of a cut window: unknown slots in the strip" sh -c "grep '^node k0|' '$T/hc.flat' | grep -q '|cmc_slots=[^|]*?'"
is "... coloured as the legend says (the legend has a row for them)" "$(slot_check hc.flat)" "cells 478"
if [ -n "$have_xmllint" ]; then
	"$CMC" heap --db "$db" --run 3 7 -o hl.svg >/dev/null 2>&1
	ok "heap SVG: well-formed" xmllint --noout hl.svg
	is "heap SVG: the legend is drawn" "$(xp hl.svg "count($N[*[local-name()='title']='legend'])")" 1
	"$CMC" graph --db "$db" --run 4 --summary -o sum.svg >/dev/null 2>&1
	is "summary SVG: the legend is drawn" "$(xp sum.svg "count($N[*[local-name()='title']='legend'])")" 1
else
	skip "heap SVG" "xmllint missing"
fi
done_testing
