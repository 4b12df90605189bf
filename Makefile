# slicebench: see README.md.  `make deps` installs what building and
# running it needs on Debian 12, `make test-deps` that and what the tests
# need, `make` builds ./slicebench, `make check` runs t/.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/slicebench
DATADIR ?= $(PREFIX)/share/slicebench
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The version has one owner: debian/changelog.  The commit is git describe's
# at build (SLICEBENCH_COMMIT where there is no git, as in the package's
# copy of the sources); both go into every results directory and report.
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
COMMIT := $(or $(SLICEBENCH_COMMIT),$(shell git -C $(CURDIR) describe --always --dirty --abbrev=12 2>/dev/null),unknown)
# Objects go to $(B), so that the sanitizer build sits beside the normal one.
B ?= build

PKGS := libsystemd libcgroup mysqlclient libpq inih jansson cairo gsl libseccomp pam zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-D_GNU_SOURCE -pthread -I. -Irunner \
	-DLIBEXECDIR='"$(LIBEXECDIR)"' -DDATADIR='"$(DATADIR)"' $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += -pthread $(EXTRA_LDFLAGS)
LDLIBS += $(PKG_LIBS) -lm

LIB_SRCS := $(sort $(wildcard common/*.c) $(wildcard slices/*/*.c) $(wildcard runner/*/*.c) $(wildcard runner/*/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o) $(B)/common/version.o
TEST_CSRCS := $(sort $(wildcard t/*.c))
# t/NNN-name.c are tests; the other t/*.c (TAP, the test server) are linked into each.
TEST_HELPER_OBJS := $(patsubst %.c,$(B)/%.o,$(filter-out $(wildcard t/[0-9]*.c),$(TEST_CSRCS)))
# C tests build to $(B)/t/NNN-name.t; shell tests are t/NNN-name.t.
TEST_CPROGS := $(patsubst t/%.c,$(B)/t/%.t,$(wildcard t/[0-9]*.c))
TESTS := $(sort $(wildcard t/[0-9]*.t) $(TEST_CPROGS))

.PHONY: all check asan asan-unit asan-check deps test-deps install uninstall clean fuzz quickstart man deb deb-path FORCE
all: slicebench $(TEST_CPROGS) man $(B)/slicebench.bash

slicebench: $(B)/slicebench
	@if [ "$(B)" = build ]; then cp $< $@; fi

$(B)/slicebench: $(B)/runner/main.o $(B)/libslicebench.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/libslicebench.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# The compiled-in paths (LIBEXECDIR, DATADIR) and the other flags: a change
# rebuilds every object, so that `make install PREFIX=/usr` after a plain
# `make` does not install a binary that looks for its helpers in /usr/local.
FLAGS_NOW = $(CC) $(CPPFLAGS) $(CFLAGS)
$(B)/cflags: FORCE
	$(eval FLAGS_WAS := $(shell mkdir -p $(B))$(if $(wildcard $@),$(file <$@)))
	$(if $(and $(findstring $(FLAGS_WAS),$(FLAGS_NOW)),$(findstring $(FLAGS_NOW),$(FLAGS_WAS))),,$(file >$@,$(FLAGS_NOW)))

$(B)/%.o: %.c $(wildcard common/*.h slices/*/*.h runner/*/*.h runner/*/*/*.h t/*.h) $(B)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -It -c -o $@ $<

# version.c is written only when the version or the commit changed, so that
# a new commit relinks and rebuilds nothing else.
$(B)/common/version.c: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '/* Made by the Makefile: common/version.h. */' '#include "common/version.h"' \
		'const char slicebench_version[] = "$(VERSION)";' 'const char slicebench_commit[] = "$(COMMIT)";' >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(B)/common/version.o: $(B)/common/version.c common/version.h $(B)/cflags
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/t/%.t: $(B)/t/%.o $(TEST_HELPER_OBJS) $(B)/libslicebench.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Tests find the binary and helpers through SLICEBENCH and SLICEBENCH_TOP,
# the package through SLICEBENCH_DEB.  The tests that measure run one at a
# time; then those that assert no figure, two at a time, longest first (the
# seconds a quiet CI run gave each): the guest, the fleet, the fuzzer, the
# ASan build, the package, the statistics' simulations and explain's
# sentences on directories of known truth (seeded, no server), the page in
# Chromium; last the short ones that start no server (layout, settings'
# gate, hostile input, command line, README, manuals).  Each is its own VM,
# containers, build tree or process: two at a time they took 689 s of a
# 2,903 s CI run, about 1,200 s of CPU.
UNMEASURED_TESTS := t/072-v2-contexts.t $(B)/t/190-decide-simulation.t t/102-fleet.t \
	$(B)/t/103-position-simulation.t t/090-fuzz.t t/089-asan-unit.t $(B)/t/104-unequal-noise-simulation.t \
	t/070-vm-sandbox.t $(B)/t/106-power-simulation.t $(B)/t/107-calibrate-simulation.t \
	$(B)/t/069-noise-simulation.t $(B)/t/105-claims-simulation.t $(B)/t/065-stats-simulation.t \
	$(B)/t/111-explain-holdout-sentences.t t/067-html-report.t t/101-deb.t $(B)/t/068-compare-simulation.t \
	$(B)/t/108-explain-noise-simulation.t $(B)/t/113-explain-not-shown.t $(B)/t/110-explain-set-sentences.t \
	t/166-gate-variations.t t/005-layout.t t/096-results-hostile.t t/014-cli-conventions.t t/154-page-widths.t \
	t/151-licence-deps.t t/097-bad-input.t t/150-readme.t t/100-man.t t/047-cli.t t/163-completion.t
PROVE = SLICEBENCH=$(CURDIR)/$(B)/slicebench SLICEBENCH_TOP=$(CURDIR) SLICEBENCH_DEB=$(abspath $(DEB)) \
	prove -v -f --timer $(PROVE_FLAGS)
check: all deb
	@serial='$(filter-out $(UNMEASURED_TESTS),$(TESTS))'; paired='$(filter $(TESTS),$(UNMEASURED_TESTS))'; rc=0; \
	if [ -n "$$serial" ]; then $(PROVE) $$serial || rc=1; fi; \
	if [ -n "$$paired" ]; then $(PROVE) -j2 $$paired || rc=1; fi; \
	exit $$rc

asan:
	$(MAKE) B=build-asan EXTRA_CFLAGS='-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' all

# The part of asan-check that CI runs (.ci/run): the C tests that need no
# server or sandbox, and the hostile-input tests and the HTML pages' test
# against the ASan binary.
ASAN_UNIT_TESTS := $(addprefix build-asan/t/,012-topology.t 035-tables.t 041-histogram.t 043-sysbench-report.t \
	046-pgbench-report.t 060-report.t 061-stats.t 063-stall-rule.t 064-explain-attribution.t 116-start-rule.t 066-calibrate.t 071-explain-factors.t 091-hostile-files.t \
	094-secrets.t 110-explain-set-sentences.t 111-explain-holdout-sentences.t 112-explain-failures.t 113-explain-not-shown.t) \
	t/096-results-hostile.t t/097-bad-input.t t/067-html-report.t
asan-unit: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/t/lsan.supp \
		SLICEBENCH=$(CURDIR)/build-asan/slicebench SLICEBENCH_TOP=$(CURDIR) prove -j2 -f $(ASAN_UNIT_TESTS)

asan-check: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/t/lsan.supp \
		$(MAKE) B=build-asan EXTRA_CFLAGS='-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' check

# The README's main job: the quickstart experiment (all four kinds of context)
# in a throwaway systemd container, so that it runs where PID 1 is not
# systemd too; the results land in results/ of this checkout, and run ends
# by writing their page, report.html, there and printing its path.
QUICKSTART_SANDBOX := quickstart-$(shell echo $$PPID)
quickstart: all
	@trap './slicebench sandbox --name $(QUICKSTART_SANDBOX) down >/dev/null' EXIT; \
	./slicebench sandbox --name $(QUICKSTART_SANDBOX) up && \
	./slicebench sandbox --name $(QUICKSTART_SANDBOX) exec -- ./slicebench run quickstart $(RUN_FLAGS)

# The fuzz target (fuzz/parsers.c) under libFuzzer, ASan and UBSan, seeded
# from experiments/, the fixtures and fuzz/regress (what it found before);
# FUZZ_TIME seconds, a crash fails.
FUZZ_TIME ?= 60
fuzz:
	$(MAKE) B=build-fuzz CC=clang EXTRA_CFLAGS='-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' build-fuzz/libslicebench.a
	clang -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Irunner $(PKG_CFLAGS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o build-fuzz/parsers fuzz/parsers.c build-fuzz/libslicebench.a $(LDLIBS)
	rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
	for f in experiments/*.ini t/fixtures/experiments/*.ini t/fixtures/run/*.ini t/fixtures/explain/*.ini; do \
		{ printf '\000'; cat "$$f"; } >build-fuzz/corpus/exp-$$(basename "$$f"); done
	{ printf '\001'; cat t/fixtures/sysbench-1.0.20-oltp_read_only.txt; } >build-fuzz/corpus/sysbench-report
	{ printf '\004'; cat t/fixtures/pgbench-15-select-only.txt; } >build-fuzz/corpus/pgbench-report
	printf '\002{"affinity": "0-1", "cpu.shares": "1024"}' >build-fuzz/corpus/placement
	printf '\003CPUQuota=50%%' >build-fuzz/corpus/prop
	printf '\010on-cpu;libc.so.6`start_thread;libc.so.6`malloc 3\noff-cpu:futex;[kernel]`futex_wait 120\n' >build-fuzz/corpus/profile
	for f in t/fixtures/results/*.json; do { printf '\005'; cat "$$f"; } >build-fuzz/corpus/results-$$(basename "$$f"); \
		{ printf '\006'; cat "$$f"; } >build-fuzz/corpus/expjson-$$(basename "$$f"); done
	{ printf '\007'; cat t/fixtures/results/experiment.json; printf '\036'; cat t/fixtures/results/step.json; \
		printf '\036'; cat t/fixtures/results/placement.json; } >build-fuzz/corpus/results-dir
	cp fuzz/regress/* build-fuzz/corpus/
	./build-fuzz/parsers -max_total_time=$(FUZZ_TIME) -max_len=16384 -print_final_stats=1 build-fuzz/corpus

# Man pages (scdoc): slicebench(1) from each verb's --help, and
# slicebench.experiment(5) from the key and property tables (man/mangen.c),
# so that neither can drift from the code.
MAN_PAGES := $(B)/man/slicebench.1 $(B)/man/slicebench.experiment.5
MAN_PATHS := sed -e 's|@DATADIR@|$(DATADIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g'
man: $(MAN_PAGES)

$(B)/man/mangen: man/mangen.c $(B)/libslicebench.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/man/slicebench.experiment.5.scd: man/slicebench.experiment.5.scd.in $(B)/man/mangen
	$(MAN_PATHS) $< | $(B)/man/mangen >$@.tmp && mv $@.tmp $@

$(B)/man/slicebench.1.scd: man/slicebench.1.scd.in man/verbs.sh $(B)/slicebench
	@mkdir -p $(dir $@)
	$(MAN_PATHS) $< | sh man/verbs.sh $(B)/slicebench >$@.tmp && mv $@.tmp $@

$(B)/man/%: $(B)/man/%.scd
	scdoc <$< >$@.tmp && mv $@.tmp $@

# bash completion: a script that asks the binary (slicebench __complete)
# for the candidates, which it reads from its own option tables.
$(B)/slicebench.bash: $(B)/slicebench
	$< __complete bash >$@.tmp && mv $@.tmp $@

deps:
	bash .ci/deps run

test-deps:
	bash .ci/deps test

install: slicebench man $(B)/slicebench.bash
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/experiments \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(B)/slicebench $(DESTDIR)$(BINDIR)/slicebench
	install -m 0755 sandbox/slicebench-* $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 experiments/*.ini $(DESTDIR)$(DATADIR)/experiments/
	install -m 0644 $(B)/man/slicebench.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(B)/man/slicebench.experiment.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(B)/slicebench.bash $(DESTDIR)$(BASHCOMPDIR)/slicebench

# What install put there, by name; the state directory (/var/lib/slicebench:
# datadirs, calibration) and results directories are the user's to remove.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/slicebench $(DESTDIR)$(MANDIR)/man1/slicebench.1 \
		$(DESTDIR)$(MANDIR)/man5/slicebench.experiment.5 $(DESTDIR)$(BASHCOMPDIR)/slicebench \
		$(addprefix $(DESTDIR)$(LIBEXECDIR)/,$(notdir $(wildcard sandbox/slicebench-*))) \
		$(addprefix $(DESTDIR)$(DATADIR)/experiments/,$(notdir $(wildcard experiments/*.ini)))
	-rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/experiments $(DESTDIR)$(DATADIR) 2>/dev/null

# The Debian package, built by debhelper (debian/) from a copy of the
# sources in $(DEB_DIR), so that its PREFIX=/usr objects never mix with the
# checkout's: $(DEB_DIR)/slicebench_$(VERSION)_amd64.deb.
DEB_DIR ?= build/deb
DEB_SRCS := Makefile README.md common slices runner sandbox experiments man debian
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB := $(DEB_DIR)/slicebench_$(VERSION)_$(DEB_ARCH).deb
deb: $(DEB)
$(DEB): $(shell find $(DEB_SRCS) -type f 2>/dev/null)
	rm -rf $(DEB_DIR)/slicebench-$(VERSION) $(DEB_DIR)/slicebench*_$(VERSION)_*
	mkdir -p $(DEB_DIR)/slicebench-$(VERSION)
	tar -cf - $(DEB_SRCS) | tar -xf - -C $(DEB_DIR)/slicebench-$(VERSION)
	@# Our own make's command-line variables (B=build-asan, sanitizer flags) stay out of it.
	cd $(DEB_DIR)/slicebench-$(VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL SLICEBENCH_COMMIT=$(COMMIT) dpkg-buildpackage -b -us -uc $(DEB_BUILD_FLAGS) >../build.log 2>&1 || \
		{ tail -n 30 ../build.log >&2; exit 1; }
	@echo "built $(DEB)"

deb-path:
	@echo $(abspath $(DEB))

clean:
	rm -rf build build-asan build-fuzz slicebench
.SECONDARY:
