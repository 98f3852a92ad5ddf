#!/bin/sh
# t1100-examples.sh — the example targets in share/examples run without cmc
# (plainly and under the preload) and behave: the list server over TCP
# (with its planted lost-key bug visible for INS 2, INS 1), the heap-free
# bss target, the stdio kv store; the emit hook writes well-formed canonical
# records only when CMC_CANON_FD is set.
. "$CMC_TOP/tests/test-lib.sh"

EX=$CMC_TOP/$B/examples
PLT=$CMC_TOP/$B/tests-helpers/pltest
PRELOAD=$CMC_TOP/$B/libcmc-preload.so

# run_list BINARY INPUTFILE OUTFILE [env...]: serve one connection, talk to
# it with the helper client, wait for the server to exit.
run_list() {
	bin=$1 input=$2 output=$3
	shift 3
	port=$("$PLT" freeport)
	env "$@" "$bin" "$port" 3>canon 2>server.err &
	spid=$!
	"$PLT" client "$port" <"$input" >"$output"
	crc=$?
	wait "$spid"
	src=$?
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ]
}

printf 'INS 2\nINS 1\nINS 3\nINS 2\nHAS 2\nHAS 7\nDEL 3\nDEL 3\nLIST\nBOGUS\n' >ops
printf 'OK\nOK\nOK\nEXISTS\nYES\nNO\nOK\nMISSING\n1 2\nERR expected INS k, DEL k, HAS k or LIST\n' >want
ok "list serves a session" run_list "$EX/list" ops got
ok "list replies as specified" cmp got want
ok "list-emit (hook built in, no cmc) replies the same" run_list "$EX/list-emit" ops got2
ok "list-emit replies as specified" cmp got2 want
is "the hook writes nothing without CMC_CANON_FD" "$(wc -c <canon | tr -d ' ')" 0

# The planted bug: inserting in front of a non-empty list drops the rest.
printf 'INS 2\nINS 1\nLIST\n' >ops21
printf 'INS 1\nINS 2\nLIST\n' >ops12
ok "list-bug serves INS 2, INS 1" run_list "$EX/list-bug" ops21 bug21
is "list-bug loses key 2 after INS 2, INS 1" "$(tail -n 1 bug21)" 1
ok "list-bug serves INS 1, INS 2" run_list "$EX/list-bug" ops12 bug12
is "list-bug keeps both keys after INS 1, INS 2" "$(tail -n 1 bug12)" "1 2"
run_list "$EX/list" ops21 good21
is "list (no bug) keeps both after INS 2, INS 1" "$(tail -n 1 good21)" "1 2"

# Under the preload with the canonical channel open: one record before the
# first command (the empty set) and one after each of the 3 commands; the
# last holds keys 1 and 2 as u64 little-endian.
ok "list-emit runs under the preload" run_list "$EX/list-emit" ops21 pre21 \
	LD_PRELOAD="$PRELOAD" CMC_CANON_FD=3
is "replies unchanged under the preload" "$(tr '\n' ' ' <pre21)" "OK OK 1 2 "
is "four canonical records: 8 + (8+8) + (8+16) + (8+16) bytes" "$(wc -c <canon | tr -d ' ')" 72
is "each record starts with the magic" "$(grep -a -o CMCR canon | wc -l | tr -d ' ')" 4
is "last record: length 16, keys 1 and 2" "$(tail -c 24 canon | od -An -tu4 | tr -s ' \n' ' ')" \
	" 1380142403 16 1 0 2 0 "
# (1380142403 is 0x52434d43, "CMCR" read as a little-endian uint32)
port=$("$PLT" freeport)
CMC_CANON_FD=3 "$EX/list-bug" "$port" 3>canonbug 2>/dev/null &
spid=$!
"$PLT" client "$port" <ops21 >/dev/null
wait "$spid"
is "list-bug's last record: length 8, key 1 only" "$(tail -c 16 canonbug | od -An -tu4 | tr -s ' \n' ' ')" \
	" 1380142403 8 1 0 "

not_ok "list without a port is a usage error" "$EX/list"
"$EX/list" nope 2>err
is "list with a bad port exits 2" "$?" 2

# bss: stdin, no heap, same protocol.
printf 'INS 3\nINS 1\nINS 3\nHAS 1\nDEL 3\nLIST\nINS 64\n' >bops
printf 'OK\nOK\nEXISTS\nYES\nOK\n1\nERR expected INS k, DEL k, HAS k or LIST with k in 0..63\n' >bwant
"$EX/bss" <bops >bgot
ok "bss replies as specified" cmp bgot bwant
LD_PRELOAD=$PRELOAD "$EX/bss" <bops >bgot2
ok "bss behaves the same under the preload" cmp bgot2 bwant
ok "bss keeps its state in the global symbol bss_present" sh -c \
	"nm '$EX/bss' | grep -q ' B bss_present\$'"

# kv: stdio (fgets/printf), malloc/realloc/free.
printf 'SET b 2\nSET a 1\nSET c 3\nSET d 4\nSET e 5\nGET a\nSET a 9\nGET a\nDEL b\nDEL b\nGET zz\nCOUNT\nDUMP\nHELLO\n' >kops
printf 'OK\nOK\nOK\nOK\nOK\n1\nOK\n9\nOK\nNONE\nNONE\n4\na=9 c=3 d=4 e=5\nERR expected SET k v, GET k, DEL k, COUNT or DUMP\n' >kwant
"$EX/kv" <kops >kgot
ok "kv replies as specified" cmp kgot kwant
LD_PRELOAD=$PRELOAD CMC_LINEBUF=1 "$EX/kv" <kops >kgot2
ok "kv behaves the same under the preload, line buffered" cmp kgot2 kwant
printf 'SET k v\n' | LD_PRELOAD=$PRELOAD CMC_CANON_FD=3 "$EX/kv-emit" 3>kcanon >/dev/null
# record: magic, len 2*(8+1)=18, then len=1 "k", len=1 "v"
is "kv-emit record length 8 + 18" "$(wc -c <kcanon | tr -d ' ')" 26
is "kv-emit record body" "$(tail -c 18 kcanon | od -An -c | tr -s ' \n' ' ')" \
	" 001 \\0 \\0 \\0 \\0 \\0 \\0 \\0 k 001 \\0 \\0 \\0 \\0 \\0 \\0 \\0 v "

done_testing
