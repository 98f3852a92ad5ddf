# share/examples/list/build.mk — the list server in three builds:
# plain (no cmc code), -emit (canonical hook), -bug (hook + planted bug),
# -bug-plain (the planted bug, no cmc code: heap-graph hashing).
LIST_DEPS := share/examples/list/list.c share/include/cmc_emit.h
EXTRA_ALL += $(B)/examples/list $(B)/examples/list-emit $(B)/examples/list-bug $(B)/examples/list-bug-plain

$(B)/examples/list: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/examples/list-emit: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -o $@ $<
$(B)/examples/list-bug: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -DLIST_BUG -o $@ $<
$(B)/examples/list-bug-plain: $(LIST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DLIST_BUG -o $@ $<
# The seed's "every inserted key is still present" property: from the
# canonical record, and from a LIST reply (for the build without the hook).
EXTRA_ALL += $(B)/examples/keys_listed.so
$(B)/examples/keys_listed.so: share/examples/list/keys_listed.c share/include/cmc_property.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<
EXTRA_ALL += $(B)/examples/keys_present.so
$(B)/examples/keys_present.so: share/examples/list/keys_present.c share/include/cmc_property.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<
