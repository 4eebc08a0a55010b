# The two commands of the README: `make run` and `make test`.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps configure build run test bench clean

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

bench: build
	$(BUILD)/bin/coffer-bench-foundation
	$(BUILD)/bin/coffer-bench-skill
	$(BUILD)/bin/coffer-bench-invocations
	$(BUILD)/bin/coffer-bench-toolsearch
	$(BUILD)/bin/coffer-bench-gateway

clean:
	rm -rf $(BUILD)
