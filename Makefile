# slicebench: see README.md.  `make deps` installs what the build and the
# tests need on Debian 12, `make` builds ./slicebench, `make check` runs t/.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/slicebench
DATADIR ?= $(PREFIX)/share/slicebench
# Objects go to $(B), so that the sanitizer build sits beside the normal one.
B ?= build

PKGS := libsystemd libcgroup mysqlclient inih jansson cairo
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-D_GNU_SOURCE -pthread -I. -Irunner \
	-DSLICEBENCH_VERSION='"0.1"' -DLIBEXECDIR='"$(LIBEXECDIR)"' -DDATADIR='"$(DATADIR)"' $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += -pthread $(EXTRA_LDFLAGS)
LDLIBS += $(PKG_LIBS) -lm

LIB_SRCS := $(sort $(wildcard common/*.c) $(wildcard slices/*.c) $(wildcard runner/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
TEST_CSRCS := $(sort $(wildcard t/*.c))
# t/NNN-name.c are tests; the other t/*.c (TAP, the test server) are linked into each.
TEST_HELPER_OBJS := $(patsubst %.c,$(B)/%.o,$(filter-out $(wildcard t/[0-9]*.c),$(TEST_CSRCS)))
# C tests build to $(B)/t/NNN-name.t; shell tests are t/NNN-name.t.
TEST_CPROGS := $(patsubst t/%.c,$(B)/t/%.t,$(wildcard t/[0-9]*.c))
TESTS := $(sort $(wildcard t/[0-9]*.t) $(TEST_CPROGS))

.PHONY: all check asan asan-check deps install clean fuzz quickstart
all: slicebench $(TEST_CPROGS)

slicebench: $(B)/slicebench
	@if [ "$(B)" = build ]; then cp $< $@; fi

$(B)/slicebench: $(B)/runner/main.o $(B)/libslicebench.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/libslicebench.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c $(wildcard common/*.h slices/*.h runner/*/*.h t/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -It -c -o $@ $<

$(B)/t/%.t: $(B)/t/%.o $(TEST_HELPER_OBJS) $(B)/libslicebench.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Tests find the binary and helpers through SLICEBENCH and SLICEBENCH_TOP.
check: all
	SLICEBENCH=$(CURDIR)/$(B)/slicebench SLICEBENCH_TOP=$(CURDIR) prove -v -f $(PROVE_FLAGS) $(TESTS)

asan:
	$(MAKE) B=build-asan EXTRA_CFLAGS='-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' all

asan-check: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/t/lsan.supp \
		$(MAKE) B=build-asan EXTRA_CFLAGS='-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' check

# The README's main job: the quickstart experiment (all four kinds of context)
# in a throwaway systemd container, so that it runs where PID 1 is not
# systemd too; the results land in results/ of this checkout.
QUICKSTART_SANDBOX := quickstart-$(shell echo $$PPID)
quickstart: all
	@trap './slicebench sandbox --name $(QUICKSTART_SANDBOX) down >/dev/null' EXIT; \
	./slicebench sandbox --name $(QUICKSTART_SANDBOX) up && \
	./slicebench sandbox --name $(QUICKSTART_SANDBOX) exec -- ./slicebench run quickstart $(RUN_FLAGS)

# The fuzz target (fuzz/parsers.c) under libFuzzer, ASan and UBSan, seeded
# from experiments/ and the fixtures; FUZZ_TIME seconds, a crash fails.
FUZZ_TIME ?= 60
fuzz:
	$(MAKE) B=build-fuzz CC=clang EXTRA_CFLAGS='-O1 -g -fsanitize=fuzzer-no-link,address,undefined' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined' build-fuzz/libslicebench.a
	clang -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Irunner $(PKG_CFLAGS) \
		-fsanitize=fuzzer,address,undefined -o build-fuzz/parsers fuzz/parsers.c build-fuzz/libslicebench.a $(LDLIBS)
	rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
	for f in experiments/*.ini t/fixtures/experiments/*.ini t/fixtures/run/*.ini t/fixtures/explain/*.ini; do \
		{ printf '\000'; cat "$$f"; } >build-fuzz/corpus/exp-$$(basename "$$f"); done
	{ printf '\001'; cat t/fixtures/sysbench-1.0.20-oltp_read_only.txt; } >build-fuzz/corpus/sysbench-report
	printf '\002{"affinity": "0-1", "cpu.shares": "1024"}' >build-fuzz/corpus/placement
	printf '\003CPUQuota=50%%' >build-fuzz/corpus/prop
	./build-fuzz/parsers -max_total_time=$(FUZZ_TIME) -max_len=16384 -print_final_stats=1 build-fuzz/corpus

deps:
	bash .ci/deps

install: slicebench
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/experiments
	install -m 0755 slicebench $(DESTDIR)$(BINDIR)/slicebench
	install -m 0755 sandbox/slicebench-* $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 experiments/*.ini $(DESTDIR)$(DATADIR)/experiments/

clean:
	rm -rf build build-asan build-fuzz slicebench
.SECONDARY:
