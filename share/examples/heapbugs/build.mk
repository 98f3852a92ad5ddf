# share/examples/heapbugs/build.mk — one small target per heap bug class.
HEAPBUGS := overflow doublefree foreignfree useafterfree uafreuse leak underflow
EXTRA_ALL += $(patsubst %,$(B)/examples/heapbugs-%,$(HEAPBUGS))
$(B)/examples/heapbugs-%: share/examples/heapbugs/%.c share/examples/heapbugs/lines.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
