#!/bin/sh
# tests/bench/alloc.sh — the preload's pool allocator against glibc malloc
# on the same allocation patterns, in one run: millions of calls per second
# for each and the ratio pool / glibc.  One figure per line.
#
#   small    bursts of 64 blocks of 16..256 bytes, freed in reverse order
#   mixed    a ring of 4096 live blocks; each step frees one (chosen by a
#            fixed LCG) and allocates 16..4096 bytes, 1 in 64 up to 64 KiB
#   realloc  256 buffers grown by realloc 16 bytes at a time to 2 KiB
#
# The same program runs twice: plainly (glibc) and with LD_PRELOAD of
# libcmc-preload.so.  A call is one malloc, free or realloc.
set -u
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
PRELOAD=$top/$B/libcmc-preload.so
[ -f "$PRELOAD" ] || { echo "alloc bench: $PRELOAD missing (run make first)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

cat >"$tmp/ab.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t lcg = 88172645463325252ULL;
static uint32_t rnd(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(lcg >> 33);
}

static void *volatile sink;

int main(int argc, char **argv)
{
	const char *pat = argv[1];
	long calls = 0;
	double t0 = now();
	if (!strcmp(pat, "small")) {
		void *p[64];
		for (int r = 0; r < 40000; r++) {
			for (int i = 0; i < 64; i++)
				p[i] = malloc(16 + (size_t)(i * 61 % 241));
			for (int i = 63; i >= 0; i--)
				free(p[i]);
			calls += 128;
		}
	} else if (!strcmp(pat, "mixed")) {
		enum { N = 4096 };
		static void *p[N];
		for (int i = 0; i < N; i++, calls++)
			p[i] = malloc(16 + rnd() % 4081);
		for (long s = 0; s < 1500000; s++) {
			uint32_t i = rnd() % N;
			free(p[i]);
			size_t sz = rnd() % 64 ? 16 + rnd() % 4081 : 16 + rnd() % 65521;
			p[i] = malloc(sz);
			((char *)p[i])[0] = 1;
			calls += 2;
		}
		for (int i = 0; i < N; i++, calls++)
			free(p[i]);
	} else {
		enum { N = 256 };
		static char *p[N];
		for (int r = 0; r < 30; r++) {
			for (int i = 0; i < N; i++, calls++)
				p[i] = malloc(16);
			for (size_t sz = 32; sz <= 2048; sz += 16)
				for (int i = 0; i < N; i++, calls++) {
					p[i] = realloc(p[i], sz);
					p[i][sz - 1] = 1;
				}
			for (int i = 0; i < N; i++, calls++)
				free(p[i]);
		}
	}
	sink = &calls;
	printf("%.3f\n", calls / (now() - t0) / 1e6);
	return 0;
}
C
cc -O2 -o "$tmp/ab" "$tmp/ab.c" || exit 2
for pat in small mixed realloc; do
	g=$("$tmp/ab" "$pat")
	p=$(CMC_HEAP_SIZE=4G LD_PRELOAD=$PRELOAD "$tmp/ab" "$pat") || { echo "alloc $pat: pool run failed" >&2; exit 1; }
	echo "alloc $pat glibc_mcalls_per_s $g"
	echo "alloc $pat pool_mcalls_per_s $p"
	echo "alloc $pat ratio_pool_over_glibc $(echo "$p $g" | awk '{printf "%.2f", $1 / $2}')"
done
