#!/bin/sh
# t0005-fuzz-compile: every libFuzzer target still compiles against the
# engine's current headers.  `make fuzz` builds them with clang and
# libFuzzer, which `make test` does not need; a struct field the fuzzers
# set and a change removed once broke only CI's fuzz step.  Checked here
# with the suite's own compiler, syntax only (no libFuzzer, no link).
. "$(dirname "$0")/test-lib.sh"
n=0
for src in "$CMC_TOP"/tests/fuzz/*-fuzzer.c; do
	n=$((n + 1))
	name=$(basename "$src" .c)
	ok "$name compiles against the engine headers" \
		${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
		-I"$CMC_TOP/engine" -I"$CMC_TOP/store" -I"$CMC_TOP/preload/layout" -I"$CMC_TOP/share/include" \
		$(pkg-config --cflags sqlite3 2>/dev/null) -fsyntax-only "$src"
done
ok "the six fuzz targets are there ($n)" test "$n" -ge 6
ok "the store fuzzer is one of them" test -f "$CMC_TOP/tests/fuzz/store-fuzzer.c"
ok "the snapshot-socket fuzzer is one of them" test -f "$CMC_TOP/tests/fuzz/snap-fuzzer.c"
done_testing
