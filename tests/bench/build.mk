# tests/bench/build.mk — the benchmarks' own helpers.
# What moving a cache line between two cores costs (cores.sh).
EXTRA_ALL += $(B)/tests-helpers/corecost
$(B)/tests-helpers/corecost: tests/bench/corecost.c tests/fork/timing.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -pthread -o $@ $<
