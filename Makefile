# cmc — top-level build.
#
#   make              build/cmc, build/libcmc.a, the preload, models, examples, tests
#   make run          build, then open the workbench on the bundled demo
#   make test         build and run the whole suite (last line: N passed, N failed)
#   make SANITIZE=address,undefined test
#                     the same under ASan+UBSan (all but the preload and targets)
#   make CHECK=3 test the suite with every internal validator on (engine/check.h)
#   make bench        print the benchmarks' figures
#   make fuzz         run the libFuzzer targets (FUZZ_SECONDS each, default 60)
#   make valgrind     the main paths under valgrind memcheck
#   make install      PREFIX=/usr/local DESTDIR=
#
# Sources are found by wildcard: a new engine/foo.c joins libcmc.a, a new
# tui/cli/cmd-foo.c joins cmc, a new tests/unit/foo.c becomes a test binary.
# Example targets and test helpers bring a build.mk fragment of their own.

.DEFAULT_GOAL := all
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= gcc
OPT     ?= -O2
SANITIZE ?=

# CHECK: cmc's own invariant checks (engine/check.h): 1 by default, 2 in
# the sanitizer build, 3 (every validator around every change) on demand;
# a level other than the default builds in a folder of its own.
ifeq ($(SANITIZE),)
CHECK ?= 1
B := build$(if $(filter-out 1,$(CHECK)),-check$(CHECK))
SANFLAGS :=
else
CHECK ?= 2
B := build-san$(if $(filter-out 2,$(CHECK)),-check$(CHECK))
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

WARN     := -Wall -Wextra -Werror -Wno-unused-parameter
BASEFLAGS := -std=c11 -D_GNU_SOURCE -g $(OPT) $(WARN) -MMD -MP
CFLAGS_ALL = $(BASEFLAGS) $(SANFLAGS) -DCMC_CHECK=$(CHECK) -Iengine -Istore -Iviz -Ipreload/layout -Ishare/include $(PKG_CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -ldl -lpthread -lm

# Discovered configuration: share/deps.sh installs what is missing, then the
# pkg-config answers are cached here.  Make rebuilds this file first and
# restarts, so every rule below sees the flags.
-include $(B)/config.mk
$(B)/config.mk: share/deps.sh
	@sh share/deps.sh
	@mkdir -p $(B)
	@{ echo "PKG_CFLAGS := $$(pkg-config --cflags ncursesw sqlite3 libcgraph libgvc libxxhash)"; \
	   echo "PKG_LIBS := $$(pkg-config --libs ncursesw sqlite3 libcgraph libgvc libxxhash)"; } > $@

# The heap region's layout, shared by both sides (preload/layout/): the
# region header contract (cmc_region.h), the pool's structures (pool.h), the
# pool core that builds them (pool.c) and the validators that read them
# (pool_check.c).  It sits under preload/ because the preload owns the format
# (it writes the region, cmc only reads it) and INVARIANTS.md beside it is
# its catalogue; the checker's include path holds this folder only, never
# the rest of preload/.  Each source is compiled twice: PIC with the
# preload's flags ($(LAYOUT_PIC): into the preload, and as an archive into
# model .so files), and with the checker's flags into libcmc.a.
LAYOUT_SRC := $(wildcard preload/layout/*.c)
LAYOUT_PIC = $(patsubst %.c,$(B)/pic/%.o,$(LAYOUT_SRC))
LAYOUT_PIC_A = $(B)/libcmclayout-pic.a
# Process mode is a module of its own, engine/proc/: from outside it is
# included by folder ("proc/proc.h"); engine/proc/ is never an include path
# (its limits.h would shadow <limits.h>).
ENGINE_SRC := $(wildcard engine/*.c engine/proc/*.c)
ENGINE_SRC += $(LAYOUT_SRC)
STORE_SRC  := $(wildcard store/*.c)
VIZ_SRC    := $(wildcard viz/*.c)
MODEL_SRC  := $(wildcard share/models/*.c)
# tui/cli: the command line; tui/wb: the workbench.  Their files include
# each other's headers by folder ("cli/cmd.h", "wb/wb.h").
TUI_SRC    := $(wildcard tui/cli/*.c tui/wb/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)
UNIT_SRC   := $(wildcard tests/unit/*.c)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

LIBCMC   := $(B)/libcmc.a
LIBSTORE := $(B)/libcmcstore.a
LIBVIZ   := $(B)/libcmcviz.a
LIBMODELS := $(B)/libcmcmodels.a
CMC      := $(B)/cmc
PRELOAD  := $(B)/libcmc-preload.so
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
MODEL_SO := $(patsubst share/models/%.c,$(B)/models/%.so,$(filter-out share/models/registry.c,$(MODEL_SRC)))

# Fragments add to these.
EXTRA_ALL :=

.PHONY: all run test bench install clean fuzz check-deps valgrind
all: $(CMC) $(LIBCMC) $(PRELOAD) $(UNIT_BIN) $(MODEL_SO) extra

$(B)/obj/%.o: %.c $(B)/config.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIBCMC): $(call obj,$(ENGINE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBSTORE): $(call obj,$(STORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBVIZ): $(call obj,$(VIZ_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBMODELS): $(call obj,$(MODEL_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

LIBS_ALL = $(LIBVIZ) $(LIBSTORE) $(LIBMODELS) $(LIBCMC)

$(call obj,$(TUI_SRC)): CFLAGS_ALL += -Itui
$(CMC): $(call obj,$(TUI_SRC)) $(LIBS_ALL)
	$(CC) $(CFLAGS_ALL) -rdynamic -o $@ $(call obj,$(TUI_SRC)) $(LIBS_ALL) $(LDLIBS_ALL)

$(B)/tests/%: tests/unit/%.c $(LIBS_ALL) $(B)/config.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(UNIT_OBJS) $(LIBS_ALL) $(LDLIBS_ALL)

# A unit test over a workbench part that needs no curses links its object.
$(B)/tests/t4-list: UNIT_OBJS := $(call obj,tui/wb/wb-list.c)
$(B)/tests/t4-list: CFLAGS_ALL += -Itui
$(B)/tests/t4-list: $(call obj,tui/wb/wb-list.c)

# Models as loadable shared objects too, to test the loader.  One that
# runs the allocator (alloc.c) takes the layout's PIC objects from the
# archive, hidden inside the .so: cmc's own copies (-rdynamic) never
# interpose.
$(B)/models/%.so: share/models/%.c engine/cmc_model.h $(LAYOUT_PIC_A) $(B)/config.mk
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -Iengine -Ipreload/layout -fPIC -shared -DCMC_MODEL_SO -o $@ $< $(LAYOUT_PIC_A)

# The preload is never sanitized: it is the allocator ASan would sit on.
PRELOAD_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O2 $(WARN) -fPIC -fno-builtin-malloc \
	-fno-stack-protector -ftls-model=initial-exec -fvisibility=hidden -Ipreload -Ipreload/layout \
	-Ishare/include
$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@
$(LAYOUT_PIC_A): $(LAYOUT_PIC)
	rm -f $@; ar rcs $@ $^
$(PRELOAD): $(PRELOAD_SRC) $(LAYOUT_PIC) $(wildcard preload/*.h preload/layout/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -shared -o $@ $(PRELOAD_SRC) $(LAYOUT_PIC) -ldl

# Targets that run under cmc: plain flags, no sanitizer, no -Werror on
# purpose-built buggy code is still wanted, so keep -Werror.
TARGET_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Ishare/include

include $(wildcard share/examples/*/build.mk tests/*/build.mk)

extra: $(EXTRA_ALL)
.PHONY: extra

run: all
	@if [ -t 1 ] && $(CMC) help tui >/dev/null 2>&1; then \
		$(CMC) tui --db $(B)/demo.db share/examples/list/list.scn; \
	else \
		$(CMC) check diehard; \
	fi

TEST_DEPS := clang:clang spin:spin dc:dc tmux:tmux valgrind:valgrind sqlite3:sqlite3 bc:bc ed:ed xmllint:libxml2-utils nc:netcat-openbsd lighttpd:lighttpd \
	calc:apcalc lua5.4:lua5.4 mksh:mksh gdbmtool:gdbmtool vim.basic:vim nginx:nginx beanstalkd:beanstalkd ngircd:ngircd
test: all
	@sh share/deps.sh --test $(TEST_DEPS)
	@B=$(B) SANITIZE=$(SANITIZE) sh tests/run.sh

bench: all
	@for b in tests/bench/*.sh; do echo "== $$b"; B=$(B) sh $$b; done

# Main paths under valgrind memcheck (zero errors, zero definite leaks).
valgrind: all
	@sh share/deps.sh --test valgrind:valgrind
	@B=$(B) sh tests/valgrind.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/cmc \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/cmc
	install -m 755 $(CMC) $(DESTDIR)$(PREFIX)/bin/cmc
	install -m 644 $(LIBCMC) $(DESTDIR)$(PREFIX)/lib/libcmc.a
	install -m 755 $(PRELOAD) $(DESTDIR)$(PREFIX)/lib/libcmc-preload.so
	install -m 644 engine/cmc.h engine/cmc_model.h $(wildcard share/include/*.h) \
		$(DESTDIR)$(PREFIX)/include/cmc/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/^#define CMC_VERSION "\(.*\)"/\1/p' engine/cmc.h)|g' \
		share/cmc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cmc.pc
	install -m 644 share/man/cmc.1 $(DESTDIR)$(PREFIX)/share/man/man1/cmc.1
	cp -r share/models share/examples $(DESTDIR)$(PREFIX)/share/cmc/

clean:
	rm -rf build build-san build-check* build-san-check*

-include $(shell find $(B)/obj $(B)/pic -name '*.d' 2>/dev/null)
