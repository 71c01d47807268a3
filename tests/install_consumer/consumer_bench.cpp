// A benchmark built outside the zerolab tree against the installed package:
// the harness (zerolab::bench_main) and the mem part (zerolab::mem).
#include <zerolab/bench.hpp>
#include <zerolab/zero.hpp>

#include <cstdlib>
#include <memory>

ZEROLAB_BENCHMARK(Consumer) {
  for (auto _ : b.loop()) {
    auto p = std::make_unique<long>(7);
    zerolab::zero_fill(p.get(), sizeof(long));
    if (*p != 0) std::abort();
    zerolab::do_not_optimize(p);
  }
}
