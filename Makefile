# cmc — top-level build.
#
#   make              build/cmc, build/libcmc.a, the preload, models, examples, tests
#   make run          build, explore the bundled demo, open the workbench on it
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
CFLAGS_COMMON = $(BASEFLAGS) $(SANFLAGS) -DCMC_CHECK=$(CHECK) $(PKG_CFLAGS)
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
ENGINE_CORE_SRC := $(wildcard engine/*.c)
ENGINE_SRC := $(ENGINE_CORE_SRC) $(wildcard engine/proc/*.c)
LIBCMC_SRC := $(ENGINE_SRC) $(LAYOUT_SRC)
STORE_SRC  := $(wildcard store/*.c)
VIZ_SRC    := $(wildcard viz/*.c)
MODEL_SRC  := $(wildcard share/models/*.c)
# tui/cli: the command line; tui/wb: the workbench.  Their files include
# each other's headers by folder ("cli/cmd.h", "wb/wb.h").
TUI_SRC    := $(wildcard tui/cli/*.c tui/wb/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)
UNIT_SRC   := $(wildcard tests/unit/*.c)

# ---- layers: which library sees which headers -------------------------
#
# The arrows of DESIGN.md (tui -> viz -> store -> engine -> layout; the
# preload stands alone) are enforced by include paths, not by convention.
# Each library lists its public headers below; the build links them into
# $(B)/include/LIB/FOLDER/NAME.h, and a library is compiled with its own
# folder (its private headers, included plain) plus the $(B)/include/LIB of
# itself and of each library below it, so across libraries an include
# names the folder ("engine/cmc.h", "proc/proc.h", "layout/pool.h",
# "store/store.h", "viz/viz.h") and a private header of another library
# simply is not on the path.  Public headers include one another by that
# folder-qualified name too, since they are read from $(B)/include.
#
# Symbolic links rather than copies: an error or a debugger points at the
# one real file, nobody edits a stale copy, and make's dependency files
# (which name the link) follow the link to the source's time.  Files stay
# where they are, so history and the folders' own documents stay put.
#
#   engine  libcmc: the search and its frontends, process mode (engine/proc)
#           public: cmc.h cmc_model.h (also installed), util.h (allocation
#           that dies, the clock), check.h (the CHECK=N debug checks),
#           labels.h (interning: the store keys labels the same way),
#           proc/proc.h (process mode, for the command line)
#   layout  preload/layout, the heap region shared by both sides: it sees
#           nothing of the checker; the checker sees its public headers
#   preload sees its own folder (layout as "layout/...", its subfolder) and
#           share/include, never the checker
#   store, viz: store.h, viz.h;  tui: nothing above it, so nothing public
#   models  share/models are user code: they see the installed API as it is
#           installed ($(B)/include/cmc: "cmc_model.h"), and layout
#   tests   reach inside on purpose: INC_tests is the internal set
# share/include (headers for targets) is on every path.
# `make print-cflags-LIB` prints a library's flags (tests/t0006-layers.sh).
ENGINE_PUB := $(addprefix $(B)/include/engine/engine/,cmc.h cmc_model.h util.h check.h labels.h) \
	$(B)/include/engine/proc/proc.h
LAYOUT_PUB := $(addprefix $(B)/include/layout/layout/,cmc_region.h pool.h)
STORE_PUB  := $(B)/include/store/store/store.h
VIZ_PUB    := $(B)/include/viz/viz/viz.h
API_HDR    := cmc.h cmc_model.h
API_PUB    := $(addprefix $(B)/include/cmc/,$(API_HDR))
PUB_ALL    := $(ENGINE_PUB) $(LAYOUT_PUB) $(STORE_PUB) $(VIZ_PUB) $(API_PUB)

LINK_PUB = @mkdir -p $(@D) && ln -sfr $< $@
$(B)/include/engine/engine/%: engine/% ; $(LINK_PUB)
$(B)/include/engine/proc/%: engine/proc/% ; $(LINK_PUB)
$(B)/include/layout/layout/%: preload/layout/% ; $(LINK_PUB)
$(B)/include/store/store/%: store/% ; $(LINK_PUB)
$(B)/include/viz/viz/%: viz/% ; $(LINK_PUB)
$(B)/include/cmc/%: engine/% ; $(LINK_PUB)

pub = $(foreach l,$(1),-I$(B)/include/$(l))
INC_layout := -Ipreload/layout
INC_engine := -Iengine $(call pub,engine layout) -Ishare/include
INC_store  := -Istore $(call pub,store engine layout) -Ishare/include
INC_viz    := -Iviz $(call pub,viz store engine layout) -Ishare/include
INC_tui    := -Itui $(call pub,viz store engine layout) -Ishare/include
INC_models := $(call pub,cmc layout) -Ishare/include
INC_tests  := -Iengine -Istore -Iviz -Ipreload/layout -Itests/unit $(call pub,viz store engine layout) -Ishare/include
$(foreach l,layout engine store viz tui models tests,$(eval CFLAGS_$(l) = $$(CFLAGS_COMMON) $$(INC_$(l))))
# libcmc's own symbols are hidden unless its API marks them (CMC_API in
# engine/cmc.h); see $(LIBCMC) below.
CFLAGS_engine += -fvisibility=hidden
CFLAGS_layout += -fvisibility=hidden

print-cflags-%:
	@$(if $(filter undefined,$(origin CFLAGS_$*)),echo 'no library $*' >&2; exit 1,echo '$(CFLAGS_$*)')
.PHONY: print-cflags-%

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

LIBCMC   := $(B)/libcmc.a
LIBCMC_INT := $(B)/libcmc-internal.a
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

# Each object is compiled with its library's flags (CFLAGS_OBJ below).
$(B)/obj/%.o: %.c $(B)/config.mk | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_OBJ) -c $< -o $@
$(call obj,$(LAYOUT_SRC)): CFLAGS_OBJ = $(CFLAGS_layout)
$(call obj,$(ENGINE_SRC)): CFLAGS_OBJ = $(CFLAGS_engine)
$(call obj,$(STORE_SRC)): CFLAGS_OBJ = $(CFLAGS_store)
$(call obj,$(VIZ_SRC)): CFLAGS_OBJ = $(CFLAGS_viz)
$(call obj,$(TUI_SRC)): CFLAGS_OBJ = $(CFLAGS_tui)
$(call obj,$(MODEL_SRC)): CFLAGS_OBJ = $(CFLAGS_models)

# Two archives.  The in-tree users (store, viz, tui, models, tests) link
# libcmc-internal.a, every object with every global: hidden visibility
# does not stop a static link.  The installed libcmc.a exports only the
# API: its objects are linked into one (ld -r), then every hidden symbol
# is made local to it, so a user sees the CMC_API functions of cmc.h and
# nothing else (tests/t0003-install.sh lists them).  It holds the engine's
# core (engine/*.c), all that the installed header reaches: process mode
# (engine/proc, with the layout) has no installed header, and linked into
# one object it would ask every user for pool_fail() (layout/pool.h).
$(LIBCMC_INT): $(call obj,$(LIBCMC_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBCMC): $(call obj,$(ENGINE_CORE_SRC))
	@mkdir -p $(dir $@)
	$(LD) -r -o $(B)/libcmc.o $^
	objcopy --localize-hidden $(B)/libcmc.o
	rm -f $@; ar rcs $@ $(B)/libcmc.o
$(LIBSTORE): $(call obj,$(STORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBVIZ): $(call obj,$(VIZ_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(LIBMODELS): $(call obj,$(MODEL_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

LIBS_ALL = $(LIBVIZ) $(LIBSTORE) $(LIBMODELS) $(LIBCMC_INT)

$(CMC): $(call obj,$(TUI_SRC)) $(LIBS_ALL)
	$(CC) $(CFLAGS_tui) -rdynamic -o $@ $(call obj,$(TUI_SRC)) $(LIBS_ALL) $(LDLIBS_ALL)

$(B)/tests/%: tests/unit/%.c $(LIBS_ALL) $(B)/config.mk | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_tests) -o $@ $< $(UNIT_OBJS) $(LIBS_ALL) $(LDLIBS_ALL)

# A unit test over a workbench part that needs no curses links its object.
$(B)/tests/t4-list: UNIT_OBJS := $(call obj,tui/wb/wb-list.c)
$(B)/tests/t4-list: CFLAGS_tests += -Itui
$(B)/tests/t4-list: $(call obj,tui/wb/wb-list.c)
$(B)/tests/t4-text: UNIT_OBJS := $(call obj,tui/wb/wb-text.c)
$(B)/tests/t4-text: CFLAGS_tests += -Itui
$(B)/tests/t4-text: $(call obj,tui/wb/wb-text.c)

# Models as loadable shared objects too, to test the loader.  One that
# runs the allocator (alloc.c) takes the layout's PIC objects from the
# archive, hidden inside the .so: cmc's own copies (-rdynamic) never
# interpose.
$(B)/models/%.so: share/models/%.c $(API_PUB) $(LAYOUT_PUB) $(LAYOUT_PIC_A) $(B)/config.mk
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(INC_models) -fPIC -shared -DCMC_MODEL_SO -o $@ $< $(LAYOUT_PIC_A)

# The preload is never sanitized: it is the allocator ASan would sit on.
PRELOAD_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O2 $(WARN) -fPIC -fno-builtin-malloc \
	-fno-stack-protector -ftls-model=initial-exec -fvisibility=hidden -Ipreload -Ishare/include
CFLAGS_preload = $(PRELOAD_CFLAGS)
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

# The demo (share/examples/list/demo.sh): list.scn explored with raw and
# canonical fingerprints into $(B)/demo.db, then the workbench on it; not on
# a terminal, the same check's summary and how to open it.
run: all
	@sh share/examples/list/demo.sh $(CMC) $(B)/demo.db

TEST_DEPS := clang:clang spin:spin dc:dc tmux:tmux valgrind:valgrind sqlite3:sqlite3 bc:bc ed:ed xmllint:libxml2-utils nc:netcat-openbsd lighttpd:lighttpd \
	rsvg-convert:librsvg2-bin \
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
	install -m 644 $(addprefix engine/,$(API_HDR)) $(wildcard share/include/*.h) \
		$(DESTDIR)$(PREFIX)/include/cmc/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/^#define CMC_VERSION "\(.*\)"/\1/p' engine/cmc.h)|g' \
		share/cmc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cmc.pc
	install -m 644 share/man/cmc.1 $(DESTDIR)$(PREFIX)/share/man/man1/cmc.1
	cp -r share/models share/examples $(DESTDIR)$(PREFIX)/share/cmc/
	rm -f $(DESTDIR)$(PREFIX)/share/cmc/examples/*/build.mk
# The examples' targets, built, in PREFIX/lib/cmc/examples: an installed
# scenario finds them from the installed cmc (${CMC_BIN} is PREFIX/bin).
	install -d $(DESTDIR)$(PREFIX)/lib/cmc
	cp -r $(B)/examples $(DESTDIR)$(PREFIX)/lib/cmc/
	sed -i 's|$${CMC_BIN}/examples/|$${CMC_BIN}/../lib/cmc/examples/|g' \
		$(DESTDIR)$(PREFIX)/share/cmc/examples/*/*.scn

clean:
	rm -rf build build-san build-check* build-san-check*

-include $(shell find $(B)/obj $(B)/pic $(B)/fuzz -name '*.d' 2>/dev/null)
