/*
 * scenario-fuzzer.c — libFuzzer target for the scenario file parser
 * (engine/proc/scenario.c).  The parser only reads files, so each input is
 * written to one memfd and parsed through /proc/self/fd/N.  A parsed
 * scenario is checked against the invariants engine/proc/scenario.h states, the
 * command-line override path (proc_scenario_set) is fed the same input's
 * words, and everything is freed (leaks are reported by ASan).
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmc_region.h"
#include "proc/scenario.h"

static int mfd = -1;
static char path[64];

static void check(const struct proc_scenario *sc)
{
	assert(sc->argc >= 1 && sc->argv[sc->argc] == NULL);
	assert(sc->nops >= 1 && sc->nops <= PROC_MAX_OPS);
	assert(sc->timeout_ms > 0 && sc->raw_cap > 0);
	for (size_t i = 0; i < sc->nops; i++) {
		assert(sc->ops[i].label);
		assert(sc->ops[i].len == 0 || sc->ops[i].bytes);
		for (size_t j = 0; j < i; j++)
			assert(strcmp(sc->ops[i].label, sc->ops[j].label) != 0);
	}
	assert(sc->nsymbols <= PROC_MAX_SYMBOLS);
	/* never an fd cmc gives the target for something else */
	assert(sc->canon_fd >= 3 && sc->canon_fd != 4 && sc->canon_fd != 5 &&
	       sc->canon_fd < CMC_SNAP_FD_DEFAULT);
	/* a reply property names an op */
	for (size_t i = 0; i < sc->nprops; i++) {
		size_t k = 0;
		if (sc->props[i].kind != PROC_PROP_REPLY || !sc->props[i].label)
			continue;
		while (k < sc->nops && strcmp(sc->ops[k].label, sc->props[i].label))
			k++;
		assert(k < sc->nops);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (mfd < 0) {
		mfd = memfd_create("scn", 0);
		if (mfd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
	}
	if (ftruncate(mfd, 0) < 0 || pwrite(mfd, data, size, 0) != (ssize_t)size)
		abort();
	char err[512];
	err[0] = 0;
	struct proc_scenario *sc = proc_scenario_load(path, err, sizeof err);
	if (!sc) {
		/* every refusal says where and what was expected */
		assert(memchr(err, 0, sizeof err) && err[0]);
		return 0;
	}
	check(sc);
	/* Overrides: the first line's first two words as key and value. */
	char key[32] = "", val[64] = "";
	size_t k = 0, v = 0, i = 0;
	while (i < size && data[i] != ' ' && data[i] != '\n' && k < sizeof key - 1)
		key[k++] = (char)data[i++];
	key[k] = 0;
	while (i < size && data[i] == ' ')
		i++;
	while (i < size && data[i] != '\n' && v < sizeof val - 1)
		val[v++] = data[i] ? (char)data[i] : '0', i++;
	val[v] = 0;
	if (proc_scenario_set(sc, key, val, err, sizeof err) == 0)
		check(sc);
	proc_scenario_free(sc);
	return 0;
}
