# zerolab's front door. On a fresh Debian machine of this kind:
#   make test   installs missing packages, builds release and ASan+UBSan, runs
#               every test on both, the concurrent tests under TSan, a
#               short run of every fuzz target, and the io test binaries once
#               more, each as one process
#   make lab    builds release and runs the main job (zerolab lab; LAB_FLAGS
#               passes flags, e.g. make lab LAB_FLAGS=--quick)
# Everything else is CMake presets (CMakePresets.json).
SHELL := /bin/bash
JOBS ?= $(shell nproc)

.PHONY: all deps release asan tsan fuzz test test-fast test-release test-asan test-tsan test-fuzz test-whole lab clean format format-check lint

all: release

deps:
	@scripts/install-deps.sh

# One build per preset: make release, make asan, make tsan, make fuzz.
release asan tsan fuzz: deps
	cmake --preset $@ >/dev/null
	cmake --build --preset $@ -j $(JOBS)

# The tests check zerolab's own behaviour: every ZEROLAB_COPY_* and
# ZEROLAB_ZERO_* variable in the caller's environment (the overrides of copy
# paths, the profile switch and zero-fill methods, whatever their names) is unset for
# them; the tests that check an override set it themselves. XDG_CACHE_HOME
# points at a cache of the build's own, so a machine profile written by
# `zerolab calibrate` in the user's cache never decides a test.
TEST_ENV := env $(foreach v,$(filter ZEROLAB_COPY_% ZEROLAB_ZERO_%,$(.VARIABLES)),-u $(v)) \
  XDG_CACHE_HOME=$(CURDIR)/build/test-cache

# make test-release runs ctest --preset release after make release (asan, tsan alike).
test-release test-asan test-tsan: test-%: %
	$(TEST_ENV) ctest --preset $*

# A smoke run of every fuzz target over its committed corpus plus 20 s of
# new inputs from a fixed seed (FUZZ_SEED), so that a CI failure reproduces
# with the same command and a longer local run of the same seed covers what
# CI will try; long campaigns with random seeds are run by hand
# (fuzz/CMakeLists.txt), and what they find joins fuzz/corpus/. The
# regexp target takes inputs up to 20000 bytes (deep nesting, long repeats),
# the others libFuzzer's default (their largest corpus file, at least 4096).
# An input may take 30 s: a Unicode class repeated 1000 times in a regexp
# (go_regex, the filter and html targets) compiles under RE2's larger budget,
# up to 3.5 s with ASan on an idle machine.
FUZZ_SECONDS ?= 20
FUZZ_SEED ?= 1
test-fuzz: fuzz
	targets=$$(find build/fuzz/fuzz -maxdepth 1 -type f -perm -u+x -name '*_fuzz' -printf '%f\n' | sort) && \
	test -n "$$targets" || { echo "test-fuzz: no *_fuzz executables in build/fuzz/fuzz" >&2; exit 1; }; \
	for t in $$targets; do \
	  max_len=$$(case $$t in go_regex_fuzz|stat_query_fuzz) echo -max_len=20000;; esac) && \
	  mkdir -p build/fuzz/work/$$t && \
	  ./build/fuzz/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -timeout=30 -rss_limit_mb=2048 $$max_len \
	    build/fuzz/work/$$t fuzz/corpus/$$t 2>build/fuzz/work/$$t.log || \
	    { tail -n 40 build/fuzz/work/$$t.log; exit 1; }; \
	done

# The io tests again with each binary as one process: ctest runs every test
# in a process of its own, which hides what one test leaves behind for the
# next (a forked child sharing its parent's cached pipes went unseen so).
test-whole: release
	mkdir -p build/release/whole && \
	for t in build/release/tests/copy_*_test; do \
	  log=build/release/whole/$$(basename $$t).log; \
	  $(TEST_ENV) $$t >$$log 2>&1 || { tail -n 40 $$log; echo "test-whole: $$t failed as one process" >&2; exit 1; }; \
	done

# Style kept by machines: make format rewrites every C++ file the repository
# tracks with clang-format (.clang-format); make format-check fails, naming
# the files, when one differs (CI's first step); make lint runs clang-tidy
# (.clang-tidy names its checks and every exception with its reason) over
# the release build's compile_commands.json.
CXX_SOURCES = git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cc'
format: deps
	$(CXX_SOURCES) | xargs -0 clang-format -i
format-check: deps
	@command -v clang-format >/dev/null || { echo "format-check: clang-format is not installed" >&2; exit 1; }
	@bad=$$($(CXX_SOURCES) | xargs -0 clang-format --dry-run 2>&1 | grep -o '^[^:]*:[0-9]*:[0-9]*: warning' | cut -d: -f1 | sort -u); \
	if [ -n "$$bad" ]; then echo "format-check: these files differ from .clang-format (run make format):" >&2; echo "$$bad" >&2; exit 1; fi
lint: release
	git ls-files -z -- 'src/*.cpp' 'tools/*.cpp' 'lab/*.cpp' | xargs -0 -P $(JOBS) -n 8 clang-tidy -p build/release --quiet

# The fast lane: style, then the release build with warnings as errors and
# its tests; CI runs it first, so a format or warning error fails in minutes.
test-fast: format-check test-release

test: test-fast test-asan test-tsan test-fuzz test-whole

# The main job: every experiment of the lab, results under zerolab-results/.
LAB_FLAGS ?=
# Builds only the zerolab CLI and what it runs (the lab's probes, the waste
# preload): no tests, examples or peers' benchmarks before the first experiment.
lab: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target zerolab
	./build/release/tools/zerolab/zerolab lab $(LAB_FLAGS)

clean:
	rm -rf build
