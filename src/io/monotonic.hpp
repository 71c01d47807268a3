// src/io/monotonic.hpp — the io target's clock: CLOCK_MONOTONIC in
// nanoseconds (copy timeouts).
//
// Example:
//   const std::int64_t t0 = io::monotonic_ns();
//   ... copy ...
//   const std::int64_t took = io::monotonic_ns() - t0;
#ifndef ZEROLAB_SRC_IO_MONOTONIC_HPP_
#define ZEROLAB_SRC_IO_MONOTONIC_HPP_

#include <time.h>

#include <cstdint>

namespace zerolab::io {

inline std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_MONOTONIC_HPP_
