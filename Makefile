# dltrace build.  `make` builds build/dltrace; see README.md for the rest.
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CC ?= cc
CLANG ?= clang
# Debian installs bpftool in /usr/sbin, not on a user's PATH (make check builds as any user)
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
BUILD := build
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -std=gnu11 -I$(BUILD) -Ibpf -Iuser -I. -DDLTRACE_VERSION=\"$(VERSION)\" $(EXTRA_CFLAGS)
# Each object (user/ and bpf/) writes the headers it includes into its .d (included at the
# end): a header's change rebuilds the objects that include it, not all of them.
DEPFLAGS := -MMD -MP
LDFLAGS += $(EXTRA_LDFLAGS)
LDLIBS += -lbpf -lelf -lz -lm -lpthread -ljson-c
# BPF_PROG/BPF_KPROBE declare the traced function's whole signature: unused parameters are normal there.
# -mcpu=v3: 32-bit jumps and ALU, atomic fetch-and-add (the file cookies of
# bpf/file_identity.bpf.h, the Python stack ids; kernel 5.12).
# libbpf's usdt.bpf.h includes <linux/errno.h>, which wants the multiarch <asm/errno.h>.
BPF_CFLAGS := -g -O2 -mcpu=v3 -Wall -Wextra -Wno-unused-parameter -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf \
	-idirafter /usr/include/$(shell $(CC) -dumpmachine)
# bench/ builds variants of the BPF side with BPF_DEFS (the DL_HOOKS_* of meta_syscall_probes.bpf.c)
BPF_CFLAGS += $(BPF_DEFS)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_HDRS := $(wildcard bpf/*.h) bpf/syscalls.def
# user/ is grouped by stage (docs/developer-guide.md "Folders"); objects mirror its folders
# under build/obj, so files of the same name in two folders cannot collide.
USER_SRCS := $(shell find user -name '*.c' | sort)
USER_HDRS := $(shell find user -name '*.h')
# The sources that include the BPF skeleton: the only objects that differ between
# builds of other BPF programs (BPF_DEFS, bench/'s variants).
SKEL_SRCS := $(shell grep -rl --include='*.c' 'dltrace\.skel\.h' user | sort)
SKEL_OBJS := $(patsubst user/%.c,$(BUILD)/obj/%.o,$(SKEL_SRCS))
# BASE_BUILD: where the other objects come from; a variant's build sets it to the main
# build's directory and compiles only its BPF side and SKEL_OBJS.
BASE_BUILD ?= $(BUILD)
USER_OBJS := $(patsubst user/%.c,$(BASE_BUILD)/obj/%.o,$(filter-out $(SKEL_SRCS),$(USER_SRCS))) \
	$(SKEL_OBJS)
# What the helpers linked from user/ take: every object but main().
LIB_OBJS := $(filter-out %/obj/cli/main.o,$(USER_OBJS))
# Sub-makes build in parallel: in the jobserver of a `make -jN` above them when there is
# one, else with -j$(NPROC) of their own (`make test` as the README gives it).  Expanded
# in a recipe, where MAKEFLAGS holds the -j of the command line.
NPROC := $(shell nproc 2>/dev/null || echo 1)
PARALLEL = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

.PHONY: all clean install vmlinux test test-shuffle test-each check-build stress test-asan asan-build valgrind demo deps-build deps-test deps-demo workloads fuzz deps-vm vm-prepare vm-test
all: $(BUILD)/dltrace $(BUILD)/libdltrace_markers.so $(BUILD)/span_check $(BUILD)/trace_rewrite

# The docs' lists of syscalls, from bpf/syscalls.def (tools/syscall_docs.py;
# tests/test_syscall_docs.py checks them).
SYSCALL_DOCS := man/dltrace.8 $(shell grep -l 'syscalls: begin (make syscall-docs)' README.md docs/*.md 2>/dev/null)
.PHONY: syscall-docs
syscall-docs: $(BUILD)/dltrace
	$(PYTHON) tools/syscall_docs.py --dltrace $(BUILD)/dltrace $(SYSCALL_DOCS)

# The marker library (markers/): USDT probes with semaphores, for jobs to name
# their phases; python/dltrace_markers.py loads it with ctypes.
MARKERS_SONAME := libdltrace_markers.so.1
$(BUILD)/libdltrace_markers.so: markers/dltrace_markers.c markers/dltrace_markers.h | $(BUILD)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -Imarkers -Wl,-soname,$(MARKERS_SONAME) $< -o $@

PYTHON ?= /usr/bin/python3
TEST_WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/tests/%,$(wildcard tests/workloads/*.c))

deps-build:
	tools/install-deps.sh build

deps-test:
	tools/install-deps.sh build test demo

# Longer than a minute: overload (two threads at full speed for 20 s, twice).
stress: deps-test
	$(MAKE) $(PARALLEL) all workloads
	$(PYTHON) tests/run_tests.py $(if $(STRICT),--strict) stress_overload

# The suite against dltrace and its helpers built with AddressSanitizer and UBSan: every
# test that runs one of them (run_tests.py --sanitized prints which, and leaves out those
# marked runs_no_dltrace_code, which run neither).  SEED, ORDER and TESTS as for `make test`.
ASAN_BUILD := build-asan
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The helpers linked from user/ that tests run: the same list as HELPERS in
# tests/dltrace_harness.py (run_tests.py --sanitized fails when one is not sanitized).
USER_HELPERS := trace_rewrite span_check tools/pystack_check tests/pftrace_encode \
	tests/pb_writer_test tests/live_stats_test tests/btf_names_check tests/py_linetable_check \
	tests/event_roundtrip tests/golden_decode tests/trace_damage
# `make asan-build` builds them only: CI makes them while the plain suite runs.
asan-build: deps-test
	$(MAKE) $(PARALLEL) all workloads
	$(MAKE) $(PARALLEL) BUILD=$(ASAN_BUILD) EXTRA_CFLAGS="$(SANITIZE)" EXTRA_LDFLAGS="$(SANITIZE)" \
		$(ASAN_BUILD)/dltrace $(addprefix $(ASAN_BUILD)/,$(USER_HELPERS))
	# the marker library next to that dltrace is the one the tests' jobs load
	ln -sf ../$(BUILD)/libdltrace_markers.so $(ASAN_BUILD)/libdltrace_markers.so
test-asan: asan-build
	DLTRACE_BIN=$(CURDIR)/$(ASAN_BUILD)/dltrace DLTRACE_HELPERS=$(CURDIR)/$(ASAN_BUILD) \
	DLTRACE_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:exitcode=99 \
		$(PYTHON) tests/run_tests.py --sanitized $(TEST_ORDER) $(TESTS)

# A short trace under valgrind's memcheck: no errors, no leaks.
valgrind: all workloads
	tools/install-deps.sh test
	tests/valgrind_trace.sh $(BUILD)/dltrace

deps-demo:
	tools/install-deps.sh build demo

deps-bench:
	tools/install-deps.sh build demo bench

deps-vm:
	tools/install-deps.sh build test demo vm

# The README's first command: trace the PyTorch example end to end.
DEMO_OUT ?= examples/out
demo: deps-demo
	$(MAKE) $(PARALLEL) all
	examples/pytorch/run_demo.sh $(BUILD)/dltrace $(PYTHON) $(DEMO_OUT)

# The Perfetto writer's byte-exact tests and its driver (tests/perfetto/).
PFTRACE_TEST_BINS := $(BUILD)/tests/pb_writer_test $(BUILD)/tests/pftrace_encode
PFTRACE_OBJS := $(addprefix $(BUILD)/obj/,lib/pb_writer.o format/perfetto/pftrace_intern.o)
$(BUILD)/tests/pb_writer_test: tests/perfetto/pb_writer_test.c $(PFTRACE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@
$(BUILD)/tests/pftrace_encode: tests/perfetto/pftrace_encode.c \
		$(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The live view's aggregation, fed by hand (tests/live/, test_live_stats).
LIVE_TEST_OBJS := $(addprefix $(BUILD)/obj/,view/live_stats.o view/top_view.o view/top_model.o \
	view/live_snapshot_json.o event/event_consumer.o event/syscall_table.o lib/id_map.o \
	lib/u64_index.o lib/path_table.o lib/json_string.o lib/json_value.o)
$(BUILD)/tests/live_stats_test: tests/live/live_stats_test.c $(LIVE_TEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ -ljson-c

workloads: $(TEST_WORKLOADS) $(PFTRACE_TEST_BINS) $(BUILD)/tools/pystack_check \
	$(BUILD)/tests/py_linetable_check $(BUILD)/tests/live_stats_test \
	$(BUILD)/tests/btf_names_check

# A reader with no dynamic loader, so that its reads are the only ones of its job.
$(BUILD)/tests/static_reader: tests/workloads/static_reader.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -static -o $@ $<

$(BUILD)/tests/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -o $@ $< -lpthread -luring -lbpf

# Python stacks: the BPF walk with its records decoded, one line per syscall
# (tests/test_python_stacks.py); and the line-table decoder against CPython's own.
$(BUILD)/tools/pystack_check: tools/pystack_check.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/py_linetable_check: tools/py_linetable_check.c user/lib/py_linetable.c \
		user/lib/py_linetable.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) tools/py_linetable_check.c user/lib/py_linetable.c -o $@

# The start-up's lean index of the kernel's BTF names against libbpf's parse.
$(BUILD)/tests/btf_names_check: tools/btf_names_check.c user/lib/btf_names.c user/lib/btf_names.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) tools/btf_names_check.c user/lib/btf_names.c -o $@ -lbpf

# The README's test command: installs what it needs, builds, runs every test in a random
# order (of the modules, the classes of each, the tests of each class), drawn from a seed
# that it prints at the start and at the end:
#   make test SEED=N        that order again (with the same TESTS)
#   make test ORDER=fixed   the order of the files and of the tests in them
#   make test STRICT=1      a skipped test fails the run (CI)
#   make test TESTS='test_targets test_report.ReportTest'   those only
TEST_ORDER = $(if $(filter fixed,$(ORDER)),,--shuffle $(SEED))$(if $(STRICT), --strict)
test: deps-test
	$(MAKE) $(PARALLEL) all workloads
	$(PYTHON) tests/run_tests.py $(TEST_ORDER) $(TESTS)

# What `make test` is now (it shuffles), under the name earlier runs printed for a replay.
test-shuffle: test

# Every test alone, each in a process of its own.
test-each: deps-test
	$(MAKE) $(PARALLEL) all workloads
	$(PYTHON) tests/run_tests.py --each $(TESTS)

# ---- The unit tier (tests/unit): `make check` ----
# Everything that needs neither root nor BPF: the report on synthetic traces,
# the event_args/event_parse round trip, the decoder on saved records
# (tests/unit/golden), the .pftrace codec and damaged inputs, the live view's
# aggregation, the line-table and BTF-name decoders.  Runs as any user, in
# seconds once built, with only what builds dltrace: it installs nothing.
# `make test` runs these same tests in its one run of tests/run_tests.py
# (both tiers), so CI runs none of them twice.
UNIT_OBJS := $(LIB_OBJS)
UNIT_BINS := $(BUILD)/dltrace $(BUILD)/tests/event_roundtrip $(BUILD)/tests/golden_decode \
	$(BUILD)/tests/trace_damage $(PFTRACE_TEST_BINS) \
	$(BUILD)/tests/live_stats_test $(BUILD)/tests/py_linetable_check \
	$(BUILD)/tests/btf_names_check
.PHONY: check check-asan
check: $(UNIT_BINS)
	DLTRACE_BUILD=$(abspath $(BUILD)) $(PYTHON) tests/run_tests.py --unit $(TESTS)

# The same with every program it runs (dltrace and the programs linked from user/)
# built with AddressSanitizer and UBSan, in $(ASAN_BUILD), as make test-asan runs them.
check-asan:
	$(MAKE) $(PARALLEL) BUILD=$(ASAN_BUILD) EXTRA_CFLAGS="$(SANITIZE)" \
		EXTRA_LDFLAGS="$(SANITIZE)" $(ASAN_BUILD)/dltrace $(addprefix $(ASAN_BUILD)/,$(USER_HELPERS))
	DLTRACE_BIN=$(CURDIR)/$(ASAN_BUILD)/dltrace DLTRACE_HELPERS=$(CURDIR)/$(ASAN_BUILD) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:exitcode=99 \
		$(PYTHON) tests/run_tests.py --unit --sanitized $(TESTS)

# make test builds them with the workloads
workloads: $(UNIT_BINS)

$(BUILD)/tests/event_roundtrip: tests/unit/event_roundtrip.c $(UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/golden_decode: tests/unit/golden_decode.c $(UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/trace_damage: tests/unit/trace_damage.c $(UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The decoder's golden records (tests/unit/golden): ring records saved with
# --save-records from known workloads, each with the trace it decodes to and
# the workload's own log.  They change with the record layout
# (bpf/dltrace_events.h, RECORD_FILE_MAGIC): then regenerate them here, as
# root (it traces), and review the diff before committing it.
.PHONY: golden-records
golden-records: all workloads
	tests/unit/golden/record.sh $(BUILD)
# ---- end of the unit tier ----

# Fuzzing the trace reader of `dltrace report` (libFuzzer, ASan, UBSan), built
# from dltrace's own sources.  FUZZ_SECONDS=600 by default; new inputs stay in
# build/fuzz/corpus, the seeds in tests/fuzz/corpus.
FUZZ_SECONDS ?= 600
FUZZ_SRCS := $(addprefix user/,format/chrome/trace_reader.c format/chrome/trace_line_parser.c \
	io/trace_status.c \
	format/chrome/chrome_events.c event/event_consumer.c event/event_args.c event/event_parse.c \
	event/lost_counts.c \
	event/syscall_table.c lib/json_string.c lib/string_index.c lib/u64_index.c \
	lib/quantile_sketch.c report/path_scope.c report/report_intern.c report/report_tables.c \
	report/report_access.c report/report_session.c report/report_timeline.c report/report_events.c report/report_derive.c \
	report/report_levels.c report/report_phases.c report/report_python.c \
	report/report_findings.c report/findings_evidence.c report/findings_access.c \
	report/findings_time.c report/findings_levels.c lib/human_format.c report/report_warnings.c \
	lib/html_text.c report/render/report_lists.c report/render/report_json.c \
	report/render/report_json_build.c \
	report/render/report_json_summary.c report/render/report_json_lists.c \
	report/render/report_json_layers.c report/render/report_json_phases.c \
	report/render/report_json_findings.c report/render/report_terminal.c \
	report/render/report_html.c report/render/report_html_sections.c \
	report/render/report_html_levels.c report/render/report_html_charts.c \
	merge/trace_merge.c merge/merge_ids.c lib/id_map.c \
	format/chrome/chrome_format.c io/output_sink.c io/input_stream.c lib/fs_names.c lib/path_table.c \
	lib/decimal.c lib/json_value.c io/progress.c \
	report/report_gpu_idle.c report/render/report_gpu.c event/kineto_names.c)
FUZZ_TARGET := $(BUILD)/fuzz/trace_reader_fuzz

$(FUZZ_TARGET): tests/fuzz/trace_reader_fuzz.c $(FUZZ_SRCS) $(USER_HDRS) $(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -Iuser -Ibpf -I. -DDLTRACE_VERSION=\"$(VERSION)\" \
		-DSINK_CHUNK=4096 -DZOUT_BYTES=4096 -DSTRING_BLOCK_BYTES=4096 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		tests/fuzz/trace_reader_fuzz.c $(FUZZ_SRCS) -o $@ -lz -lm -ljson-c

# The .pftrace reader and what its events flow into (the report, both writers).
PFTRACE_FUZZ_TARGET := $(BUILD)/fuzz/pftrace_reader_fuzz
PFTRACE_FUZZ_SRCS := $(FUZZ_SRCS) $(addprefix user/,format/perfetto/pftrace_events.c \
	format/perfetto/pftrace_consumer.c format/perfetto/pftrace_writer.c \
	format/perfetto/pftrace_intern.c format/trace_format.c format/chrome/chrome_writer.c \
	format/json_format.c format/pftrace_format.c \
	event/event_parse.c event/event_tee.c io/output_sink.c lib/pb_reader.c lib/pb_writer.c)
$(PFTRACE_FUZZ_TARGET): tests/fuzz/pftrace_reader_fuzz.c $(PFTRACE_FUZZ_SRCS) $(USER_HDRS) \
		$(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -Iuser -Ibpf -I. -DDLTRACE_VERSION=\"$(VERSION)\" \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		tests/fuzz/pftrace_reader_fuzz.c $(sort $(PFTRACE_FUZZ_SRCS)) -o $@ -lz -lm -ljson-c

# PyTorch profiler (Kineto) traces: the reader, then dltrace merge and the report's GPU join.
KINETO_FUZZ_TARGET := $(BUILD)/fuzz/kineto_reader_fuzz
KINETO_FUZZ_SRCS := $(PFTRACE_FUZZ_SRCS) $(addprefix user/,merge/kineto_merge.c merge/event_merge.c \
	format/kineto/kineto_reader.c lib/json_flat.c)
$(KINETO_FUZZ_TARGET): tests/fuzz/kineto_reader_fuzz.c $(KINETO_FUZZ_SRCS) $(USER_HDRS) $(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -Iuser -Ibpf -I. -DDLTRACE_VERSION=\"$(VERSION)\" \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		tests/fuzz/kineto_reader_fuzz.c $(sort $(KINETO_FUZZ_SRCS)) -o $@ -lz -lm -ljson-c

# The daemon's configuration parser, the same way.
CONFIG_FUZZ_TARGET := $(BUILD)/fuzz/config_fuzz
# (trace_format = names a format of the registry, which links every format)
CONFIG_FUZZ_SRCS := user/daemon/daemon_config.c user/probe/probe_layers.c user/probe/system_checks.c \
	user/lib/btf_names.c $(addprefix user/,$(sort $(filter format/% event/% io/% lib/%, \
	$(patsubst user/%,%,$(PFTRACE_FUZZ_SRCS)))))
$(CONFIG_FUZZ_TARGET): tests/fuzz/config_fuzz.c $(CONFIG_FUZZ_SRCS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -Iuser -Ibpf -I. -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined tests/fuzz/config_fuzz.c $(CONFIG_FUZZ_SRCS) \
		-o $@ -lbpf -lelf -lz -lm -ljson-c

# dltrace replay's planner: a trace into a plan, its paths mapped, its printouts.
REPLAY_FUZZ_TARGET := $(BUILD)/fuzz/replay_plan_fuzz
REPLAY_FUZZ_SRCS := $(FUZZ_SRCS) $(addprefix user/,replay/replay_collect.c replay/replay_walk.c \
	replay/replay_walk_state.c replay/replay_fds.c replay/replay_deps.c replay/replay_layout.c \
	replay/replay_paths.c replay/replay_report.c)
$(REPLAY_FUZZ_TARGET): tests/fuzz/replay_plan_fuzz.c $(REPLAY_FUZZ_SRCS) $(USER_HDRS) $(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -Iuser -Ibpf -I. -DDLTRACE_VERSION=\"$(VERSION)\" \
		-DSINK_CHUNK=4096 -DZOUT_BYTES=4096 -DSTRING_BLOCK_BYTES=4096 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		tests/fuzz/replay_plan_fuzz.c $(sort $(REPLAY_FUZZ_SRCS)) -o $@ -lz -lm -ljson-c

fuzz: $(FUZZ_TARGET) $(PFTRACE_FUZZ_TARGET) $(KINETO_FUZZ_TARGET) $(CONFIG_FUZZ_TARGET) \
		$(REPLAY_FUZZ_TARGET)
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/config_corpus $(BUILD)/fuzz/crashes \
		$(BUILD)/fuzz/pftrace_corpus $(BUILD)/fuzz/kineto_corpus $(BUILD)/fuzz/replay_corpus
	$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-dict=tests/fuzz/trace.dict -artifact_prefix=$(BUILD)/fuzz/crashes/ \
		-print_final_stats=1 $(BUILD)/fuzz/corpus tests/fuzz/corpus
	$(PFTRACE_FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/crashes/pftrace- -print_final_stats=1 \
		$(BUILD)/fuzz/pftrace_corpus tests/fuzz/pftrace_corpus
	$(KINETO_FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-dict=tests/fuzz/kineto.dict -artifact_prefix=$(BUILD)/fuzz/crashes/kineto- \
		-print_final_stats=1 $(BUILD)/fuzz/kineto_corpus tests/fuzz/kineto_corpus \
		tests/data/kineto
	$(CONFIG_FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/crashes/config- -print_final_stats=1 \
		$(BUILD)/fuzz/config_corpus tests/fuzz/config_corpus
	$(REPLAY_FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-dict=tests/fuzz/trace.dict -artifact_prefix=$(BUILD)/fuzz/crashes/replay- \
		-print_final_stats=1 $(BUILD)/fuzz/replay_corpus tests/fuzz/replay_corpus

# The overhead benchmark (bench/, several minutes; not part of `make test`), into
# bench/results/.  BENCH_QUICK=1: fewer repetitions and smaller sizes, for a smoke run.
.PHONY: deps-bench bench bench-build
BENCH := $(BUILD)/bench
BENCH_BINS := $(patsubst bench/workloads/%.c,$(BENCH)/%,$(wildcard bench/workloads/*.c)) \
	$(BENCH)/floor_loader $(BENCH)/floor_probes.bpf.o $(BENCH)/uprobe_cost
bench: deps-bench
	$(MAKE) $(PARALLEL) all bench-build
	$(PYTHON) bench/run_bench.py $(if $(BENCH_QUICK),--quick) $(BENCH_ARGS)
	$(PYTHON) bench/replay_bench.py $(if $(BENCH_QUICK),--quick)
	$(MAKE) docs-table

# The one table of measured results in docs/performance.md, made from the
# latest bench/results/*.json (tests/unit/test_docs.py checks that it is current).
.PHONY: docs-table
docs-table:
	$(PYTHON) bench/results_table.py docs/performance.md

bench-build: $(BENCH_BINS) $(BENCH)/decode_replay bench-hooks bench-fdid $(BUILD)/tests/replay_reader

# The variants below build only their BPF side (BPF_DEFS) and the objects that include
# its skeleton (SKEL_OBJS) in their directory; the other objects are the main build's
# (BASE_BUILD), built here first.
VARIANT_SHARED_OBJS := $(filter-out $(SKEL_OBJS),$(USER_OBJS))

# dltrace with other ways of naming a descriptor's file at each call, for
# bench/fd_identity_cost.py: none (no file identity on the records), lru (no
# per-task cache: the dl_files LRU map at every call).
FDID := $(BENCH)/fdid
.PHONY: bench-fdid
bench-fdid: $(VARIANT_SHARED_OBJS)
	$(MAKE) $(PARALLEL) BUILD=$(FDID)/none BASE_BUILD=$(BUILD) BPF_DEFS=-DDL_FILE_ID_NONE \
		$(FDID)/none/dltrace
	$(MAKE) $(PARALLEL) BUILD=$(FDID)/lru BASE_BUILD=$(BUILD) BPF_DEFS=-DDL_FILE_ID_NOCACHE \
		$(FDID)/lru/dltrace

# dltrace with the other ways of hooking the syscalls of meta_syscall_probes.bpf.c, for
# bench/hook_options.py: none (those syscalls not traced), one program pair per tracepoint
# (per-program), raw_syscalls (raw); each in its own directory.
HOOKS := $(BENCH)/hooks
.PHONY: bench-hooks
bench-hooks: $(HOOKS)/raw/syscall_nrs.h $(VARIANT_SHARED_OBJS)
	$(MAKE) $(PARALLEL) BUILD=$(HOOKS)/none BASE_BUILD=$(BUILD) BPF_DEFS=-DDL_HOOKS_NONE \
		$(HOOKS)/none/dltrace
	$(MAKE) $(PARALLEL) BUILD=$(HOOKS)/per-program BASE_BUILD=$(BUILD) \
		BPF_DEFS=-DDL_HOOKS_PER_PROGRAM $(HOOKS)/per-program/dltrace
	$(MAKE) $(PARALLEL) BUILD=$(HOOKS)/raw BASE_BUILD=$(BUILD) \
		BPF_DEFS="-DDL_HOOKS_RAW_SYSCALLS -I$(CURDIR)/$(HOOKS)/raw" $(HOOKS)/raw/dltrace

# The raw_syscalls variant dispatches on this machine's syscall numbers; a
# shared syscall newer than its headers gets a number no syscall has.
$(HOOKS)/raw/syscall_nrs.h: bpf/syscalls.def
	@mkdir -p $(dir $@)
	echo '#include <sys/syscall.h>' | $(CC) -E -dM -x c - | grep '^#define __NR_' > $@.tmp
	printf '#define DL_SYSCALL(k, n, tp, a, c, prog, ...) DL_TP_##prog tp\n#include "syscalls.def"\n' | \
		$(CC) -E -P -Ibpf -x c - | awk '{ for (i = 1; i < NF; i++) if ($$i == "DL_TP_SHARED") \
		printf "#ifndef __NR_%s\n#define __NR_%s (-%d)\n#endif\n", $$(i+1), $$(i+1), ++n }' \
		> $(HOOKS)/raw/syscall_nrs_missing.h
	mv $@.tmp $@

# What Python stacks cost per traced pread, on and off (bench/python_stacks.py).
.PHONY: bench-python-stacks
bench-python-stacks: deps-bench
	$(MAKE) $(PARALLEL) all workloads bench-build
	$(PYTHON) bench/python_stacks.py $(BENCH_ARGS)

# The syscall workloads against both floors, the same hooks as dltrace's and only the
# workload's own syscalls, with each one's BPF run time (bench/results/floors.json).
.PHONY: bench-floors
bench-floors: deps-bench
	$(MAKE) $(PARALLEL) all bench-build
	$(PYTHON) bench/run_bench.py --floors-only $(BENCH_ARGS)
	$(MAKE) docs-table

# The PyTorch example at make demo's size: the CPU seconds per epoch of the job and dltrace,
# untraced, under the floor and each output format (bench/results/job-cpu.json).
.PHONY: bench-job-cpu
bench-job-cpu: deps-bench
	$(MAKE) $(PARALLEL) all bench-build
	$(PYTHON) bench/run_bench.py --job-cpu-only $(BENCH_ARGS)
	$(MAKE) docs-table

# User space per event: micro-1t and the PyTorch example recorded once, then decoded and
# written by each consumer under callgrind, by stage (bench/results/decode-replay.json).
# BENCH_ARGS="--base CHECKOUT" puts a built checkout's decode replay beside.
.PHONY: bench-decode-replay
bench-decode-replay: deps-bench
	$(MAKE) $(PARALLEL) all bench-build
	$(PYTHON) bench/run_bench.py --decode-replay-only $(BENCH_ARGS)
	$(MAKE) docs-table

# How exactly a PyTorch profiler trace lands on dltrace's timeline (bench/clock_alignment.py).
.PHONY: bench-clock-alignment
bench-clock-alignment:
	$(MAKE) all $(BENCH)/clock_pairs
	$(PYTHON) bench/clock_alignment.py $(BENCH_ARGS)

# The PyTorch example's epoch time, untraced and under dltrace with Python stacks off and on.
.PHONY: bench-pytorch-stacks
bench-pytorch-stacks: deps-bench
	$(MAKE) $(PARALLEL) all
	$(PYTHON) bench/pytorch_stacks.py $(BENCH_ARGS)

# The decode replay: saved ring records through the decoder and one consumer
# (bench/decode_replay.c; "decode": `dltrace replay` is to replay a job's I/O).
$(BENCH)/decode_replay: bench/decode_replay.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BENCH)/%: bench/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -o $@ $< -lpthread

$(BENCH)/floor_loader: bench/floor_loader.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

# What a uprobe costs traced and untraced processes (bench/uprobe_cost.py).
$(BENCH)/uprobe_cost.bpf.o: bench/uprobe_cost.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH)/uprobe_cost.skel.h: $(BENCH)/uprobe_cost.bpf.o
	$(BPFTOOL) gen skeleton $< name uprobe_cost_bpf > $@

$(BENCH)/uprobe_cost: bench/uprobe_cost.c user/probe/elf_symbols.c $(BENCH)/uprobe_cost.skel.h
	$(CC) $(CFLAGS) -I$(BENCH) $(filter %.c,$^) -o $@ -lbpf -lelf -lz

# The floor's empty programs: one per program in dltrace's object.
$(BENCH)/floor_probe_list.h: $(BUILD)/dltrace.bpf.o bench/probe_list.py
	@mkdir -p $(dir $@)
	$(PYTHON) bench/probe_list.py $< > $@.tmp && mv $@.tmp $@

$(BENCH)/floor_probes.bpf.o: bench/floor_probes.bpf.c $(BENCH)/floor_probe_list.h
	$(CLANG) $(BPF_CFLAGS) -I$(BENCH) -c $< -o $@

# What CI builds but does not run, so that none of it can rot: the fuzz
# targets, what `make valgrind` runs (dltrace, the workloads; its script is
# checked for syntax) and the benchmark's programs.
check-build: deps-test
	$(MAKE) $(PARALLEL) all workloads $(FUZZ_TARGET) $(PFTRACE_FUZZ_TARGET) $(KINETO_FUZZ_TARGET) \
		$(CONFIG_FUZZ_TARGET) $(REPLAY_FUZZ_TARGET) bench-build
	sh -n tests/valgrind_trace.sh

# The test suite again inside a QEMU VM running Debian's stock kernel
# (tests/vm/, docs/testing.md "Another kernel: make vm-test").  VM_TESTS: the test
# modules whose results depend most on the kernel (VM_TESTS= runs all;
# test_btf_names is of the unit tier, and reads the kernel's own BTF).
# The root is read-only there: the layer tests' scratch directory in the
# checkout gets a writable one on the VM's disk.
VM_TESTS ?= test_layers test_syscall_capture test_targets test_btf_names test_path_cache test_counting
VM_TIMEOUT ?= 1200
vm-prepare: deps-vm
	tests/vm/prepare.sh

vm-test: vm-prepare
	$(MAKE) $(PARALLEL) all workloads $(BUILD)/vm/attach_check
	tests/vm/run.sh --timeout $(VM_TIMEOUT) --writable $(BUILD)/tests/scratch -- \
		sh tests/vm/suite.sh $(VM_TESTS)

# A probe of the attach methods the kernel under test offers.
$(BUILD)/vm/attach_check.bpf.o: tests/vm/attach_check.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/vm/attach_check.skel.h: $(BUILD)/vm/attach_check.bpf.o
	$(BPFTOOL) gen skeleton $< name attach_check_bpf > $@

$(BUILD)/vm/attach_check: tests/vm/attach_check.c $(BUILD)/vm/attach_check.skel.h
	$(CC) $(CFLAGS) -I$(BUILD)/vm $< -o $@ -lbpf -lelf -lz

$(BUILD):
	mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# All BPF objects are linked into one, sharing their maps, for one skeleton.
$(BUILD)/dltrace.bpf.o: $(BPF_OBJS)
	$(BPFTOOL) gen object $@ $^

$(BUILD)/dltrace.skel.h: $(BUILD)/dltrace.bpf.o
	$(BPFTOOL) gen skeleton $< name dltrace_bpf > $@

# The skeleton before the objects that include it (a clean build has no .d to say so);
# the others compile meanwhile.
$(SKEL_OBJS): $(BUILD)/dltrace.skel.h

$(BUILD)/obj/%.o: user/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# Dependencies point one way (docs/developer-guide.md "Folders"): before dltrace is
# linked, the includes of the sources and the calls between the objects are checked
# against the folder edges tools/layers.txt allows, and for cycles (tools/check-layers).
$(BUILD)/layers.ok: tools/check-layers tools/layers.txt $(USER_OBJS) $(BPF_OBJS) \
		$(wildcard tools/*.c bench/*.c)
	$(PYTHON) tools/check-layers --objects $(BUILD)/obj --bpf-objects $(BUILD)
	@touch $@

$(BUILD)/dltrace: $(USER_OBJS) | $(BUILD)/layers.ok
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The folders bottom up, each with the folders it uses.
.PHONY: layers
layers: $(USER_OBJS) $(BPF_OBJS)
	$(PYTHON) tools/check-layers --objects $(BUILD)/obj --bpf-objects $(BUILD) --graph

# make install PREFIX=/usr/local [DESTDIR=...]
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
SYSTEMDDIR ?= $(SYSCONFDIR)/systemd/system
install: all
	install -D -m 0755 $(BUILD)/dltrace $(DESTDIR)$(PREFIX)/sbin/dltrace
	install -D -m 0644 man/dltrace.8 $(DESTDIR)$(PREFIX)/share/man/man8/dltrace.8
	sed 's|/usr/local/sbin/dltrace|$(PREFIX)/sbin/dltrace|' packaging/dltrace.service | \
		install -D -m 0644 /dev/stdin $(DESTDIR)$(SYSTEMDDIR)/dltrace.service
	install -D -m 0644 packaging/dltrace.conf.example \
		$(DESTDIR)$(SYSCONFDIR)/dltrace/dltrace.conf.example
	@test -e $(DESTDIR)$(SYSCONFDIR)/dltrace/dltrace.conf || \
		install -m 0644 packaging/dltrace.conf.example $(DESTDIR)$(SYSCONFDIR)/dltrace/dltrace.conf
	install -D -m 0755 examples/slurm/prolog.sh $(DESTDIR)$(PREFIX)/share/dltrace/slurm/prolog.sh
	install -D -m 0755 examples/slurm/epilog.sh $(DESTDIR)$(PREFIX)/share/dltrace/slurm/epilog.sh
	install -D -m 0755 $(BUILD)/libdltrace_markers.so $(DESTDIR)$(PREFIX)/lib/$(MARKERS_SONAME)
	ln -sf $(MARKERS_SONAME) $(DESTDIR)$(PREFIX)/lib/libdltrace_markers.so
	install -D -m 0644 markers/dltrace_markers.h $(DESTDIR)$(PREFIX)/include/dltrace_markers.h
	install -D -m 0644 python/dltrace_markers.py $(DESTDIR)$(PREFIX)/lib/dltrace/python/dltrace_markers.py

# The library layers' records as saved by --save-records, checked (tools/span_check.c).
SPAN_CHECK_OBJS := $(addprefix $(BUILD)/obj/,decode/span_records.o io/record_file.o \
	event/syscall_table.o lib/json_string.o)
$(BUILD)/span_check: tools/span_check.c $(SPAN_CHECK_OBJS)
	$(CC) $(CFLAGS) $^ -o $@

# A trace read into events and written again: the reader's round trip (tools/trace_rewrite.c).
$(BUILD)/trace_rewrite: tools/trace_rewrite.c $(LIB_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# Regenerate the bundled vmlinux.h from the running kernel's BTF.
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h

clean:
	rm -rf $(BUILD)

# What each object includes (DEPFLAGS); a variant's build (BASE_BUILD) only its own.
-include $(patsubst %.o,%.d,$(filter $(BUILD)/%,$(USER_OBJS)) $(BPF_OBJS))
