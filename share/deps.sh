#!/bin/sh
# share/deps.sh — make sure the build's Debian -dev packages are present.
#
# Called by the Makefile before anything is compiled.  For each pkg-config
# module the build needs it checks `pkg-config --exists`; what is missing is
# installed with apt-get when we are root, otherwise the exact apt-get line is
# printed and the script fails.  Extra Debian packages that only the tests use
# (spin, dc, ...) are passed as arguments after `--test`.
set -u

need_pkgs=""
add() { case " $need_pkgs " in *" $1 "*) ;; *) need_pkgs="$need_pkgs $1" ;; esac; }

command -v pkg-config >/dev/null 2>&1 || add pkg-config
command -v cc >/dev/null 2>&1 || add gcc
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists ncursesw  || add libncurses-dev
	pkg-config --exists sqlite3   || add libsqlite3-dev
	pkg-config --exists libcgraph || add libgraphviz-dev
	pkg-config --exists libgvc    || add libgraphviz-dev
	pkg-config --exists libxxhash || add libxxhash-dev
else
	add libncurses-dev; add libsqlite3-dev; add libgraphviz-dev; add libxxhash-dev
fi

if [ "${1:-}" = "--test" ]; then
	shift
	# arguments are "command:package" pairs: install package when command is absent
	for pair in "$@"; do
		cmd=${pair%%:*}; pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || add "$pkg"
	done
fi

[ -z "$need_pkgs" ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "cmc: installing missing Debian packages:$need_pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || true
	# shellcheck disable=SC2086
	if apt-get install -y -qq --no-install-recommends $need_pkgs >&2; then
		exit 0
	fi
	echo "cmc: apt-get failed; install by hand:" >&2
else
	echo "cmc: missing build dependencies; install them with:" >&2
fi
echo "  apt-get install$need_pkgs" >&2
exit 1
