// Example benchmarks for the zerolab harness: one per harness feature, and the
// merge benchmark of seed 000 (zeroed vs uninitialized buffer).
//
// Example:
//   ./example_bench -bench Merge -count 10 > merge.txt
#include <zerolab/bench.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

// The README example: a string concatenation allocates once per iteration.
ZEROLAB_BENCHMARK(StringConcat) {
  std::string a(100, 'x');
  for (auto _ : b.loop()) {
    std::string s = a + a;
    zerolab::do_not_optimize(s);
  }
}

// Seed 000: merge three slices (10000 + 20000 + 50000 bytes) into a buffer
// that is zeroed first (Go's make) or left uninitialized.
namespace {
const std::vector<char> kX(10000), kY(20000), kZ(50000);
constexpr std::size_t kTotal = 10000 + 20000 + 50000;

template <bool kZero>
char* merge_slices() {
  char* r = static_cast<char*>(std::malloc(kTotal));
  if (kZero) std::memset(r, 0, kTotal);
  std::size_t at = 0;
  for (const auto* s : {&kX, &kY, &kZ}) {
    std::memcpy(r + at, s->data(), s->size());
    at += s->size();
  }
  return r;
}
}  // namespace

ZEROLAB_BENCHMARK(MergeSlicesZero) {
  for (auto _ : b.loop()) {
    char* r = merge_slices<true>();
    zerolab::do_not_optimize(r);
    std::free(r);
  }
}

ZEROLAB_BENCHMARK(MergeSlicesNoZero) {
  for (auto _ : b.loop()) {
    char* r = merge_slices<false>();
    zerolab::do_not_optimize(r);
    std::free(r);
  }
}

// Sub-benchmarks and set_bytes: copying at several sizes, reported in MB/s.
ZEROLAB_BENCHMARK(Memcpy) {
  for (const std::size_t size : {std::size_t{64}, std::size_t{4096}, std::size_t{1} << 20}) {
    b.run("size=" + std::to_string(size), [size](zerolab::B& sb) {
      std::vector<char> src(size, 'a'), dst(size);
      sb.set_bytes(static_cast<std::int64_t>(size));
      for (auto _ : sb.loop()) {
        std::memcpy(dst.data(), src.data(), size);
        zerolab::clobber_memory();
      }
    });
  }
}

// The classic loop form, with a custom metric.
ZEROLAB_BENCHMARK(SortInts) {
  std::vector<int> data(1000);
  std::mt19937 rng(1);
  std::int64_t compares = 0;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    for (auto& v : data) v = static_cast<int>(rng());
    b.start_timer();
    std::sort(data.begin(), data.end(), [&](int x, int y) {
      ++compares;
      return x < y;
    });
  }
  b.report_metric(static_cast<double>(compares) / static_cast<double>(b.n()), "compares/op");
}

// run_parallel: every thread allocates and frees a small block.
ZEROLAB_BENCHMARK(ParallelNewDelete) {
  b.run_parallel([](zerolab::PB& pb) {
    while (pb.next()) {
      auto p = std::make_unique<char[]>(64);
      zerolab::do_not_optimize(p);
    }
  });
}
