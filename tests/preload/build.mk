# tests/preload/build.mk — the t1 tests' helper target (never sanitized;
# -no-pie so its text at 0x400000 is a base known to be taken).
EXTRA_ALL += $(B)/tests-helpers/pltest
$(B)/tests-helpers/pltest: tests/preload/pltest.c preload/layout/cmc_region.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -Ipreload/layout -no-pie -o $@ $<
