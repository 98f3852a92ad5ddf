# share/examples/kv/build.mk — the stdio key-value store, plain and with the hook.
KV_DEPS := share/examples/kv/kv.c share/include/cmc_emit.h
EXTRA_ALL += $(B)/examples/kv $(B)/examples/kv-emit
$(B)/examples/kv: $(KV_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/examples/kv-emit: $(KV_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -o $@ $<
