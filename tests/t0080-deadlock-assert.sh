#!/bin/sh
# t0080-deadlock-assert.sh — the two properties a model gets without
# writing an invariant: deadlock (a state with no enabled action, unless
# the model sets deadlock_ok) and an assertion failing inside an action
# (cmc_fail).  A small model compiled here as a shared object (which also
# exercises the .so loader): a counter x that Inc raises to 3 and Dec
# lowers while x > 1 (so x == 0 is left forever and x == 3 only by Dec);
# with STUCK, Dec is absent and x == 3 is a deadlock reached by
# Inc, Inc, Inc; with ASSERT, Inc asserts x != 2 before raising it.
# Each violation comes with its shortest trace; BFS, DFS and --jobs 2
# agree on the property, BFS on the trace, simulate finds it too.
. "$(dirname "$0")/test-lib.sh"
cat >counter.c <<'MODEL'
#include <stdint.h>
#include "cmc_model.h"
struct st { uint32_t x; };
static void init(cmc_out *o) { struct st s = {0}; cmc_yield(o, &s, NULL); }
static void inc(const void *v, cmc_out *o)
{
	struct st s = *(const struct st *)v;
#ifdef ASSERT
	if (s.x == 2) { cmc_fail(o, "x reached 2 in Inc"); return; }
#endif
	if (s.x < 3) { s.x++; cmc_yield(o, &s, NULL); }
}
#ifndef STUCK
static void dec(const void *v, cmc_out *o)
{
	struct st s = *(const struct st *)v;
	if (s.x > 1) { s.x--; cmc_yield(o, &s, NULL); }
}
#endif
static const struct cmc_action acts[] = {
	{"Inc", inc},
#ifndef STUCK
	{"Dec", dec},
#endif
};
static const struct cmc_model m = {
	.abi = CMC_MODEL_ABI, .name = "counter", .summary = "t0080", .state_size = sizeof(struct st),
	.init = init, .actions = acts, .n_actions = sizeof acts / sizeof acts[0],
	.deadlock_ok = OK,
};
const struct cmc_model *cmc_model_entry(void) { return &m; }
MODEL
build() { cc -std=c11 -fPIC -shared -I"$CMC_TOP/engine" "$@" -o "$so" counter.c; }
so=$T/clean.so
ok "the clean model builds" build -DOK=false
"$CMC" check --no-store --json "$so" >clean.json 2>clean.err
is "clean: no violation (exit 0)" "$?" 0
is "clean: x = 0..3, each once" "$(json_get clean.json distinct)" 4

so=$T/stuck.so
ok "the stuck model builds" build -DOK=false -DSTUCK
"$CMC" check --no-store --json "$so" >stuck.json 2>stuck.err
is "stuck: a violation (exit 1)" "$?" 1
is "stuck: the property is deadlock" "$(first_violation stuck.json property)" deadlock
is "stuck: the shortest trace" "$(first_violation stuck.json trace)" '"Inc", "Inc", "Inc"'
for o in "--dfs" "--jobs 2"; do
	# shellcheck disable=SC2086
	"$CMC" check --no-store --json $o "$so" >s.json 2>s.err
	is "stuck $o: the same property" "$(first_violation s.json property)" deadlock
done
"$CMC" simulate --json --seed 1 "$so" >sim.json 2>sim.err
is "stuck: simulate exits 1" "$?" 1
is "stuck: simulate reports the deadlock" "$(first_violation sim.json property)" deadlock

so=$T/stuck-ok.so
ok "the stuck model with deadlock_ok builds" build -DOK=true -DSTUCK
"$CMC" check --no-store --json "$so" >ok.json 2>ok.err
is "deadlock_ok: the end state is fine (exit 0)" "$?" 0

so=$T/assert.so
ok "the asserting model builds" build -DOK=false -DASSERT
"$CMC" check --no-store --json "$so" >assert.json 2>assert.err
is "assert: a violation (exit 1)" "$?" 1
is "assert: the property is assert" "$(first_violation assert.json property)" assert
is "assert: its message is the model's" "$(first_violation assert.json message)" "x reached 2 in Inc"
# Two steps reach x == 2; the third is the Inc whose assertion failed.
is "assert: the trace ends in the failing action" "$(first_violation assert.json trace)" '"Inc", "Inc", "Inc"'
"$CMC" check --no-store "$so" >assert.txt 2>&1
ok "assert: the human report names the property and message" \
	grep -q 'assert.*x reached 2 in Inc' assert.txt
done_testing
