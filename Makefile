# dft - top-level Makefile.  See README.md; `make help` lists the targets.
#
# Layout: common/*.c -> build/libdft.a; tools/dft-x.c or tools/dft-x/*.c ->
# build/bin/dft-x; runtime/ has its own Makefile (the bundled tracer).
# New tools and tests are discovered, so adding one needs no edit here.

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include
MANDIR = $(PREFIX)/share/man
DATADIR = $(PREFIX)/share/dft

CC ?= cc
LLVM_CONFIG ?= $(shell command -v llvm-config 2>/dev/null || ls /usr/bin/llvm-config-* 2>/dev/null | sort -V | tail -n 1)
CLANG_CFLAGS = -I$(shell $(LLVM_CONFIG) --includedir)
CLANG_LIBS = -L$(shell $(LLVM_CONFIG) --libdir) -Wl,-rpath,$(shell $(LLVM_CONFIG) --libdir) -lclang
PKGS = json-c libgit2 libcurl zlib
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))

WARN = -Wall -Wextra -Wno-unused-parameter
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Icommon \
	$(PKG_CFLAGS) $(CLANG_CFLAGS) \
	-DDFT_VERSION=\"$(VERSION)\" -DDFT_DATADIR=\"$(DATADIR)\"
# Every tool links the same list; --as-needed keeps only what it uses.
ALL_LIBS = -Wl,--as-needed $(CLANG_LIBS) $(PKG_LIBS) -lpthread -lm

B = build
COMMON_SRC = $(wildcard common/*.c)
COMMON_OBJ = $(COMMON_SRC:%.c=$(B)/obj/%.o)
COMMON_HDR = $(wildcard common/*.h)
# A tool's private headers; every object depends on them (a little more
# rebuilding than needed, never too little).
TOOL_HDR = $(wildcard tools/*.h tools/*/*.h)
TOOL_SINGLE = $(patsubst tools/%.c,%,$(wildcard tools/dft-*.c))
TOOL_DIRS = $(patsubst tools/%/,%,$(dir $(wildcard tools/dft-*/*.c)))
TOOLS = $(sort $(TOOL_SINGLE) $(TOOL_DIRS))
TOOL_BINS = $(TOOLS:%=$(B)/bin/%)
SCRIPTS = $(filter-out %.md %.mk,$(wildcard scripts/dft-*))
MAN1 = $(wildcard man/*.1)
MAN7 = $(wildcard man/*.7)
HAVE_RUNTIME = $(wildcard runtime/Makefile)
# C unit tests of common/: tests/unit/x.c -> build/test/x, run by bats.
UNIT_BINS = $(patsubst tests/unit/%.c,$(B)/test/%,$(wildcard tests/unit/*.c))

.PHONY: all check bench demo lint install uninstall clean deps help fuzz runtime

all: $(TOOL_BINS) $(UNIT_BINS) runtime

help:
	@echo "targets: all check bench demo lint install uninstall clean fuzz"
	@echo "variables: PREFIX=$(PREFIX) DESTDIR= VALGRIND=1 (check) CHECK_JOBS=$(CHECK_JOBS) (check) V=1"

deps:
	@scripts/install-deps --check >/dev/null 2>&1 || scripts/install-deps

$(B)/obj/%.o: %.c $(COMMON_HDR) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/libdft.a: $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(COMMON_OBJ)

# A tool is tools/dft-x.c alone, or every .c file in tools/dft-x/.
# (The object list is a function of the stem: a literal % inside the
# prerequisites would itself be replaced by the stem.)
tool_objs = $(patsubst %.c,$(B)/obj/%.o,$(wildcard tools/$(1).c tools/$(1)/*.c))
# Keep tool objects after linking (they are intermediate files to make).
.SECONDARY:
.SECONDEXPANSION:
$(B)/bin/%: $$(call tool_objs,$$*) $(B)/libdft.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(B)/libdft.a $(ALL_LIBS)

$(B)/test/%: tests/unit/%.c $(B)/libdft.a $(COMMON_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libdft.a $(ALL_LIBS)

runtime:
	@if [ -n "$(HAVE_RUNTIME)" ]; then $(MAKE) -C runtime all VERSION=$(VERSION); fi

# deps first, then build: the build's pkg-config and llvm-config calls need
# the packages that deps installs.
# The test files, the longest first: with GNU parallel, bats runs CHECK_JOBS
# files at a time (the tests of one file one after the other, as they share
# its setup_file), so the long ones start at once and the short ones fill in.
# CHECK_JOBS is one more than the cores: the suite is CPU-bound but for its
# waits (each file alone: slurm.bats waits on Slurm's scheduler about 20 s
# of its 29, optimize-l1.bats on fsyncs and dft-papers.bats on its timeouts
# and retries about 5 s each), in which one more file uses the idle core.
# The order is the files' measured cost (wall time, each file alone under
# bats --timing); the others take under 11 s each.
CHECK_JOBS ?= $(shell n=$$(nproc 2>/dev/null) || n=1; echo $$((n + 1)))
CHECK_FIRST = tests/pipeline.bats tests/dft-annotate.bats \
	tests/dft-analyze.bats tests/pipeline-trace.bats tests/pipeline-apps.bats \
	tests/runtime.bats tests/optimize.bats tests/slurm.bats \
	tests/bottlenecks.bats tests/optimize-l1.bats tests/runtime-mpi.bats \
	tests/hostile.bats tests/dft-funcs.bats tests/tune.bats \
	tests/dft-papers.bats tests/analyze-judge.bats tests/make.bats
CHECK_FILES = $(filter $(wildcard tests/*.bats),$(CHECK_FIRST)) \
	$(filter-out $(CHECK_FIRST),$(sort $(wildcard tests/*.bats)))
CHECK_PAR = $(if $(filter-out 1,$(CHECK_JOBS)),$(if $(shell command -v parallel),\
	--jobs $(CHECK_JOBS) --no-parallelize-within-files))

check: deps
	@$(MAKE) --no-print-directory all
	@# TAP as it comes, each test with its time, then one "N passed, N
	@# failed, N skipped" line
	@{ bats --timing $(CHECK_PAR) $(CHECK_FILES); echo $$? >$(B)/check.rc; } | awk '{ print; fflush() } \
		/^ok .* # skip/ { s++; next } /^ok / { p++ } /^not ok / { f++ } \
		END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
	@exit $$(cat $(B)/check.rc)

bench: deps
	@$(MAKE) --no-print-directory all
	@for b in tests/bench/*.sh; do [ -f "$$b" ] || continue; \
		echo "== $$b"; sh "$$b" || exit 1; done

fuzz: all
	@if [ -f tests/fuzz/Makefile ]; then $(MAKE) -C tests/fuzz run; \
	else echo "no fuzz targets yet"; fi

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/dft-demo

lint: all
	@status=0; \
	if command -v mandoc >/dev/null 2>&1; then \
		for m in $(MAN1) $(MAN7); do \
			mandoc -Tlint -Wwarning $$m || status=1; done; \
	else \
		for m in $(MAN1) $(MAN7); do \
			out=$$(groff -mdoc -ww -z $$m 2>&1); \
			if [ -n "$$out" ]; then echo "$$m: $$out"; status=1; fi; done; \
	fi; \
	if command -v shellcheck >/dev/null 2>&1; then \
		for s in $(SCRIPTS) scripts/install-deps .ci/run; do \
			head -n 1 $$s | grep -q '^#!.*sh' && { shellcheck $$s || status=1; }; done; \
	fi; \
	exit $$status

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)
	for f in $(TOOL_BINS) $(SCRIPTS); do install -m 755 $$f $(DESTDIR)$(BINDIR) || exit 1; done
	for f in $(MAN1); do install -m 644 $$f $(DESTDIR)$(MANDIR)/man1 || exit 1; done
	for f in $(MAN7); do install -m 644 $$f $(DESTDIR)$(MANDIR)/man7 || exit 1; done
	cp -R share/dft/. $(DESTDIR)$(DATADIR)/
	install -m 644 scripts/dft.mk $(DESTDIR)$(DATADIR)/dft.mk
	@if [ -n "$(HAVE_RUNTIME)" ]; then $(MAKE) -C runtime install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) VERSION=$(VERSION); fi

uninstall:
	for t in $(TOOLS) $(notdir $(SCRIPTS)); do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	for m in $(notdir $(MAN1)); do rm -f $(DESTDIR)$(MANDIR)/man1/$$m; done
	for m in $(notdir $(MAN7)); do rm -f $(DESTDIR)$(MANDIR)/man7/$$m; done
	rm -rf $(DESTDIR)$(DATADIR)
	@if [ -n "$(HAVE_RUNTIME)" ]; then $(MAKE) -C runtime uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR); fi

clean:
	rm -rf $(B)
	@if [ -n "$(HAVE_RUNTIME)" ]; then $(MAKE) -C runtime clean; fi
