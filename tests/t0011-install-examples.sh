#!/bin/sh
# t0011-install-examples: `make install` installs examples that run.  The
# scenarios go to PREFIX/share/cmc/examples, the targets and plugins they
# name to PREFIX/lib/cmc/examples, and the installed scenarios find them
# from the installed cmc (${CMC_BIN}), under DESTDIR too, whatever the
# current directory.  A target that is not there is reported by its
# absolute path, not as a path "relative to the scenario's directory".
. "$(dirname "$0")/test-lib.sh"
root="$T/root"
make -s -C "$CMC_TOP" B="$B" SANITIZE="${SANITIZE:-}" install DESTDIR="$root" PREFIX=/usr >"$T/make.out" 2>&1
is "make install succeeds" "$?" 0
cmc="$root/usr/bin/cmc" ex="$root/usr/share/cmc/examples"
mkdir "$T/elsewhere" && cd "$T/elsewhere" || exit 1
for f in list/list.scn list/demo.sh heapbugs/doublefree.scn; do
	ok "installs the example $f" test -s "$ex/$f"
done
for f in list-emit list-bug keys_present.so heapbugs-doublefree hostile/hostile; do
	ok "installs the built target $f" test -x "$root/usr/lib/cmc/examples/$f"
done
not_ok "installs no build.mk among the examples" sh -c "ls '$ex'/*/build.mk"

"$cmc" check --no-store --hash both "$ex/list/list.scn" >out 2>err
is "the installed list.scn runs from another directory (exit 0)" "$?" 0
ok "and finds 16 raw and 8 canonical states" grep -q 'spanning 16 raw and 8 canonical' out
"$cmc" check --no-store "$ex/list/list-bug.scn" >out 2>err
is "the installed list-bug.scn finds its bug (exit 1)" "$?" 1
ok "with its installed plugin: keys-present" grep -q '^violation: keys-present' out
"$cmc" check --no-store "$ex/heapbugs/doublefree.scn" >out 2>err
is "an installed heap-bug example runs (exit 1)" "$?" 1
ok "and reports its double free" grep -q 'INV-15' out
sh "$ex/list/demo.sh" "$cmc" demo.db </dev/null >out 2>&1
is "the installed demo runs" "$?" 0
ok "the installed demo shows 16 raw and 8 canonical" grep -q 'spanning 16 raw and 8 canonical' out

rm "$root/usr/lib/cmc/examples/list-emit"
"$cmc" check --no-store "$ex/list/list.scn" >out 2>err
is "a missing installed target: exit 2" "$?" 2
ok "the error names the absolute path" grep -q "'$root/usr/bin/../lib/cmc/examples/list-emit' was not found" err
not_ok "and does not call it relative" grep -q relative err
done_testing
