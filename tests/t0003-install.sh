#!/bin/sh
# t0003-install: `make install` honours PREFIX and DESTDIR and installs the
# program, the preload, the public headers, a pkg-config file and the man
# page; the installed headers are enough to build a model as a shared object
# that the installed cmc checks.  The installed libcmc.a exports only the
# API its header declares (CMC_API in cmc.h), and a program that uses that
# header alone links against it with the pkg-config flags.
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

inc="$root/opt/cmc/include/cmc"
nm -g --defined-only "$root/opt/cmc/lib/libcmc.a" | awk 'NF == 3 {print $3}' | sort >"$T/exported"
sed -n 's/^CMC_API [^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' "$inc/cmc.h" | sort >"$T/api"
ok "the installed header marks its API (CMC_API)" test "$(wc -l <"$T/api")" -ge 20
is "libcmc.a exports exactly the functions cmc.h declares" "$(comm -3 "$T/exported" "$T/api" | tr -d '\t' | tr '\n' ' ')" ""
for sym in eng_xmalloc eng_die cmc_check_fail fpset_new eng_labels_intern proc_frontend_new pool_alloc; do
	not_ok "libcmc.a does not export $sym" grep -qx "$sym" "$T/exported"
done
cat >"$T/user.c" <<'EOF_C'
#include <stdio.h>
#include "cmc.h"
int main(int argc, char **argv)
{
	char err[256];
	if (argc != 2)
		return 2;
	const struct cmc_model *m = eng_model_load(argv[1], err, sizeof err);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	eng_opts o;
	eng_opts_default(&o);
	eng_frontend *fe = eng_model_frontend(m);
	eng_search *s = eng_search_new(fe, &o);
	if (eng_search_run(s) != 0)
		return 1;
	printf("%llu\n", (unsigned long long)eng_search_stats(s)->distinct);
	eng_search_free(s);
	fe->ops->destroy(fe);
	return 0;
}
EOF_C
pc() { PKG_CONFIG_PATH="$root/opt/cmc/lib/pkgconfig" pkg-config --define-variable=prefix="$root/opt/cmc" "$@" cmc; }
# A sanitized build installs a sanitized libcmc.a: its user is built the same way.
san=
[ -n "${SANITIZE:-}" ] && san="-fsanitize=$SANITIZE"
# shellcheck disable=SC2046 # pkg-config's answer is words
cc -std=c11 -Wall -Wextra -Werror $san $(pc --cflags) -o "$T/user" "$T/user.c" $(pc --libs --static) >"$T/cc.out" 2>&1
r=$?
is "a program using only cmc.h links against the installed libcmc.a" "$r" 0
[ $r -eq 0 ] || sed 's/^/# /' "$T/cc.out" | head -n 10
is "and searches the model through it (16 states)" "$("$T/user" "$T/m.so" 2>&1)" 16
done_testing
