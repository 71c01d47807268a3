// A benchmark built outside the zerolab tree against the installed package.
#include <zerolab/bench.hpp>

#include <memory>

ZEROLAB_BENCHMARK(Consumer) {
  for (auto _ : b.loop()) {
    auto p = std::make_unique<long>(7);
    zerolab::do_not_optimize(p);
  }
}
