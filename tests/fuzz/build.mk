# tests/fuzz/build.mk — `make fuzz`: libFuzzer targets for every parser of
# outside input, built with clang (-fsanitize=fuzzer,address,undefined) from
# the engine sources directly, apart from the gcc build (nothing here joins
# `all`).  Each runs FUZZ_SECONDS (default 60) over a scratch corpus under
# $(B)/fuzz/ seeded from tests/fuzz/corpus/NAME/ (never written to); a crash
# leaves $(B)/fuzz/crash-NAME-* and fails the target.  The store fuzzer
# links the store's sources too (and SQLite).  The fuzzers reach inside
# the libraries, so they take the tests' internal include set (INC_tests).
# Objects and fuzzers track their headers (-MMD): a struct that changed
# must not leave a stale object linked against the new layout.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_NAMES := scenario record control model store snap
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	$(INC_tests) $(shell pkg-config --cflags libxxhash sqlite3 2>/dev/null)
FUZZ_ENGINE_OBJ := $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIBCMC_SRC))
FUZZ_STORE_OBJ := $(patsubst %.c,$(B)/fuzz/obj/%.o,$(STORE_SRC))
FUZZ_BIN := $(patsubst %,$(B)/fuzz/%-fuzzer,$(FUZZ_NAMES))

$(B)/fuzz/obj/%.o: %.c | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(B)/fuzz/libcmc-fuzz.a: $(FUZZ_ENGINE_OBJ)
	rm -f $@; ar rcs $@ $^

$(B)/fuzz/libcmcstore-fuzz.a: $(FUZZ_STORE_OBJ)
	rm -f $@; ar rcs $@ $^

$(B)/fuzz/store-fuzzer: tests/fuzz/store-fuzzer.c $(B)/fuzz/libcmcstore-fuzz.a $(B)/fuzz/libcmc-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzz/libcmcstore-fuzz.a \
		$(B)/fuzz/libcmc-fuzz.a $(shell pkg-config --libs libxxhash sqlite3 2>/dev/null) -ldl -lpthread -lm

$(B)/fuzz/%-fuzzer: tests/fuzz/%-fuzzer.c $(B)/fuzz/libcmc-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzz/libcmc-fuzz.a \
		$(shell pkg-config --libs libxxhash 2>/dev/null) -ldl -lpthread -lm

fuzz-build: $(FUZZ_BIN)
fuzz:
	@sh share/deps.sh --test clang:clang
	@$(MAKE) --no-print-directory B=$(B) fuzz-build
	@B=$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_NAMES)
.PHONY: fuzz-build
