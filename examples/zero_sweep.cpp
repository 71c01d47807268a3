// zero_sweep: zeroing throughput by method and size, to see where
// zerolab::zero_fill's thresholds should sit on this machine.
//
// Example:
//   ./build/release/examples/zero_sweep -bench 'Zero/method=(memset|zero_fill)/size=4KiB' -count 6
//   ZEROLAB_ZERO_ISA=avx512 ./build/release/examples/zero_sweep -bench zero_fill
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "zerolab/bench.hpp"
#include "zerolab/zero.hpp"

namespace {

constexpr std::size_t kMax = std::size_t{1} << 30;

unsigned char* buffer() {
  static unsigned char* const p = [] {
    void* m = mmap(nullptr, kMax, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return static_cast<unsigned char*>(nullptr);
    std::memset(m, 1, kMax);
    return static_cast<unsigned char*>(m);
  }();
  return p;
}

std::string size_name(std::size_t n) {
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + "MiB";
  if (n >= (std::size_t{1} << 10)) return std::to_string(n >> 10) + "KiB";
  return std::to_string(n) + "B";
}

using Method = void (*)(void*, std::size_t) noexcept;

}  // namespace

ZEROLAB_BENCHMARK(Zero) {
  // Non-temporal stores first at each size: whatever runs right after them
  // is slow for a while (up to 2x at 4 KiB-8 MiB here, even after the
  // untimed call below), so they must not sit right before zero_fill. The
  // method after them is glibc's memset, which from 2 KiB runs the same
  // rep stosb as the "rep-stosb" row, so the best other method per size
  // is still measured fairly.
  const std::pair<const char*, Method> methods[] = {
      {"nt", &zerolab::zero_methods::nt_stores},
      {"memset", &zerolab::zero_methods::glibc_memset},
      {"rep-stosb", &zerolab::zero_methods::rep_stosb},
      {"vector", &zerolab::zero_methods::vector_stores},
      {"zero_fill", &zerolab::zero_fill},
  };
  std::vector<std::size_t> sizes;
  for (std::size_t n = 16; n <= kMax; n *= 2) {
    sizes.push_back(n);
    if (n == (std::size_t{16} << 20)) {
      sizes.push_back(std::size_t{24} << 20);
      sizes.push_back(std::size_t{31} << 20);
      sizes.push_back(std::size_t{33} << 20);
      sizes.push_back(std::size_t{48} << 20);
    }
  }
  for (const std::size_t n : sizes) {
    for (const auto& [name, fn] : methods) {
      b.run(std::string("method=") + name + "/size=" + size_name(n), [fn = fn, n](zerolab::B& sb) {
        unsigned char* p = buffer();
        if (p == nullptr) sb.fatal("mmap failed");
        sb.set_bytes(static_cast<std::int64_t>(n));
        // One untimed call, the same for every method: zero_fill's first
        // call in a process calibrates (zero.hpp), which is not its
        // steady-state speed.
        fn(p, n);
        for (auto _ : sb.loop()) {
          fn(p, n);
          zerolab::clobber_memory();
        }
      });
    }
  }
  // What zero_fill chose in this process, and why (to stderr, so the
  // benchmark lines stay what benchstat and zerolab compare read).
  std::fprintf(stderr, "zero_sweep: cpu-config %s\n", zerolab::zero_config().to_string().c_str());
}
