# tests/intr/build.mk — the target of tests/t6500-interrupt.sh (never sanitized).
EXTRA_ALL += $(B)/tests-helpers/sigcmc
$(B)/tests-helpers/sigcmc: tests/intr/sigcmc.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
