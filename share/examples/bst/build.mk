# share/examples/bst/build.mk — the binary search tree server, plain (no cmc
# code: the heap-graph target) and with the canonical hook (-emit).
BST_DEPS := share/examples/bst/bst.c share/include/cmc_emit.h
EXTRA_ALL += $(B)/examples/bst $(B)/examples/bst-emit
$(B)/examples/bst: $(BST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/examples/bst-emit: $(BST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCMC_EMIT -o $@ $<
