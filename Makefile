# rtltune top-level build. `make` builds build/rtltune and build/rtltuned; see README.md.
# Sources are found by wildcard so a new file in lib/, cli/, daemon/, bpf/ or tests/unit/
# needs no edit here.

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BUILD    ?= build
PKGS     := libbpf libnl-3.0 libnl-route-3.0 libnl-genl-3.0 json-c inih libsystemd libmicrohttpd
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

# Installation paths (issue 8 uses them; the binaries read DATADIR/SYSCONFDIR as defaults).
PREFIX     ?= /usr
DATADIR    ?= $(PREFIX)/share/rtltune
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var

WARN     := -Wall -Wextra -Wshadow -Wno-format-truncation -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -Iinclude -I$(BUILD) \
	    -DRTLTUNE_DATADIR='"$(DATADIR)"' -DRTLTUNE_SYSCONFDIR='"$(SYSCONFDIR)/rtltune"' \
	    -DRTLTUNE_STATEDIR='"$(LOCALSTATEDIR)/lib/rtltune"' \
	    $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lelf -lz -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -I$(BUILD) -Wall

LIB_SRCS    := $(wildcard lib/*.c)
CLI_SRCS    := $(wildcard cli/*.c)
DAEMON_SRCS := $(wildcard daemon/*.c)
BPF_SRCS    := $(wildcard bpf/*.bpf.c)
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
TOOL_SRCS   := $(wildcard tests/tools/*.c)

LIB_OBJS    := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS    := $(CLI_SRCS:%.c=$(BUILD)/%.o)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
BPF_OBJS    := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
SKELS       := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.skel.h)
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BINS   := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
LIBRTL      := $(BUILD)/librtltune.a
PROGS       := $(BUILD)/rtltune $(if $(DAEMON_SRCS),$(BUILD)/rtltuned)

.PHONY: all deps check unit integration demo bench format lint clean
all: $(PROGS)

# Every C object may include a skeleton, so skeletons come first (order-only; -MMD then
# records the real dependency).
$(BUILD)/%.o: %.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/vmlinux.h $(wildcard bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@

$(LIBRTL): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/rtltune: $(CLI_OBJS) $(LIBRTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/rtltuned: $(DAEMON_OBJS) $(LIBRTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Test helpers (fault injectors, traffic generators): built for `make check` only.
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

deps:
	scripts/deps.sh

unit: $(UNIT_BINS)
integration: $(PROGS)

# The README's test command: installs what is missing, builds, runs every test.
check: deps
	$(MAKE) all $(UNIT_BINS) $(TOOL_BINS)
	tests/run.sh $(UNIT_BINS)
	$(MAKE) sanitize fuzz-replay

demo: deps
	$(MAKE) all
	scripts/demo.sh

bench: deps
	$(MAKE) all
	scripts/bench.sh

# Robustness (docs/security.md). Sanitizer and fuzzer builds re-run this Makefile in their
# own BUILD directory with CC/CFLAGS from the environment (a command-line CFLAGS would
# replace, not extend, the flags above), so nothing mixes with the normal build.
SAN_FLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined \
		-Wno-unknown-warning-option -Wno-gnu-variable-sized-type-not-at-end
ASAN_BUILD   := build/asan
FUZZ_BUILD   := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SRCS    := $(filter-out $(if $(wildcard daemon/config.c),,tests/fuzz/fuzz_config.c),\
		$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzzers/%)
.PHONY: sanitize fuzz fuzz-build fuzz-replay fuzzers valgrind soak

$(BUILD)/fuzzers/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Idaemon -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(LIBRTL) $(LDLIBS)
# The daemon's config parser is not in the library: its fuzz target links the object.
$(BUILD)/fuzzers/fuzz_config: $(if $(wildcard daemon/config.c),$(BUILD)/daemon/config.o)
fuzzers: $(FUZZ_BINS)

sanitize:
	CC=clang CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) unit
	scripts/sanitize.sh $(ASAN_BUILD)

fuzz-build:
	CC=clang CFLAGS="$(SAN_FLAGS) -fsanitize=fuzzer-no-link" \
		$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) fuzzers

fuzz: fuzz-build
	scripts/fuzz.sh run $(FUZZ_BUILD)/fuzzers $(FUZZ_SECONDS)

fuzz-replay: fuzz-build
	scripts/fuzz.sh replay $(FUZZ_BUILD)/fuzzers

valgrind: all
	TESTS=valgrind_cli tests/run.sh

soak: all
	TESTS='soak_*' tests/run.sh

FORMAT_SRCS = $(filter-out bpf/vmlinux.h,$(wildcard lib/*.c cli/*.c daemon/*.c bpf/*.c bpf/*.h include/rtltune/*.h tests/unit/*.c))
format:
	clang-format -i $(FORMAT_SRCS)

lint: $(SKELS)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Iinclude -I$(BUILD) \
		lib cli $(if $(DAEMON_SRCS),daemon)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
