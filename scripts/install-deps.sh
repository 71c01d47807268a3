#!/usr/bin/env bash
# Installs the Debian packages zerolab's build and tests need, only those
# that are missing. Prints what it installs; prints nothing when all are there.
#
# Example:
#   scripts/install-deps.sh          # as root, or with sudo available
#
# The packages and why:
#   g++ make cmake ninja-build pkg-config   the build and the install test
#   libgtest-dev libgmock-dev                the unit tests
#   libbenchmark-dev                         Google Benchmark, the peer the
#                                            harness is checked against
#   clang libclang-rt-14-dev                 the libFuzzer targets (fuzz/)
#   clang-format clang-tidy                  make format, make format-check
#                                            (CI's first step) and make lint
#   google-perftools                         google-pprof, which the profile
#                                            tests read -profileformat legacy
#                                            profiles with
#   libmimalloc-dev                          mimalloc, the optional peer of
#                                            zerolab::Arena in the lab and
#                                            mem_bench (dlopen'ed, never
#                                            linked: cmake/MimallocPeer.cmake)
#   libre2-dev                               RE2: -bench and -filter regexps
#                                            (zerolab::stat links it)
#   libdw-dev                                elfutils' libdw: zerolab waste
#                                            reads file, line and inlined
#                                            frames from DWARF in-process
#   nlohmann-json3-dev                       the Google Benchmark JSON reader,
#                                            zerolab waste --format json
#   binutils                                 addr2line: the harness profiles'
#                                            function, file and line (and the
#                                            tests' reference for libdw's)
#   libc6-dbg                                glibc's debug symbols: the profiles
#                                            name libc's internal functions
#                                            (__memset_avx2_...) and lines
#   chromium chromium-driver python3         the browser tests (label
#                                            "browser"): headless Chromium
#                                            loads the HTML reports,
#                                            tests/browser/check_html_page.py
#                                            drives it through chromedriver
#   libsqlite3-dev libpq-dev                 the results store (src/store/):
#                                            SQLite and PostgreSQL's client
#   postgresql                               a real PostgreSQL server for the
#                                            store's tests (scripts/pg-test-server.sh)
#   golang-go                                Go 1.19: the seeds' own Go code
#                                            (peers/go/*), built and run by
#                                            zerolab lab beside the C++ port;
#                                            go tool pprof reads the profiles
#                                            in the tests
#   valgrind                                 callgrind and valgrind/callgrind.h:
#                                            the benchmarks' counting mode
#                                            (-benchmeasure=instructions)
#   strace                                   the lab's seed 004 facts: the Go
#                                            runtime's mmap and madvise calls
#                                            and glibc's mmap for a large
#                                            malloc, as the seed watched them
set -euo pipefail

packages=(g++ make cmake ninja-build pkg-config libgtest-dev libgmock-dev
          libbenchmark-dev clang libclang-rt-14-dev google-perftools
          libmimalloc-dev libre2-dev libdw-dev chromium chromium-driver python3
          libsqlite3-dev libpq-dev postgresql nlohmann-json3-dev binutils
          libc6-dbg golang-go valgrind strace clang-format clang-tidy)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing missing Debian packages: ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
