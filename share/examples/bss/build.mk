# share/examples/bss/build.mk — the heap-free M1 target.
EXTRA_ALL += $(B)/examples/bss
$(B)/examples/bss: share/examples/bss/bss.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
