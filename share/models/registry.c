/*
 * registry.c — the models built into cmc, by name.  A model file defines a
 * `const struct cmc_model cmc_model_NAME`; list it here once.
 */
#include <stddef.h>

#include "cmc_model.h"

extern const struct cmc_model cmc_model_diehard, cmc_model_diehard_solve;
extern const struct cmc_model cmc_model_tcommit;
extern const struct cmc_model cmc_model_twophase, cmc_model_twophase_bug;
extern const struct cmc_model cmc_model_peterson;
extern const struct cmc_model cmc_model_alloc, cmc_model_alloc_small, cmc_model_alloc_bug;
extern const struct cmc_model cmc_model_philosophers;
extern const struct cmc_model cmc_model_bench_counters, cmc_model_bench_counters_small;
extern const struct cmc_model cmc_model_bench_counters_1m, cmc_model_bench_wide;

const struct cmc_model *const cmc_builtin_models[] = {
	&cmc_model_diehard,
	&cmc_model_diehard_solve,
	&cmc_model_tcommit,
	&cmc_model_twophase,
	&cmc_model_twophase_bug,
	&cmc_model_peterson,
	&cmc_model_philosophers,
	&cmc_model_bench_counters,
	&cmc_model_bench_counters_small,
	&cmc_model_bench_counters_1m,
	&cmc_model_bench_wide,
	&cmc_model_alloc,
	&cmc_model_alloc_small,
	&cmc_model_alloc_bug,
	NULL,
};
