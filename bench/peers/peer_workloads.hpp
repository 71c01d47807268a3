// bench/peers/peer_workloads.hpp — the data both halves of the peer
// comparison work on (zerolab_side.cpp and gbench_side.cpp include it): a
// 4 KiB buffer to memset, and 1000 ints shuffled the same way on both sides
// (same seed, same libstdc++) that each sort copies into a work buffer.
// Globals, so neither side pays for setup inside the timed loop.
//
// Example:
//   zerolab::peers::fill_shuffled();  // once, before the timed loop
//   std::memcpy(zerolab::peers::g_work, zerolab::peers::g_shuffled, sizeof zerolab::peers::g_work);
#ifndef ZEROLAB_BENCH_PEERS_PEER_WORKLOADS_HPP_
#define ZEROLAB_BENCH_PEERS_PEER_WORKLOADS_HPP_

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <random>

namespace zerolab::peers {

inline constexpr std::size_t kMemsetBytes = 4096;
inline constexpr std::size_t kSortInts = 1000;

alignas(64) inline unsigned char g_memset_buffer[kMemsetBytes];
alignas(64) inline int g_shuffled[kSortInts];
alignas(64) inline int g_work[kSortInts];

// The same permutation of 0..999 on both sides.
inline void fill_shuffled() {
  std::iota(g_shuffled, g_shuffled + kSortInts, 0);
  std::mt19937 rng(20240601);
  std::shuffle(g_shuffled, g_shuffled + kSortInts, rng);
}

}  // namespace zerolab::peers

#endif  // ZEROLAB_BENCH_PEERS_PEER_WORKLOADS_HPP_
