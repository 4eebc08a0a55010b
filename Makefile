# The two commands of the README, `make run` and `make test`, and the longer checks beside them:
# `make test-sanitize` (the suite under ASan + UBSan) and `make fuzz` (long fuzzing runs).
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# The one sanitized tree (docs/decisions/0030): every target built with ASan + UBSan at -O1, UBSan
# findings fatal (CMakeLists.txt); the benchmarks are left out of it (tests/CMakeLists.txt).
# SANITIZE_CTEST_ARGS narrows the run, e.g. SANITIZE_CTEST_ARGS="-L unit".
SANITIZE_BUILD ?= $(BUILD)/sanitize
SANITIZE_CTEST_ARGS ?=
# abort_on_error: a report kills the process with SIGABRT, which every test notices (a daemon
# that dies fails its test; tests/stress also checks the daemon's log for a report).
# detect_leaks=0: the daemon dlclose()s plugins while it runs, so at exit LeakSanitizer would
# report what an unloaded plugin still owned with frames it can no longer symbolize, and the suite
# could not tell those from real leaks. Leaks are not the memory errors this run is for; the
# libFuzzer runs of `make fuzz` do check the parsers for leaks.
SANITIZE_ENV = ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=0:check_initialization_order=1:strict_init_order=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# make fuzz: every fuzz target (or those in FUZZ_TARGETS) for FUZZ_SECONDS each, with clang's
# libFuzzer in FUZZ_BUILD when clang can link it, else with the plain driver in the sanitized tree
# (scripts/fuzz.sh, tests/fuzz/README.md).
FUZZ_SECONDS ?= 600
FUZZ_BUILD ?= $(BUILD)/fuzz
FUZZ_TARGETS ?=

.PHONY: all deps configure build run test test-sanitize fuzz bench bench-qmd clean

all: build

deps:
	@bash scripts/install-deps.sh
	@bash scripts/install-node-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/coffer-daemon

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

$(SANITIZE_BUILD)/build.ninja:
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" \
	  -DCOFFER_SANITIZE=address,undefined

test-sanitize: deps $(SANITIZE_BUILD)/build.ninja
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	$(SANITIZE_ENV) ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS) $(SANITIZE_CTEST_ARGS)

fuzz: deps
	@if bash scripts/fuzz.sh has-libfuzzer; then \
	  bash scripts/fuzz.sh libfuzzer $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS); \
	else \
	  echo "fuzz: clang's libFuzzer is not available (apt-get install clang); using the plain driver"; \
	  $(MAKE) --no-print-directory $(SANITIZE_BUILD)/build.ninja && \
	  bash scripts/fuzz.sh driver $(SANITIZE_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS); \
	fi

bench: build
	$(BUILD)/bin/coffer-bench-foundation
	$(BUILD)/bin/coffer-bench-skill
	$(BUILD)/bin/coffer-bench-invocations
	$(BUILD)/bin/coffer-bench-toolsearch
	$(BUILD)/bin/coffer-bench-gateway

# Keyword retrieval beside qmd on the same files and queries (tests/bench/qmd/README.md); installs
# qmd and the Node 22 it needs into tests/bench/qmd/node_modules.
bench-qmd: build
	bash tests/bench/qmd/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
