# tests/store/build.mk — the store benchmark's reader (tests/bench/store.sh):
# times the reads the workbench makes on a stored run.  Lives outside
# $(B)/tests/ so the runner does not take it for a test.
STORE_READBENCH := $(B)/tests-helpers/store-readbench
$(STORE_READBENCH): tests/store/readbench.c $(LIBS_ALL) $(B)/config.mk | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_tests) -o $@ $< $(LIBS_ALL) $(LDLIBS_ALL)
EXTRA_ALL += $(STORE_READBENCH)

# Every state of a stored run, one line each (tests/t5500-reach.sh).
STORE_DUMP := $(B)/tests-helpers/store-dump
$(STORE_DUMP): tests/store/dumpstates.c $(LIBS_ALL) $(B)/config.mk | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_tests) -o $@ $< $(LIBS_ALL) $(LDLIBS_ALL)
EXTRA_ALL += $(STORE_DUMP)
