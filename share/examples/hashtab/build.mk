# share/examples/hashtab/build.mk — the chained hash table server, plain (no
# cmc code: the heap-graph target) and with the canonical hook (-emit).
HASHTAB_DEPS := share/examples/hashtab/hashtab.c share/include/cmc_emit.h
EXTRA_ALL += $(B)/examples/hashtab $(B)/examples/hashtab-emit
$(B)/examples/hashtab: $(HASHTAB_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/examples/hashtab-emit: $(HASHTAB_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -o $@ $<
