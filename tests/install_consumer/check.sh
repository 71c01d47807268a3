#!/usr/bin/env bash
# Installs zerolab from BUILD_DIR into a fresh prefix, builds the consumer
# project with find_package(zerolab) and with pkg-config, runs both, and
# checks their output line.
# Usage: check.sh SOURCE_DIR BUILD_DIR WORK_DIR CXX CXX_FLAGS
set -euo pipefail
src=$1 build=$2 work=$3 cxx=$4 flags=${5:-}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/install_consumer" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
cmake --build "$work/build" >/dev/null
check_output() {
  local out=$1
  grep -q '^goos: linux$' <<<"$out" || { echo "no goos line: $out"; exit 1; }
  grep -Eq '^BenchmarkConsumer(-[0-9]+)?[[:space:]]+10[[:space:]]+.* ns/op.*[[:space:]]8 B/op[[:space:]]+1 allocs/op$' <<<"$out" \
    || { echo "unexpected result line: $out"; exit 1; }
  tail -n 1 <<<"$out" | grep -qx PASS || { echo "no PASS: $out"; exit 1; }
}
check_output "$("$work/build/consumer_bench" -benchtime 10x)"
# The same through pkg-config.
PKG_CONFIG_PATH="$(dirname "$(find "$work/prefix" -name zerolab.pc)")" pkg-config --cflags --libs zerolab >/dev/null
# shellcheck disable=SC2046
"$cxx" $flags "$src/tests/install_consumer/consumer_bench.cpp" -o "$work/pc_bench" \
  $(PKG_CONFIG_PATH="$(dirname "$(find "$work/prefix" -name zerolab.pc)")" pkg-config --cflags --libs zerolab)
check_output "$("$work/pc_bench" -benchtime 10x)"
# zerolab::gbench: the Google Benchmark binary reports its allocation (one
# 8-byte block per iteration; exactly so unless the hooks cannot see callers).
if [[ -x "$work/build/consumer_gbench" ]]; then
  json=$("$work/build/consumer_gbench" --benchmark_min_time=0.01 --benchmark_format=json 2>/dev/null)
  if grep -q '"zerolab_alloc_counting": "exact"' <<<"$json"; then
    grep -q '"allocs_per_iter": 1.0000000000000000e+00' <<<"$json" \
      || { echo "consumer_gbench: not 1 allocs/iter: $json"; exit 1; }
  else
    grep -q '"allocs_per_iter"' <<<"$json" || { echo "consumer_gbench: no allocs_per_iter: $json"; exit 1; }
  fi
  "$work/build/consumer_gbench" --benchmark_min_time=0.01 --benchmark_color=false 2>/dev/null \
    | grep -Eq '^BM_ConsumerNew .* allocs/op ' || { echo "consumer_gbench: no allocs/op column"; exit 1; }
fi
echo "install consumer: ok"
