# mmprof: see README.md.  `make deps run` sets up and runs the seed config;
# `make deps check` sets up and runs the tests.

CC      ?= gcc
STRIP   ?= strip
PREFIX  ?= /usr/local
BUILD   ?= build
# The default build's binary is ./mmprof, where README and the tests run
# it; another BUILD (a clang, sanitizer or cross build) keeps its binary
# in $(BUILD), so it never overwrites ./mmprof built by another compiler.
BIN     ?= $(if $(filter build,$(BUILD)),mmprof,$(BUILD)/mmprof)
CONFIG  ?= configs/byte_8t.ini
MAN      = $(BUILD)/mmprof.1
LIBDIR   = $(PREFIX)/lib/mmprof
PRELOAD  = $(BUILD)/libmmprof-preload.so

CSTD     = -std=c11
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT     ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Isrc
CFLAGS  += $(CSTD) $(WARN) $(OPT) -pthread -MMD -MP
LDLIBS  += -lhwloc -linih -lpfm -ldw -lelf -lm -pthread

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
# valgrind, man-db and its groff to render the man page, hwloc's
# hwloc-calc as a second view of the host's L3 domains), the analysis
# notebook (pandas, matplotlib, nbconvert).
DEBIAN_PACKAGES = gcc make pkg-config libc6-dev linux-libc-dev libpfm4-dev \
	libhwloc-dev hwloc libinih-dev libdw-dev libcmocka-dev clang libclang-rt-14-dev valgrind \
	binutils linux-perf python3 python3-pandas python3-matplotlib jupyter-nbconvert \
	python3-ipykernel man-db qemu-system-x86 qemu-system-arm

# The arm64 cross build and the emulator its tests run under (make
# cross-arm64, tests/integration/arm64.sh): Debian multiarch.  Optional:
# `make deps` installs them where apt can, and says so and goes on where
# it cannot; CROSS= leaves them out.
CROSS ?= arm64
CROSS_PACKAGES = gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
	libhwloc-dev:arm64 libpfm4-dev:arm64 libinih-dev:arm64 libcmocka-dev:arm64 \
	libdw-dev:arm64 libelf-dev:arm64

# The command line (main and the compare subcommand) is the binary's; the
# rest is the library the tests link.
CLI_SRC   = $(wildcard src/cli/*.c)
CLI_OBJ   = $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
LIB_SRC   = $(filter-out $(CLI_SRC),$(wildcard src/*/*.c)) $(wildcard probes/*.c)
LIB_OBJ   = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
LIB       = $(BUILD)/libmmprof.a
UNIT_SRC  = $(wildcard tests/unit/test_*.c)
UNIT_BIN  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps deps-cross run check vm-check fleet-check unit-tests bench clean install uninstall repro \
	cross-arm64

all: $(BIN) $(MAN) $(PRELOAD) repro

# The preload library the prefault, touch, huge and bulk controls run real programs
# with (preload/mmprof_preload.c, docs/exec.md): not part of libmmprof.a,
# it defines mmap() for the program it is loaded into.  mmprof finds it
# in the build tree, or installed under LIBDIR (src/run/preload.c).
PRELOAD_SRC = preload/mmprof_preload.c preload/bulk_reads.c preload/bulk_calls.c
$(PRELOAD): $(PRELOAD_SRC) preload/report_line.h preload/bulk_reads.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) $(OPT) -fPIC -shared -o $@ $(PRELOAD_SRC) -ldl
$(BUILD)/src/run/preload.o: CPPFLAGS += -DMMPROF_LIBDIR='"$(LIBDIR)"' \
	-DMMPROF_PRELOAD_BUILT='"$(abspath $(PRELOAD))"'

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

# The shipped configs' installed place is compiled into the search path of
# --config NAME (src/config/config_find.c).  It is written to a file that changes
# only when PREFIX does, so `make install PREFIX=/usr` after `make` rebuilds
# the one object that holds it rather than installing a binary that looks in
# /usr/local.
DATADIR = $(PREFIX)/share/mmprof
$(BUILD)/datadir: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(BUILD)/src/config/config_find.o: $(BUILD)/datadir
$(BUILD)/src/config/config_find.o: CPPFLAGS += -DMMPROF_DATADIR='"$(DATADIR)"'
.PHONY: FORCE
FORCE:

# From scratch: `ar r` only adds and replaces, so the object of a source
# deleted or renamed would stay in the archive and could still be linked.
$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The man page, from the tables the binary prints (scripts/make-man.sh).
$(MAN): $(BIN) man/mmprof.1.in scripts/make-man.sh scripts/help2roff.awk
	@mkdir -p $(dir $@)
	MMPROF=$(abspath $(BIN)) scripts/make-man.sh >$@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -I. -Iprobes -o $@ $< $(filter %.o,$^) $(LIB) $(LDFLAGS) \
		$(LDLIBS) -lcmocka

# The session's words are the command line's: its test reads them.
$(BUILD)/tests/test_session: $(BUILD)/src/cli/say.o

unit-tests: $(UNIT_BIN) $(BUILD)/tests/exec_helper $(BUILD)/tests/numa_refused $(BUILD)/tests/planted \
	$(BUILD)/tests/hot $(BUILD)/tests/hot-stripped $(BUILD)/tests/no_perf $(BUILD)/tests/hold_pmu \
	$(BUILD)/tests/jit $(BUILD)/tests/malloc_touch $(BUILD)/tests/percall

# Programs with one cause planted each (false sharing with plain
# increments, true sharing, page faults, bandwidth, plainly parallel):
# what tests/integration/exec_causes.sh attributes from outside.
$(BUILD)/tests/planted: tests/helpers/planted.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -pthread

# A program whose page faults are in a block it mallocs (glibc maps it
# with its own mmap), and one with none: what the prefault and huge rungs
# reach through the allocator (tests/integration/exec_malloc.sh).
$(BUILD)/tests/malloc_touch: tests/helpers/malloc_touch.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
# A program that reads a file a byte a call (per-call overhead planted),
# or in 1 MiB calls, and one that checks the bulk rung keeps every
# position exact: tests/integration/exec_percall.sh, test_preload_bulk.
$(BUILD)/tests/percall: tests/helpers/percall.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
$(BUILD)/tests/test_preload_bulk: $(BUILD)/tests/percall $(PRELOAD)

# A program that fsyncs after every small record: the kernel's journaling
# and I/O completion work for it (tests/integration/exec_fsync.sh).
$(BUILD)/tests/fsync_writer: tests/helpers/fsync_writer.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# A program with known hot functions and lines for the sampling profile's
# tests: -g and frame pointers (the kernel unwinds user stacks by them),
# and a stripped copy that names nothing.
$(BUILD)/tests/hot: tests/helpers/hot.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o $@ $<
$(BUILD)/tests/hot-stripped: $(BUILD)/tests/hot
	$(STRIP) -o $@ $<
# A program that compiles a loop at run time and names it in a perf map
# as .NET does, W^X and all: the profile's JIT code tests.
$(BUILD)/tests/jit: tests/helpers/jit.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
# Runs a command with perf_event_open refused, as perf_event_paranoid would.
$(BUILD)/tests/no_perf: tests/helpers/no_perf.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# Runs a command while pinned CPU-wide events hold the PMU's counters, as
# another tool would (tests/vm/guest_pmu.sh, in the arm64 guest).
$(BUILD)/tests/hold_pmu: tests/helpers/hold_pmu.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# A program that reads a file and prints a count and a time, or misbehaves
# on request: what tests/integration/exec.sh runs under probe = exec.
$(BUILD)/tests/exec_helper: tests/helpers/exec_helper.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -pthread

# A wrapper that runs a program with the NUMA system calls refused, as a
# container's default seccomp profile does (tests/integration/numa_refused.sh).
$(BUILD)/tests/numa_refused: tests/helpers/numa_refused.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

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
	@if [ -n "$(CROSS)" ]; then $(MAKE) --no-print-directory deps-cross; fi

# The arm64 packages.  Never fails: what cannot be had is said in one line
# and the arm64 tests skip.  An architecture added here and then not served
# by the machine's apt sources is removed again, so that a later
# `apt-get update` is not left failing on it.
deps-cross:
	@missing=""; for p in $(CROSS_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: arm64 cross packages present"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "deps: arm64 cross build and tests need:$$missing"; \
	  echo "run: sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo apt-get install -y --no-install-recommends$$missing"; \
	else \
	  added=""; \
	  dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && added=1; }; \
	  echo "deps: installing$$missing"; \
	  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; then :; \
	  else \
	    echo "deps: arm64 cross packages could not be installed: make cross-arm64 and the arm64 tests will skip"; \
	    if [ -n "$$added" ]; then dpkg --remove-architecture arm64 && apt-get update -qq || true; fi; \
	  fi; \
	fi

run: $(BIN)
	$(abspath $(BIN)) --config $(CONFIG)

# mmprof for arm64 (aarch64-linux-gnu-gcc and the arm64 libraries from
# make deps): the binary, the preload library, the unit tests and the test
# helpers, in build/arm64/.  tests/integration/arm64.sh builds it on every
# run and runs it under qemu-user.
ARM64_BUILD = build/arm64
cross-arm64:
	@command -v aarch64-linux-gnu-gcc >/dev/null || { \
	  echo "cross-arm64: aarch64-linux-gnu-gcc is not installed (make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory CC=aarch64-linux-gnu-gcc STRIP=aarch64-linux-gnu-strip BUILD=$(ARM64_BUILD) \
	  BIN=$(ARM64_BUILD)/mmprof $(ARM64_BUILD)/mmprof $(ARM64_BUILD)/libmmprof-preload.so unit-tests

check: $(BIN) $(MAN) $(PRELOAD) unit-tests
	MMPROF=$(abspath $(BIN)) BUILD=$(BUILD) tests/run.sh

# Only the runs inside emulated machines (tests/vm/, docs/testing.md), which
# `make check` also runs where qemu and the guest's Debian packages can be
# had.  The .debs and the unpacked kernel stay under $(BUILD)/vm.
vm-check: $(BIN)
	MMPROF=$(abspath $(BIN)) BUILD=$(BUILD) tests/run.sh vm_

# Only the fleet under a real Slurm (tests/integration/fleet_slurm.sh: a
# two-node cluster in network namespaces on this machine; it installs
# Debian's slurm-wlm and munge when missing), which `make check` also runs.
fleet-check: $(BIN)
	MMPROF=$(abspath $(BIN)) BUILD=$(BUILD) tests/run.sh fleet_slurm

# Performance claims are ratios measured side by side in one run, here,
# never timed assertions in the tests.
# What each part prints and how to read it: README (Tests and benchmarks)
# and docs/bench.md.
bench: $(BIN) $(BUILD)/bench/probe_speed $(BUILD)/bench/counter_overhead \
		$(BUILD)/bench/pingpong_ref $(BUILD)/bench/scan_ref $(BUILD)/tests/hot
	$(BUILD)/bench/probe_speed; a=$$?; $(BUILD)/bench/counter_overhead; b=$$?; \
	MMPROF=$(abspath $(BIN)) bench/agreement.sh; c=$$?; \
	MMPROF=$(abspath $(BIN)) PINGPONG_REF=$(BUILD)/bench/pingpong_ref bench/pingpong.py; d=$$?; \
	MMPROF=$(abspath $(BIN)) bench/chase.py; e=$$?; \
	MMPROF=$(abspath $(BIN)) BUILD=$(BUILD) bench/sampling.sh; f=$$?; \
	MMPROF=$(abspath $(BIN)) SCAN_REF=$(BUILD)/bench/scan_ref bench/ceiling.sh; g=$$?; \
	MMPROF=$(abspath $(BIN)) BUILD=$(BUILD) bench/exec_time.sh; h=$$?; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ] && [ $$d -eq 0 ] && [ $$e -eq 0 ] && \
	[ $$f -eq 0 ] && [ $$g -eq 0 ] && [ $$h -eq 0 ]

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -falign-loops=32 -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# The independent scan the ceiling is held against (bench/ceiling.sh):
# plain C from its one file, built for this CPU as a user's fastest
# reader would be.
$(BUILD)/bench/scan_ref: bench/scan_ref.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O3 $(if $(filter $(CC),gcc clang cc),-march=native) -o $@ $< $(LDFLAGS)

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

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the binary, the man
# page, the bash completion, and under PREFIX/share/mmprof the shipped
# configs (found by name: mmprof --config byte_8t) and the analysis module
# with its notebook and samples.  docs/install.md.  PREFIX is compiled in
# (DATADIR above); DESTDIR is not, and the binary also looks in
# ../share/mmprof/configs from where it is, so a staged copy runs too.
BINDIR   = $(PREFIX)/bin
MAN1DIR  = $(PREFIX)/share/man/man1
COMPDIR  = $(PREFIX)/share/bash-completion/completions
CONFIGS  = $(wildcard configs/*.ini)
ANALYSIS = $(wildcard analysis/*.py) analysis/mmprof.ipynb analysis/keys.tsv
SAMPLES  = $(wildcard analysis/samples/*)

install: $(BIN) $(MAN) $(PRELOAD)
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/mmprof
	install -D -m 0644 $(PRELOAD) $(DESTDIR)$(LIBDIR)/libmmprof-preload.so
	install -D -m 0644 $(MAN) $(DESTDIR)$(MAN1DIR)/mmprof.1
	install -D -m 0644 completion/mmprof.bash $(DESTDIR)$(COMPDIR)/mmprof
	install -d $(DESTDIR)$(DATADIR)/configs $(DESTDIR)$(DATADIR)/analysis/samples
	install -m 0644 $(CONFIGS) $(DESTDIR)$(DATADIR)/configs/
	install -m 0644 $(ANALYSIS) $(DESTDIR)$(DATADIR)/analysis/
	install -m 0644 $(SAMPLES) $(DESTDIR)$(DATADIR)/analysis/samples/

# Exactly what install put, by the same lists, and the bytecode Python
# wrote beside the module when it was imported from there; share/mmprof's
# directories go when nothing else is left in them.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mmprof $(DESTDIR)$(MAN1DIR)/mmprof.1 $(DESTDIR)$(COMPDIR)/mmprof
	rm -f $(DESTDIR)$(LIBDIR)/libmmprof-preload.so
	rmdir $(DESTDIR)$(LIBDIR) 2>/dev/null || true
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(CONFIGS) $(ANALYSIS) $(SAMPLES))
	rm -rf $(DESTDIR)$(DATADIR)/analysis/__pycache__
	@for d in analysis/samples analysis configs; do \
	  rmdir $(DESTDIR)$(DATADIR)/$$d 2>/dev/null || true; done; \
	rmdir $(DESTDIR)$(DATADIR) 2>/dev/null || true

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
