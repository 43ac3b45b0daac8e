# mmprof: see README.md.  `make deps run` sets up and runs the seed config;
# `make deps check` sets up and runs the tests.

CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build
BIN     ?= mmprof
CONFIG  ?= configs/byte_8t.ini

CSTD     = -std=c11
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT     ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Iinclude
CFLAGS  += $(CSTD) $(WARN) $(OPT) -pthread -MMD -MP
LDLIBS  += -lhwloc -linih -lpfm -lm -pthread

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# libFuzzer harnesses (clang with libclang-rt-14-dev): the library built
# with coverage and sanitizers, the harness linked with libFuzzer's main.
# tests/integration/fuzz.sh:
#   make FUZZ=1 CC=clang BUILD=build/libfuzzer build/libfuzzer/fuzz/fuzz_config
ifeq ($(FUZZ),1)
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Debian packages: build, tests (cmocka, clang + sanitizer runtime,
# valgrind), the analysis notebook (pandas, matplotlib, nbconvert).
DEBIAN_PACKAGES = gcc make pkg-config libc6-dev linux-libc-dev libpfm4-dev \
	libhwloc-dev libinih-dev libcmocka-dev clang libclang-rt-14-dev valgrind \
	binutils linux-perf python3 python3-pandas python3-matplotlib jupyter-nbconvert \
	python3-ipykernel

# The command line (main and the compare subcommand) is the binary's; the
# rest is the library the tests link.
CLI_SRC   = src/main.c src/main_compare.c src/cli.c
CLI_OBJ   = $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
LIB_SRC   = $(filter-out $(CLI_SRC),$(wildcard src/*.c)) $(wildcard probes/*.c)
LIB_OBJ   = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
LIB       = $(BUILD)/libmmprof.a
UNIT_SRC  = $(wildcard tests/unit/test_*.c)
UNIT_BIN  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps run check unit-tests bench clean install uninstall repro

all: $(BIN) repro

# The seed's real .NET and Java programs (repro/README.md), each skipped
# with one line when its SDK is missing.
repro:
	@$(MAKE) --no-print-directory -f repro/Makefile BUILD=$(BUILD)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Probe loops start on a 32-byte boundary, so a short loop sits in one
# fetch block wherever the linker puts the file: otherwise the same loop
# ran 1.6x slower in one probe than in another (README, "Choices").
$(BUILD)/probes/%.o: probes/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -falign-loops=32 -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -I. -Iprobes -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

unit-tests: $(UNIT_BIN)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# Installs what is missing; as non-root, prints the command instead.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "deps: missing:$$missing"; \
	  echo "run: sudo apt-get update && sudo apt-get install -y --no-install-recommends$$missing"; exit 1; \
	else \
	  echo "deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

run: $(BIN)
	./$(BIN) --config $(CONFIG)

check: $(BIN) unit-tests
	tests/run.sh

# Performance claims are ratios measured side by side in one run, here,
# never timed assertions in the tests.
# What each part prints and how to read it: README (Tests and benchmarks)
# and docs/bench.md.
bench: $(BIN) $(BUILD)/bench/probe_speed $(BUILD)/bench/counter_overhead \
		$(BUILD)/bench/pingpong_ref
	$(BUILD)/bench/probe_speed; a=$$?; $(BUILD)/bench/counter_overhead; b=$$?; \
	bench/agreement.sh; c=$$?; \
	MMPROF=./$(BIN) PINGPONG_REF=$(BUILD)/bench/pingpong_ref bench/pingpong.py; d=$$?; \
	MMPROF=./$(BIN) bench/chase.py; e=$$?; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ] && [ $$d -eq 0 ] && [ $$e -eq 0 ]

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -falign-loops=32 -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# The reference ping-pong shares nothing with mmprof, not even its headers
# or the probes' loop alignment: it is built from its one file.
$(BUILD)/bench/pingpong_ref: bench/pingpong_ref.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread -o $@ $< $(LDFLAGS) -pthread

# The PNGs of one CSV, written beside it (analysis/plots.py, with Debian's
# python3 and its pandas and matplotlib): make plots CSV=results/byte_8t.csv
.PHONY: plots
plots:
	@if [ -z "$(CSV)" ]; then \
	  echo "make plots: name the CSV to plot, e.g. make plots CSV=results/byte_8t.csv" >&2; exit 2; fi
	/usr/bin/python3 analysis/plots.py "$(CSV)"

clean:
	rm -rf $(BUILD) $(BIN)

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mmprof
	install -d $(DESTDIR)$(PREFIX)/share/mmprof/configs
	install -m 0644 configs/*.ini $(DESTDIR)$(PREFIX)/share/mmprof/configs/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/mmprof
	rm -rf $(DESTDIR)$(PREFIX)/share/mmprof

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
