# tests/proc/build.mk — the t5 tests' misbehaving target (never sanitized).
EXTRA_ALL += $(B)/tests-helpers/proctarget
$(B)/tests-helpers/proctarget: tests/proc/proctarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# The bench's fork+exec limit (tests/bench/process.sh).
EXTRA_ALL += $(B)/tests-helpers/forkexec
$(B)/tests-helpers/forkexec: tests/proc/forkexec.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A stdio target whose exit leaves the C library's buffers live (t1530).
EXTRA_ALL += $(B)/tests-helpers/stdioexit
$(B)/tests-helpers/stdioexit: tests/proc/stdioexit.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A TCP server that keeps its addresses and a timer tick (t5320).
EXTRA_ALL += $(B)/tests-helpers/nettarget
$(B)/tests-helpers/nettarget: tests/proc/nettarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# Two operations into the same heap, one with a bad reply (t5500).
EXTRA_ALL += $(B)/tests-helpers/judgetarget
$(B)/tests-helpers/judgetarget: tests/proc/judgetarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# Large replies and a large unchanging heap block (t6600-memory).
EXTRA_ALL += $(B)/tests-helpers/bigreply
$(B)/tests-helpers/bigreply: tests/proc/bigreply.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A target that reaches for processes outside its run (t6010): it forges
# snapshot messages, so it sees the protocol header.
EXTRA_ALL += $(B)/tests-helpers/pidworld
$(B)/tests-helpers/pidworld: tests/proc/pidworld.c preload/layout/cmc_region.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -Ipreload/layout -o $@ $<
# A heap of a chosen size, one page changed per command (tests/bench/heapsize.sh, t5370).
EXTRA_ALL += $(B)/tests-helpers/heapsize
$(B)/tests-helpers/heapsize: tests/proc/heapsize.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A target whose heap is hard to walk: cycles, dangling and fake pointers,
# corrupt pool metadata (t5380, hash heap-graph).
EXTRA_ALL += $(B)/tests-helpers/hgtarget
$(B)/tests-helpers/hgtarget: tests/proc/hgtarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A TCP server that closes the connection on QUIT and runs on (t5390).
EXTRA_ALL += $(B)/tests-helpers/quittarget
$(B)/tests-helpers/quittarget: tests/proc/quittarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A stdin server whose record expires with time, with a sweeping timer (t5395).
EXTRA_ALL += $(B)/tests-helpers/expirytarget
$(B)/tests-helpers/expirytarget: tests/proc/expirytarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A key-value store that keeps its data in files, not its heap (t5396,
# tests/bench/files.sh).
EXTRA_ALL += $(B)/tests-helpers/filekv
$(B)/tests-helpers/filekv: tests/proc/filekv.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# What the system says of a program's files and CPU time (t5397).
EXTRA_ALL += $(B)/tests-helpers/stattarget
$(B)/tests-helpers/stattarget: tests/proc/stattarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# State in open files a fork shares, seeds by fopen and __open_2 (t5398):
# built with _FORTIFY_SOURCE, as Debian builds its programs.
EXTRA_ALL += $(B)/tests-helpers/filestarget
$(B)/tests-helpers/filestarget: tests/proc/filestarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -D_FORTIFY_SOURCE=2 -o $@ $<
# A target that arms alarm() and setitimer() (t5394).
EXTRA_ALL += $(B)/tests-helpers/alarmtarget
$(B)/tests-helpers/alarmtarget: tests/proc/alarmtarget.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
# A key-value store that must survive crashes, with and without its
# durability bug, and the property that judges it (t5410).
EXTRA_ALL += $(B)/tests-helpers/crashkv $(B)/tests-helpers/crashkv-bug $(B)/tests-helpers/committed.so
$(B)/tests-helpers/crashkv: tests/proc/crashkv.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -o $@ $<
$(B)/tests-helpers/crashkv-bug: tests/proc/crashkv.c
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -DCRASHKV_BUG -o $@ $<
$(B)/tests-helpers/committed.so: tests/proc/committed.c share/include/cmc_property.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<
