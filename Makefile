# zerolab's front door. On a fresh Debian machine of this kind:
#   make test   installs missing packages, builds release and ASan+UBSan, runs
#               every test on both, and the concurrent tests under TSan
#   make lab    builds release and runs the main job
# Everything else is CMake presets (CMakePresets.json).
SHELL := /bin/bash
JOBS ?= $(shell nproc)

.PHONY: all deps release asan tsan test test-release test-asan test-tsan lab clean

all: release

deps:
	@scripts/install-deps.sh

release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

tsan: deps
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)

test-release: release
	ctest --preset release

test-asan: asan
	ctest --preset asan

test-tsan: tsan
	ctest --preset tsan

test: test-release test-asan test-tsan

# Until `zerolab lab` exists, the main job runs the harness's example
# benchmarks.
lab: release
	./build/release/examples/example_bench

clean:
	rm -rf build
