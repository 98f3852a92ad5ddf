#!/bin/sh
# t1520-invariants.sh — `cmc invariants` reflects the code: every entry it
# calls runtime-checked is a validator in preload/layout/pool_check.c's table
# (counted here from the source, independently of cmc), and a catalogue
# that claims more or less than the code shows is refused.
. "$CMC_TOP/tests/test-lib.sh"

"$CMC" invariants >inv.out 2>inv.err
is "the shipped catalogue agrees with the code and tests (exit 0)" "$?" 0
table=$(sed -n '/^const struct pool_inv pool_invariants/,/^};/p' \
	"$CMC_TOP/preload/layout/pool_check.c" | grep -c '{"INV-')
is "runtime-checked entries = validators in pool_invariants[] ($table)" \
	"$(grep -c 'runtime-checked' inv.out)" "$table"
is "INV-20 (threads) is comment-only" "$(sed -n 's/^INV-20 .* \(comment-only\)$/\1/p' inv.out)" comment-only
is "INV-19 is model-checked only (an invariant of the alloc model)" \
	"$(sed -n 's/^INV-19 .*  \([a-z -]*\)$/\1/p' inv.out)" model-checked

# A fake source tree whose catalogue over-claims for INV-20.
mkdir -p src/preload
ln -s "$CMC_TOP/tests" src/tests
sed '/^### INV-20/,/^Verification/s/^Verification: comment-only/Verification: tested/' \
	"$CMC_TOP/preload/INVARIANTS.md" >src/preload/INVARIANTS.md
"$CMC" invariants --src src >bad.out 2>bad.err
is "an over-claiming catalogue fails (exit 1)" "$?" 1
ok "the message names INV-20 and what was derived" grep -q "INV-20: the catalogue says 'tested', the code and tests show 'comment-only'" bad.err
# One whose INV-6 entry is missing, though a validator checks it.
sed '/^### INV-6 /,/^Verification/d' "$CMC_TOP/preload/INVARIANTS.md" >src/preload/INVARIANTS.md
"$CMC" invariants --src src >bad.out 2>bad.err
is "a validator missing from the catalogue fails (exit 1)" "$?" 1
ok "the message names INV-6" grep -q "INV-6 is checked by the code but missing" bad.err
"$CMC" invariants --src "$T/nowhere" >/dev/null 2>err
is "no catalogue: exit 2" "$?" 2
done_testing
