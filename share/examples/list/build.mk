# share/examples/list/build.mk — the list server in three builds:
# plain (no cmc code), -emit (canonical hook), -bug (hook + planted bug).
LIST_DEPS := share/examples/list/list.c share/include/cmc_emit.h
EXTRA_ALL += $(B)/examples/list $(B)/examples/list-emit $(B)/examples/list-bug

$(B)/examples/list: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/examples/list-emit: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -o $@ $<
$(B)/examples/list-bug: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -DLIST_BUG -o $@ $<
# The seed's "every inserted key is still present" property.
EXTRA_ALL += $(B)/examples/keys_present.so
$(B)/examples/keys_present.so: share/examples/list/keys_present.c share/include/cmc_property.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<
