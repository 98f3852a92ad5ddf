#!/bin/sh
# t0006-layers: the build enforces the arrows of DESIGN.md (tui -> viz ->
# store -> engine -> layout; the preload stands alone).  A one-line file
# that includes a header is compiled with a library's own flags (as the
# Makefile prints them: `make print-cflags-LIB`): a public header of a
# library below compiles, a private header of another library, or any
# header of a library above, is not on the path.
. "$(dirname "$0")/test-lib.sh"

flags() { make -s --no-print-directory -C "$CMC_TOP" B="$B" SANITIZE="${SANITIZE:-}" "print-cflags-$1" 2>/dev/null; }
# probe LIB HEADER: compile `#include "HEADER"` as a source of LIB would be
probe() {
	printf '#include "%s"\nint cmc_probe;\n' "$2" >"$T/probe.c"
	# shellcheck disable=SC2046 # the flags are words
	(cd "$CMC_TOP" && ${CC:-cc} $(eval echo "\$F_$1") -MMD -MF "$T/probe.d" -fsyntax-only "$T/probe.c")
}
can() { ok "$1 may include $2" probe "$1" "$2"; }
# refused: the compile fails, and because the header is not on the path
refused() { ! probe "$1" "$2" >"$T/probe.err" 2>&1 && grep -q "$2: No such file" "$T/probe.err"; }
cannot() { ok "$1 may not include $2" refused "$1" "$2"; }

for lib in layout engine store viz tui preload models tests; do
	f=$(flags "$lib")
	ok "make prints the $lib library's flags" test -n "$f"
	eval "F_$lib=\$f"
done
ok "an unknown library is an error" sh -c "! make -s --no-print-directory -C '$CMC_TOP' B='$B' print-cflags-nosuch 2>/dev/null"

# engine: its own headers plain, the layout by folder; nothing above it,
# nothing of the preload but its layout
can engine fpset.h
can engine proc/proc.h
can engine layout/cmc_region.h
can engine cmc_property.h
cannot engine store/store.h
cannot engine store.h
cannot engine viz/viz.h
cannot engine cli/cmd.h
cannot engine pl.h
cannot engine preload/pl.h
cannot engine pl_alloc.h

# store: the engine's public headers, never its private ones
can store engine/cmc.h
can store engine/util.h
can store engine/labels.h
can store proc/proc.h
can store layout/pool.h
can store internal.h
cannot store engine/fpset.h
cannot store fpset.h
cannot store engine/search_int.h
cannot store proc/exec.h
cannot store viz/viz.h
cannot store viz.h

# viz: store and engine public headers; no tui, no store internals
can viz store/store.h
can viz engine/cmc.h
can viz layout/pool.h
cannot viz cli/cmd.h
cannot viz wb/wb.h
cannot viz tui/wb/wb.h
cannot viz store/internal.h
cannot viz engine/queue.h

# tui: everything public below it
can tui viz/viz.h
can tui store/store.h
can tui proc/proc.h
can tui engine/check.h
can tui cli/cmd.h
cannot tui viz/internal.h
cannot tui store/handoff.h
cannot tui proc/target.h

# preload and its layout: nothing of the checker
can preload pl.h
can preload layout/pool.h
can preload cmc_emit.h
cannot preload engine/cmc.h
cannot preload cmc.h
cannot preload proc/proc.h
cannot preload store/store.h
can layout pool.h
cannot layout engine/cmc.h
cannot layout util.h

# models: the installed API, spelled as installed, and the layout
can models cmc_model.h
can models cmc.h
can models layout/pool.h
cannot models engine/util.h
cannot models util.h
cannot models store/store.h

# tests reach inside on purpose, and their flags say so
can tests fpset.h
can tests store/store.h
done_testing
