# share/examples/hostile/build.mk — the hostile target (tests/t6000-hostile.sh).
EXTRA_ALL += $(B)/examples/hostile/hostile
$(B)/examples/hostile/hostile: share/examples/hostile/hostile.c share/include/cmc_emit.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
