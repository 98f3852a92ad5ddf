#!/bin/sh
# t0005-fuzz-compile: every libFuzzer target still compiles against the
# engine's current headers.  `make fuzz` builds them with clang and
# libFuzzer, which `make test` does not need; a struct field the fuzzers
# set and a change removed once broke only CI's fuzz step.  Checked here
# with the suite's own compiler, syntax only (no libFuzzer, no link).
. "$(dirname "$0")/test-lib.sh"
# The fuzzers reach inside the libraries: they take the tests' internal
# include set, as tests/fuzz/build.mk does (relative to the top).
inc=$(make -s --no-print-directory -C "$CMC_TOP" B="$B" SANITIZE="${SANITIZE:-}" print-cflags-tests 2>/dev/null |
	tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
ok "make prints the tests' include set" test -n "$inc"
n=0
for src in "$CMC_TOP"/tests/fuzz/*-fuzzer.c; do
	n=$((n + 1))
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # the flags are words
	ok "$name compiles against the engine headers" sh -c "cd '$CMC_TOP' && \
		${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
		$inc \$(pkg-config --cflags sqlite3 2>/dev/null) -fsyntax-only '$src'"
done
ok "the six fuzz targets are there ($n)" test "$n" -ge 6
# The fuzz build compiles the libraries with clang, whose -Wall warns
# where gcc's does not (a two-literal element of an array of strings,
# -Wstring-concatenation, once failed CI's fuzz step after the whole
# suite had passed).  Every library source, with its own flags (their
# -MMD would leave a .d file per source in the top directory: -MF
# /dev/null).
if command -v clang >/dev/null 2>&1; then
	before=$(cd "$CMC_TOP" && ls -A)
	for lib in engine:engine store:store viz:viz tui:tui layout:preload/layout; do
		name=${lib%%:*} dir=${lib#*:}
		flags=$(make -s --no-print-directory -C "$CMC_TOP" B="$B" SANITIZE= print-cflags-$name 2>/dev/null)
		# shellcheck disable=SC2086 # the flags are words
		ok "clang compiles $dir/ without a warning" sh -c "cd '$CMC_TOP' && \
			for f in \$(find $dir -name '*.c' | sort); do \
			clang $flags -Wno-unused-parameter \$(pkg-config --cflags libxxhash sqlite3 2>/dev/null) \
			-fsyntax-only -MF /dev/null \"\$f\" || exit 1; done"
	done
	is "the syntax checks leave nothing in the top directory" "$(cd "$CMC_TOP" && ls -A)" "$before"
else
	skip "clang compiles the libraries without a warning" "no clang here (make fuzz installs it)"
fi
ok "the store fuzzer is one of them" test -f "$CMC_TOP/tests/fuzz/store-fuzzer.c"
ok "the snapshot-socket fuzzer is one of them" test -f "$CMC_TOP/tests/fuzz/snap-fuzzer.c"
done_testing
