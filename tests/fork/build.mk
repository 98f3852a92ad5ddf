# tests/fork/build.mk — the fork-snapshot benchmark's machine floor.
EXTRA_ALL += $(B)/tests-helpers/forklimit
$(B)/tests-helpers/forklimit: tests/fork/forklimit.c tests/fork/timing.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# The same floor with the protocol's fixed costs.
EXTRA_ALL += $(B)/tests-helpers/forkproto
$(B)/tests-helpers/forkproto: tests/fork/forkproto.c tests/fork/timing.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A target with a second thread: fork snapshots fall back to replay (t5300).
EXTRA_ALL += $(B)/tests-helpers/threaded
$(B)/tests-helpers/threaded: tests/fork/threaded.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -pthread -o $@ $<
# The cost of moving a fork child into a v1 pids cgroup, both ways.
EXTRA_ALL += $(B)/tests-helpers/cgmove
$(B)/tests-helpers/cgmove: tests/fork/cgmove.c tests/fork/timing.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
