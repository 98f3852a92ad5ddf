#!/bin/sh
# t1000-preload.sh — libcmc-preload.so: deterministic addresses inside the
# region, every entry point's alignment and contents, the region header,
# and the fault convention of preload/layout/cmc_region.h (exhaustion, base taken,
# bad settings: message, control record, exit status 112 + code).
. "$CMC_TOP/tests/test-lib.sh"

PRELOAD=$CMC_TOP/$B/libcmc-preload.so
PLT=$CMC_TOP/$B/tests-helpers/pltest
pl() { env LD_PRELOAD="$PRELOAD" "$@"; }

ok "preload is built" test -f "$PRELOAD"
ok "helper is built" test -x "$PLT"

# Exported symbols: exactly the interposed entry points (visibility hidden
# for everything else): the allocator's, detenv.c's (time,
# randomness, opening /dev/urandom: open, _FORTIFY_SOURCE's __open_2
# family, fopen), detpid.c's (pids, signals
# and waits that name a process), detwait.c's (waits on descriptors),
# detalarm.c's (alarm, ualarm, setitimer, getitimer: the real-time timer),
# detnet.c's (addresses), aslimit.c's (mmap, mremap: a
# mapping refused by the address-space limit is reported) and epoll.c's
# (epoll interest lists, and the closes that end entries in them) and
# snapfd.c's (close, dup, dup2, dup3, close_range, fcntl: the snapshot socket)
# and durable.c's (fsync and the calls that move names or write through
# O_SYNC: the durable image of a crash scenario).
nm -D --defined-only "$PRELOAD" | awk '$2 == "T" { print $3 }' | sort >syms
is "exports the allocation and deterministic-environment entry points and nothing else" "$(tr '\n' ' ' <syms)" \
	"__fxstat __fxstat64 __fxstatat __fxstatat64 __lxstat __lxstat64 __open64_2 __open_2 __openat64_2 __openat_2 __xstat __xstat64 accept accept4 alarm aligned_alloc bind calloc clock clock_gettime close close_range dup dup2 dup3 epoll_create epoll_create1 epoll_ctl epoll_pwait epoll_wait fcntl fcntl64 fdatasync fopen fopen64 free fstat fstat64 fstatat fstatat64 fsync getentropy getitimer getpeername getpgid getpgrp getpid getppid getrandom getrusage getsid getsockname gettimeofday kill killpg lstat lstat64 malloc malloc_trim malloc_usable_size mallopt memalign mmap mmap64 mremap open open64 openat openat64 pidfd_open poll posix_memalign ppoll pselect pvalloc pwrite pwrite64 pwritev realloc reallocarray remove rename renameat renameat2 rmdir select setitimer sigaltstack sigqueue stat stat64 statx sync syncfs tgkill time times ualarm unlink unlinkat valloc wait4 waitid waitpid write writev "

ok "entry points give aligned memory with the right contents" pl "$PLT" addrs
pl "$PLT" addrs >a1 2>&1
pl "$PLT" addrs >a2 2>&1
ok "the same history gives the same addresses in two runs" cmp a1 a2
is "twelve allocations reported" "$(wc -l <a1 | tr -d ' ')" 12

# Every block lies inside the default region, after the header page.
base=$((0x600000000000)) size=$((1 << 30))
inside=0
while read -r a; do
	[ $((a)) -gt $((base + 64)) ] && [ $((a)) -lt $((base + size)) ] && inside=$((inside + 1))
done <a1
is "all addresses inside [base, base+size)" "$inside" 12

# Moving the base moves every block by the same distance: the layout is a
# function of the history alone.
CMC_HEAP_BASE=0x610000000000 pl "$PLT" addrs >a3 2>&1
shifted=0
paste a1 a3 >pairs
while read -r x y; do
	[ $((y - x)) -eq $((0x10000000000)) ] && shifted=$((shifted + 1))
done <pairs
is "CMC_HEAP_BASE shifts every address by base difference" "$shifted" 12

# The header, read in place by the target itself.
pl "$PLT" hdr >hdr
is "header passes cmc_region_hdr_invalid" "$(sed -n 's/^valid=//p' hdr)" yes
is "header base" "$(sed -n 's/^base=//p' hdr)" 0x600000000000
is "header size is the default 1 GiB" "$(sed -n 's/^size=//p' hdr)" 1073741824
is "allocator kind is pool (2)" "$(sed -n 's/^alloc_kind=//p' hdr)" 2
is "no fault recorded" "$(sed -n 's/^fault=//p' hdr)" 0
is "malloc and free counted, pid recorded" "$(grep -c '^n_.*=1$\|^pid_is_me=1$' hdr | tr -d ' ')" 3
CMC_HEAP_SIZE=100K pl "$PLT" hdr >hdr2
is "CMC_HEAP_SIZE=100K is 102400 bytes" "$(sed -n 's/^size=//p' hdr2)" 102400
CMC_HEAP_SIZE=100001 pl "$PLT" hdr >hdr3
is "an odd size is rounded up to a page" "$(sed -n 's/^size=//p' hdr3)" 102400

# Exhaustion: a fault with a message and exit 113, never NULL or a crash.
CMC_HEAP_SIZE=64K CMC_CTL_FD=7 pl "$PLT" exhaust 1000 >out 2>err 7>ctl
is "exhaustion exits 112+1" "$?" 113
ok "exhaustion says so on stderr" grep -q '^cmc-preload: heap exhausted: request 1000 bytes' err
not_ok "malloc never returned NULL" grep -q NULL out
# control record: "CMCC", len, kind 1 (fault), code 1, message
is "control record magic" "$(head -c 4 ctl)" CMCC
is "control record kind and code" "$(od -An -tu4 -j8 -N8 ctl | tr -s ' ')" " 1 1"
len=$(od -An -tu4 -j4 -N4 ctl | tr -d ' ')
is "control record length matches the bytes sent" "$((len + 8))" "$(wc -c <ctl | tr -d ' ')"
ok "control record carries the message" grep -q 'heap exhausted' ctl

# A base that is taken: the helper is -no-pie, so 0x400000 is its own text.
CMC_HEAP_BASE=0x400000 pl "$PLT" hdr >out 2>err
is "taken base exits 112+2" "$?" 114
ok "taken base says so, naming the address" grep -q '^cmc-preload: base taken: .* 0x400000 ' err

# Malformed settings are faults, never ignored.
CMC_HEAP_BASE=0x1234 pl "$PLT" hdr >out 2>err
is "unaligned base exits 112+3" "$?" 115
ok "bad base names the variable and value" grep -q "bad CMC_HEAP_BASE='0x1234'" err
CMC_HEAP_SIZE=lots pl "$PLT" hdr >out 2>err
is "bad size exits 112+3" "$?" 115
CMC_HEAP_SIZE=4K pl "$PLT" hdr >out 2>err
is "size below the minimum exits 112+3" "$?" 115

# CMC_LINEBUF=1 line-buffers stdout (here a pipe, normally fully buffered).
is "stdout line buffered with CMC_LINEBUF=1" "$(CMC_LINEBUF=1 pl "$PLT" linebuf | cat)" line
is "stdout fully buffered without" "$(pl "$PLT" linebuf | cat)" full

# Ordinary programs run unchanged under the preload.
seq 2000 | sort -r | head -n 3 >want
seq 2000 | pl sort -r | head -n 3 >got
ok "sort gives the same output under the preload" cmp want got
is "awk under the preload" "$(echo 'a b c' | pl awk '{ s = $3 $2 $1; print s }')" cba
# (sort asks for a buffer larger than the whole region: that is the
# too-large fault, 117, rather than exhaustion.)
seq 100000 | CMC_HEAP_SIZE=64K pl sort >/dev/null 2>err
rc=$?
ok "sort really allocates from the region (64K is too small: a fault)" \
	test "$rc" -eq 113 -o "$rc" -eq 117
ok "sort's fault is reported on stderr" grep -Eq '^cmc-preload: (heap exhausted|request too large): ' err
ok "sh runs a pipeline under the preload" pl sh -c 'echo x | tr x y | grep -q y'

done_testing
