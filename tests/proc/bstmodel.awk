# tests/proc/bstmodel.awk — the model t5380 derives its expected counts
# from: every sequence of distinct operations among INS a, INS b, INS c and
# DEL d (-v a=1 -v b=2 -v c=3 -v d=2), applied to an empty unbalanced binary
# search tree that deletes as share/examples/bst/bst.c does (a node with
# two children takes its in-order successor's key).  One line per sequence:
# the operations applied (as a set), then with mode=shape the tree (keys
# and shape, preorder), with mode=set its keys in order.  `sort -u | wc -l`
# counts the states an identity of (operations applied, tree) or
# (operations applied, set) tells apart.
function newnode(k) { nn++; key[nn] = k; L[nn] = 0; R[nn] = 0; return nn }
function setchild(par, side, c) { if (!par) root = c; else if (side == "L") L[par] = c; else R[par] = c }
function ins(k,   p) {
	if (!root) { root = newnode(k); return }
	for (p = root; ; ) {
		if (k == key[p]) return
		if (k < key[p]) { if (L[p]) p = L[p]; else { L[p] = newnode(k); return } }
		else { if (R[p]) p = R[p]; else { R[p] = newnode(k); return } }
	}
}
function del(k,   p, par, side, s, sp, ss) {
	for (p = root; p && key[p] != k; ) { par = p; if (k < key[p]) { side = "L"; p = L[p] } else { side = "R"; p = R[p] } }
	if (!p) return
	if (L[p] && R[p]) {
		sp = p; ss = "R"
		for (s = R[p]; L[s]; s = L[s]) { sp = s; ss = "L" }
		key[p] = key[s]; setchild(sp, ss, R[s]); return
	}
	setchild(par, side, L[p] ? L[p] : R[p])
}
function shape(p) { return p ? "(" key[p] shape(L[p]) shape(R[p]) ")" : "." }
function keys(p) { return p ? keys(L[p]) " " key[p] keys(R[p]) : "" }
function run(seq,   i, n, a, used) { # a: the sequence's op numbers (local)
	root = 0; nn = 0; used = ""
	n = split(seq, a, " ")
	for (i = 1; i <= n; i++) { if (a[i] == 4) del(d); else ins(op[a[i]]); }
	for (i = 1; i <= 4; i++) used = used (index(" " seq " ", " " i " ") ? i : "-")
	print used, (mode == "shape" ? shape(root) : keys(root))
}
function gen(seq,   i) {
	run(seq)
	for (i = 1; i <= 4; i++) if (!index(" " seq " ", " " i " ")) gen(seq " " i)
}
BEGIN { op[1] = a; op[2] = b; op[3] = c; gen("") }
