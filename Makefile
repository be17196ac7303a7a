# rtltune top-level build. `make` builds build/rtltune and build/rtltuned; see README.md.
# Sources are found by wildcard so a new file in lib/, cli/, daemon/, bpf/ or tests/unit/
# needs no edit here.

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BUILD    ?= build
PKGS     := libbpf libnl-3.0 libnl-route-3.0 libnl-genl-3.0 json-c inih libmicrohttpd
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

LIB_SRCS    := $(wildcard lib/*/*.c)
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

# The skeleton embeds the object as bpftool's linker writes it: BTF, CO-RE relocations
# and line info kept, the DWARF that clang's -g also emits left out (it is 80% of the
# object, and every byte of it would sit in the daemon's binary and, read by libbpf at
# open, in its RSS).
$(BUILD)/bpf/%.linked.o: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen object $@ $<

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.linked.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@
# Made by a chain of pattern rules, so make would delete them as intermediates after each
# build, and every later make would regenerate them and recompile what includes them.
.SECONDARY: $(BPF_OBJS) $(BPF_OBJS:.bpf.o=.linked.o) $(SKELS)

$(LIBRTL): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/rtltune: $(CLI_OBJS) $(LIBRTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/rtltuned: $(DAEMON_OBJS) $(LIBRTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBRTL) $(LDLIBS) -lcmocka

# Unit tests of the CLI's pure parts link the object they test.
$(BUILD)/tests/test_cli_opts: $(BUILD)/cli/opts.o
$(BUILD)/tests/test_escape: $(BUILD)/cli/term.o

# Test helpers (fault injectors, traffic generators): built for `make check` only.
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# scripts/deps.sh holds the package list; `./bootstrap` runs it where there is no make yet.
deps:
	bash scripts/deps.sh

unit: $(UNIT_BINS)
integration: $(PROGS)

# The README's test command (through ./bootstrap check): installs what is missing, builds,
# runs every test. tests/run.sh comes last: its "N passed, N failed, N skipped" ends the run.
check: deps
	$(MAKE) all $(UNIT_BINS) $(TOOL_BINS)
	$(MAKE) sanitize fuzz-replay
	tests/run.sh $(UNIT_BINS)

# The demo needs the build and what scripts/demo.sh runs, not the test packages; bpf_try is
# scripts/preflight.sh's own BPF program (is BPF refused here?).
demo:
	bash scripts/deps.sh demo
	$(MAKE) all $(BUILD)/tests/tools/bpf_try
	scripts/demo.sh

# The benches run tools of their own too (tests/tools: reroute_cost, apply_floor).
bench:
	bash scripts/deps.sh bench
	$(MAKE) all $(TOOL_BINS)
	scripts/bench.sh

# Robustness (docs/security.md). The sanitizer build re-runs this Makefile in its own BUILD
# directory with CC/CFLAGS from the environment (a command-line CFLAGS would replace, not
# extend, the flags above), so nothing mixes with the normal build. One build serves the
# unit tests and the fuzzers: libFuzzer's coverage hooks are inert without its driver.
SAN_FLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link \
		-Wno-unknown-warning-option -Wno-gnu-variable-sized-type-not-at-end
ASAN_BUILD   := build/asan
SAN_MAKE     := CC=clang CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD)
FUZZ_SECONDS ?= 60
FUZZ_SRCS    := $(filter-out $(if $(wildcard daemon/ctl.c),,tests/fuzz/fuzz_ctl.c),\
		$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzzers/%)
.PHONY: sanitize fuzz fuzz-build fuzz-replay fuzzers valgrind soak

$(BUILD)/fuzzers/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIBRTL)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Idaemon -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(LIBRTL) $(LDLIBS)
# The control server is not in the library: its fuzz target links every daemon object but
# main()'s.
$(BUILD)/fuzzers/fuzz_ctl: $(filter-out $(BUILD)/daemon/main.o,$(DAEMON_OBJS))
fuzzers: $(FUZZ_BINS)

sanitize:
	$(SAN_MAKE) unit
	scripts/sanitize.sh $(ASAN_BUILD)

fuzz-build:
	$(SAN_MAKE) fuzzers

fuzz: fuzz-build
	scripts/fuzz.sh run $(ASAN_BUILD)/fuzzers $(FUZZ_SECONDS)

fuzz-replay: fuzz-build
	scripts/fuzz.sh replay $(ASAN_BUILD)/fuzzers

valgrind: all
	TESTS=valgrind_cli tests/run.sh

# The soak tests run in `make check` too, with half the rounds; here the full count.
soak: all
	SOAK_KILLS=30 SOAK_TRIAL_KILLS=5 SOAK_CHURN=500 SOAK_RENAMES=500 TESTS='soak_*' tests/run.sh

FORMAT_SRCS = $(filter-out bpf/vmlinux.h,$(wildcard lib/*/*.c cli/*.c daemon/*.c bpf/*.c bpf/*.h include/rtltune/*.h tests/unit/*.c))
format:
	clang-format -i $(FORMAT_SRCS)

# Generated skeletons are left out (-I$(BUILD) would make cppcheck crawl through their
# embedded object bytes for minutes); scripts/cppcheck.cfg spells libbpf/json-c macros.
# Then the structure docs/architecture.md promises, checked on the objects: no call cycle
# between daemon/ files, only the actuator calls a setter, no lib/ file over 1200 lines.
lint: all
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem --suppress=missingInclude \
		-D_GNU_SOURCE -Iinclude --library=scripts/cppcheck.cfg \
		lib cli $(if $(DAEMON_SRCS),daemon) tests/tools
	python3 scripts/lint-structure.py $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- install / uninstall (issue 8; docs: README "Install") --------------------------------
# `make install` puts the programs, data and docs under PREFIX; DESTDIR stages it for a
# package (binaries keep the final paths compiled in). rtltune lands in BINDIR because its
# read-only commands (show, chips, status, stats) serve users outside root; rtltuned in SBINDIR.
BINDIR         ?= $(PREFIX)/bin
SBINDIR        ?= $(PREFIX)/sbin
MANDIR         ?= $(PREFIX)/share/man
DOCDIR         ?= $(PREFIX)/share/doc/rtltune
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
INSTALL        ?= install

# The binaries carry DATADIR/SYSCONFDIR/LOCALSTATEDIR as compiled-in defaults: when they
# change (`make install PREFIX=/opt/rtltune` after a plain `make`), everything that could
# read them is rebuilt. The stamp is rewritten only when the values differ.
PATHS_STAMP := $(BUILD)/paths.stamp
PATHS_LINE  := $(DATADIR) $(SYSCONFDIR) $(LOCALSTATEDIR)
$(PATHS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(PATHS_LINE)' | cmp -s - $@ || echo '$(PATHS_LINE)' > $@
$(LIB_OBJS) $(CLI_OBJS) $(DAEMON_OBJS): $(PATHS_STAMP)
.PHONY: FORCE install uninstall
FORCE:

MAN_PAGES    := $(wildcard man/*.[1-8])
UNIT_FILES   := $(wildcard systemd/*.service systemd/*.socket systemd/*.timer systemd/*.path)
DAEMON_CONF  := $(wildcard etc/rtltuned.conf)
# docs/README.md is the docs' index: installed as index.md beside the top README.md.
DOC_FILES    := $(filter-out docs/README.md,$(wildcard docs/*.md))
DOC_EXTRA    := $(wildcard docs/prometheus/*.yml docs/grafana/*.json)
# Units name the programs by their Debian paths; follow BINDIR/SBINDIR/SYSCONFDIR when moved.
UNIT_SED     := -e 's|/usr/sbin/rtltuned\b|$(SBINDIR)/rtltuned|g' \
		-e 's|/usr/s\{0,1\}bin/rtltune\b|$(BINDIR)/rtltune|g' \
		-e 's|/etc/rtltune\b|$(SYSCONFDIR)/rtltune|g'

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/chips \
		$(DESTDIR)$(SYSCONFDIR)/rtltune/profiles $(DESTDIR)$(SYSCONFDIR)/rtltune/chips \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0755 $(BUILD)/rtltune $(DESTDIR)$(BINDIR)/rtltune
	$(if $(DAEMON_SRCS),$(INSTALL) -D -m 0755 $(BUILD)/rtltuned $(DESTDIR)$(SBINDIR)/rtltuned)
	$(INSTALL) -m 0644 profiles/*.conf $(DESTDIR)$(DATADIR)/profiles/
	$(INSTALL) -m 0644 chips/*.conf $(DESTDIR)$(DATADIR)/chips/
	set -e; for f in $(UNIT_FILES); do \
		$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR); \
		sed $(UNIT_SED) $$f > $(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/}; \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/}; \
	done
	set -e; for f in $(MAN_PAGES); do \
		$(INSTALL) -D -m 0644 $$f $(DESTDIR)$(MANDIR)/man$${f##*.}/$${f##*/}; \
	done
	sed -e 's|^_rtltune_datadir=.*|_rtltune_datadir=$(DATADIR)|' \
	    -e 's|^_rtltune_sysconfdir=.*|_rtltune_sysconfdir=$(SYSCONFDIR)/rtltune|' \
		completion/rtltune.bash > $(DESTDIR)$(BASHCOMPDIR)/rtltune
	cp $(DESTDIR)$(BASHCOMPDIR)/rtltune $(DESTDIR)$(BASHCOMPDIR)/rtltuned
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/rtltune $(DESTDIR)$(BASHCOMPDIR)/rtltuned
	$(INSTALL) -m 0644 README.md $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 0644 docs/README.md $(DESTDIR)$(DOCDIR)/index.md
	$(INSTALL) -D -m 0644 systemd/examples/pods.conf $(DESTDIR)$(DOCDIR)/examples/pods.conf
	set -e; for f in $(DOC_EXTRA); do \
		$(INSTALL) -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/$${f#docs/}; \
	done
	@# An administrator's config is never overwritten; uninstall removes it only unedited.
	$(if $(DAEMON_CONF),[ -e $(DESTDIR)$(SYSCONFDIR)/rtltune/rtltuned.conf ] || \
		$(INSTALL) -m 0644 $(DAEMON_CONF) $(DESTDIR)$(SYSCONFDIR)/rtltune/rtltuned.conf)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rtltune $(DESTDIR)$(SBINDIR)/rtltuned
	rm -f $(DESTDIR)$(DATADIR)/profiles/*.conf $(DESTDIR)$(DATADIR)/chips/*.conf
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNIT_FILES)))
	set -e; for f in $(MAN_PAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${f##*.}/$${f##*/}; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/rtltune $(DESTDIR)$(BASHCOMPDIR)/rtltuned
	rm -f $(DESTDIR)$(DOCDIR)/*.md $(DESTDIR)$(DOCDIR)/prometheus/*.yml \
		$(DESTDIR)$(DOCDIR)/grafana/*.json
	rm -f $(DESTDIR)$(DOCDIR)/examples/pods.conf
	$(if $(DAEMON_CONF),cmp -s $(DAEMON_CONF) $(DESTDIR)$(SYSCONFDIR)/rtltune/rtltuned.conf && \
		rm -f $(DESTDIR)$(SYSCONFDIR)/rtltune/rtltuned.conf || true)
	@# Only rtltune's own directories go, and only when empty (an admin's files stay).
	rmdir $(DESTDIR)$(DOCDIR)/prometheus $(DESTDIR)$(DOCDIR)/grafana $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/chips \
		$(DESTDIR)$(SYSCONFDIR)/rtltune/profiles $(DESTDIR)$(SYSCONFDIR)/rtltune/chips \
		2>/dev/null || true
	rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(SYSCONFDIR)/rtltune \
		2>/dev/null || true
