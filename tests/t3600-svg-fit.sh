#!/bin/sh
# t3600-svg-fit: every kind of picture cmc draws, rendered to SVG by
# Graphviz and drawn again by a second renderer (rsvg-convert), keeps its
# text inside its boxes, and no edge crosses a cluster's title.  The helper
# (tests/viz/svgfit.c) reads where rsvg really put the ink of each text
# (cairo's SVG output: one filled path per text, told apart by colour) and
# compares it with the boxes in Graphviz's SVG.
# Pictures: the state graph with its legend (diehard-solve, with the
# counterexample), the list example's graph, raw vs canonical and level
# summary, the allocator of a healthy state and of a state failing an
# invariant (heapbugs overflow), and a run of hostile labels.
. "$(dirname "$0")/test-lib.sh"

command -v rsvg-convert >/dev/null 2>&1 ||
	{ skip "svg fit" "rsvg-convert missing (TEST_DEPS installs librsvg2-bin)"; done_testing; exit; }
F=$CMC_TOP/$B/tests-helpers/svgfit
H=$CMC_TOP/$B/tests-helpers/t3-viz
export CMC_BIN="$CMC_TOP/$B"

# fits NAME.svg: the text of NAME.svg, as rsvg draws it, fits its boxes.
fits() {
	"$F" prep "$1" "$1.text.svg" && rsvg-convert -f svg "$1.text.svg" >"$1.ink.svg" &&
		"$F" check "$1" "$1.ink.svg"
}

# ---- the checker itself: a label wider than its box is caught ------------------
cat >spill.svg <<'XML'
<svg width="300pt" height="100pt" viewBox="0.00 0.00 300.00 100.00" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 96)">
<g id="node1" class="node">
<polygon fill="none" stroke="black" points="60,-70 10,-70 10,-40 60,-40 60,-70"/>
<text text-anchor="middle" x="35" y="-51" font-family="DejaVu Sans" font-size="14.00">far too long a label</text>
</g>
<g id="clust1" class="cluster">
<polygon fill="none" stroke="black" points="150,-90 290,-90 290,-10 150,-10 150,-90"/>
<text text-anchor="middle" x="220" y="-74" font-family="DejaVu Sans" font-size="14.00">title</text>
</g>
<g id="edge1" class="edge">
<path fill="none" stroke="black" d="M220,-100C220,-90 220,-70 220,-50"/>
</g>
</g>
</svg>
XML
not_ok "svgfit: a label wider than its box fails" fits spill.svg
fits spill.svg >spill.out
ok "svgfit: ... naming the label that spills" grep -q '"far too long a label".*spills out of' spill.out
ok "svgfit: an edge through a cluster's title is caught" grep -q '"title".*crossed by an edge' spill.out

# ---- the pictures --------------------------------------------------------------
"$CMC" check --db d.db diehard-solve >/dev/null 2>&1
ok "graph --trace: counterexample and legend fit" sh -c '"$0" graph --db d.db --trace 1 -o trace.svg' "$CMC"
ok "graph --trace: text fits its boxes in rsvg" fits trace.svg

"$CMC" check --db l.db --hash both "$CMC_TOP/share/examples/list/list.scn" >/dev/null 2>&1
is "list: explored" "$?" 0
"$CMC" graph --db l.db -o g.svg >/dev/null 2>&1
ok "graph: text fits its boxes in rsvg" fits g.svg
"$CMC" graph --db l.db --raw-vs-canonical -o rvc.svg >/dev/null 2>&1
ok "graph --raw-vs-canonical: text fits, no edge crosses a title" fits rvc.svg
"$CMC" graph --db l.db --summary -o sum.svg >/dev/null 2>&1
ok "graph --summary: text fits its boxes in rsvg" fits sum.svg
"$CMC" heap --db l.db 3 -o heap.svg >/dev/null 2>&1
ok "heap of a healthy state: text fits its boxes in rsvg" fits heap.svg

"$CMC" check --db o.db "$CMC_TOP/share/examples/heapbugs/overflow.scn" >/dev/null 2>&1
s=$("$CMC" trace --db o.db --json | sed -n 's/.*"state": \([0-9]*\), "length".*/\1/p' | head -n 1)
"$CMC" heap --db o.db "$s" -o inv.svg >/dev/null 2>&1
ok "heap of a failing invariant: text fits its boxes in rsvg" fits inv.svg

"$H" hostile x.db >/dev/null 2>&1
"$CMC" graph --db x.db --raw-vs-canonical -o hostile.svg >/dev/null 2>&1
ok "hostile labels: text fits its boxes in rsvg" fits hostile.svg

# ---- what the raw-vs-canonical picture says about each variant -----------------
# The list's canonical state {1,2} (c4 in discovery order) holds two raw
# variants, #4 (INS 1, INS 2) and #6 (INS 2, INS 1): the first carries the
# cluster's title, the other how its raw bytes differ from the first's.
"$CMC" graph --db l.db --raw-vs-canonical -o rvc.dot >/dev/null 2>&1
ok "raw vs canonical: the first variant names its canonical state" \
	sh -c '"$0" labels rvc.dot | grep -q "^node #4 d=3\\\\ncanonical c4: 2 raw variants"' "$H"
ok "raw vs canonical: the other variant says where its raw bytes differ from #4" \
	sh -c '"$0" labels rvc.dot | grep -Eq "^node #6 d=3\\\\nraw vs #4: \\+0x[0-9a-f]+\\\\n[0-9a-f]+ -> [0-9a-f]+\\\\n[0-9]+ bytes? differs?"' "$H"
ok "raw vs canonical: clusters carry no title of their own" \
	sh -c '! grep -q "subgraph cluster_c.*label=" rvc.dot && ! grep -A3 "^subgraph cluster" rvc.dot | grep -q "^\s*label="' 

# ---- what the allocator picture says about a chunk -----------------------------
"$CMC" heap --db l.db 3 -o heap.dot >/dev/null 2>&1
ok "heap: a chunk says how many bytes its live blocks asked for" grep -q 'B asked for' heap.dot
ok "heap: ... and whose it is" grep -q 'owner: the main thread' heap.dot
not_ok "heap: an intact header's magic and claim word stay out of the label" \
	sh -c 'grep "label=<" "$0" | grep -Eq "magic|claim"' heap.dot
done_testing
