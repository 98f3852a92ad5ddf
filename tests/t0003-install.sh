#!/bin/sh
# t0003-install: `make install` honours PREFIX and DESTDIR and installs the
# program, the preload, the public headers, a pkg-config file and the man
# page; the installed headers are enough to build a model as a shared object
# that the installed cmc checks.
. "$(dirname "$0")/test-lib.sh"
root="$T/root"
make -s -C "$CMC_TOP" B="$B" SANITIZE="${SANITIZE:-}" install DESTDIR="$root" PREFIX=/opt/cmc >"$T/make.out" 2>&1
is "make install succeeds" "$?" 0
for f in bin/cmc lib/libcmc.a lib/libcmc-preload.so include/cmc/cmc.h include/cmc/cmc_model.h \
	include/cmc/cmc_emit.h lib/pkgconfig/cmc.pc share/man/man1/cmc.1; do
	ok "installs $f" test -s "$root/opt/cmc/$f"
done
ok "the pkg-config file names the prefix" grep -q '^prefix=/opt/cmc$' "$root/opt/cmc/lib/pkgconfig/cmc.pc"
ok "the pkg-config file carries the version" sh -c "grep -q \"^Version: \$($CMC --version | cut -d' ' -f2)\$\" '$root/opt/cmc/lib/pkgconfig/cmc.pc'"
cp "$CMC_TOP/share/models/diehard.c" "$T/m.c"
cc -std=c11 -fPIC -shared -DCMC_MODEL_SO -I"$root/opt/cmc/include/cmc" -o "$T/m.so" "$T/m.c"
is "a model builds against the installed headers" "$?" 0
"$root/opt/cmc/bin/cmc" check --no-store --json "$T/m.so" >"$T/m.json" 2>&1
is "the installed cmc checks it (16 states, as diehard)" "$(json_get "$T/m.json" distinct)" 16
done_testing
