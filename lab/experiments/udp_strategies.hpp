// lab/experiments/udp_strategies.hpp — the five receive-buffer strategies of
// the `udp-buffers` experiment (seed 001, "cableshow: SNMP buffers"), shared
// by its real mode (loopback UDP sockets, udp_buffers.cpp) and its simulated
// mode (no sockets: a packet "arrives" as a memcpy into the buffer the
// strategy provides), plus the simulated packet source itself.
//
// A strategy is made for `conns` connections; `read(src, conn)` takes one
// packet for connection `conn` from `src(conn, buf, cap)` (which returns
// the bytes written, or <= 0 for none — a recv(2) or a memcpy) into the
// buffer the strategy provides, handles it, and returns its size (<= 0:
// there was none). `held_bytes()` is the buffer bytes the strategy holds
// between reads, counted by the strategy itself (exact, allocator overhead
// not included):
//   FixedLargeBuffer       conns x 65535 (one 0xFFFF buffer per connection);
//   AlwaysAllocate         0 (a new 0xFFFF buffer per read, then an
//                          exact-size copy);
//   SimplePool / Pool      65535 x the buffers the pool has made (one, with
//                          one reader thread), then an exact-size copy;
//   SharedLargeFixedSmall  a pooled 0xFFFF buffer + conns x 1024 (the
//                          packet is copied into the connection's 1 KiB
//                          buffer, or an exact-size copy when it does not fit).
// Buffers are not zeroed (C++ does not have to), so a buffer's pages are
// touched only where packets land: allocator "held" (reserved) bytes and
// resident (touched) bytes differ.
//
// Packet sizes follow the seed: normal, mean 400 B, sd 200, clamped to
// [255, 65535], from a fixed-seed RNG (4096 sizes, used in turn).
//
// Thread-safety: a strategy object is used by one thread (the reader).
//
// Example:
//   udp::FixedLargeBuffer s(100);
//   udp::SimulatedPackets packets(100);
//   udp::simulate(s, packets, 1000);  // s.held_bytes() == 100 * 65535
#ifndef ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_

#include <sys/types.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "zerolab/bench.hpp"
#include "zerolab/pool.hpp"

namespace zerolab::lab::udp {

inline constexpr std::size_t kBig = 0xFFFF;
inline constexpr std::size_t kSmall = 0x400;

struct BigBuf {
  char data[kBig];
};
using SmallBuf = std::array<char, kSmall>;

// A 0xFFFF buffer, not zeroed: its pages are touched only when written.
inline std::unique_ptr<BigBuf> new_big() { return std::unique_ptr<BigBuf>(new BigBuf); }

inline const std::vector<std::size_t>& packet_sizes() {
  static const std::vector<std::size_t> v = [] {
    std::mt19937_64 rng(0x5A4D50);
    std::normal_distribution<double> d(400, 200);
    std::vector<std::size_t> out(4096);
    for (auto& s : out) s = static_cast<std::size_t>(std::clamp(d(rng), 255.0, 65535.0));
    return out;
  }();
  return v;
}

// The "handling" of a packet: look at it, so the copy is not dead.
inline void handle(const char* p, std::size_t n) {
  char first = p[0];
  char last = p[n - 1];
  do_not_optimize(first);
  do_not_optimize(last);
}

inline std::unique_ptr<char[]> clone(const char* p, std::size_t n) {
  std::unique_ptr<char[]> out(new char[n]);
  std::memcpy(out.get(), p, n);
  return out;
}

class FixedLargeBuffer {
 public:
  explicit FixedLargeBuffer(int conns) {
    bufs_.reserve(static_cast<std::size_t>(conns));
    for (int i = 0; i < conns; ++i) bufs_.push_back(new_big());
  }
  template <typename Source>
  ssize_t read(Source& src, int conn) {
    char* buf = bufs_[static_cast<std::size_t>(conn)]->data;
    const ssize_t n = src(conn, buf, kBig);
    if (n > 0) handle(buf, static_cast<std::size_t>(n));
    return n;
  }
  std::size_t held_bytes() const { return bufs_.size() * kBig; }

 private:
  std::vector<std::unique_ptr<BigBuf>> bufs_;
};

class AlwaysAllocate {
 public:
  explicit AlwaysAllocate(int /*conns*/) {}
  template <typename Source>
  ssize_t read(Source& src, int conn) {
    std::unique_ptr<char[]> big(new char[kBig]);
    const ssize_t n = src(conn, big.get(), kBig);
    if (n <= 0) return n;
    const auto out = clone(big.get(), static_cast<std::size_t>(n));
    big.reset();
    handle(out.get(), static_cast<std::size_t>(n));
    return n;
  }
  std::size_t held_bytes() const { return 0; }
};

// A pooled 0xFFFF buffer catches the packet; an exact-size copy leaves with
// it. PoolT is zerolab::SimplePool<BigBuf> or zerolab::Pool<BigBuf>.
template <typename PoolT>
class PooledClone {
 public:
  explicit PooledClone(int /*conns*/)
      : made_(std::make_shared<std::uint64_t>(0)), pool_([made = made_] {
          ++*made;
          return new_big();
        }) {}
  template <typename Source>
  ssize_t read(Source& src, int conn) {
    BigBuf* big = pool_.get();
    const ssize_t n = src(conn, big->data, kBig);
    if (n <= 0) {
      pool_.put(big);
      return n;
    }
    const auto out = clone(big->data, static_cast<std::size_t>(n));
    pool_.put(big);
    handle(out.get(), static_cast<std::size_t>(n));
    return n;
  }
  // Neither pool frees a buffer here (one thread, no rotation, SimplePool
  // unbounded), so every buffer made is held.
  std::size_t held_bytes() const { return static_cast<std::size_t>(*made_) * kBig; }

 private:
  std::shared_ptr<std::uint64_t> made_;  // buffers the factory made
  PoolT pool_;
};

using SimplePoolClone = PooledClone<SimplePool<BigBuf>>;
using PoolClone = PooledClone<Pool<BigBuf>>;

class SharedLargeFixedSmall {
 public:
  explicit SharedLargeFixedSmall(int conns)
      : pool_(std::make_unique<Pool<BigBuf>>([] { return new_big(); })),
        small_(static_cast<std::size_t>(conns)) {}
  template <typename Source>
  ssize_t read(Source& src, int conn) {
    BigBuf* big = pool_->get();
    const ssize_t got = src(conn, big->data, kBig);
    if (got <= 0) {
      pool_->put(big);
      return got;
    }
    const auto n = static_cast<std::size_t>(got);
    if (n < kSmall) {
      char* s = small_[static_cast<std::size_t>(conn)].data();
      std::memcpy(s, big->data, n);
      pool_->put(big);
      handle(s, n);
    } else {
      const auto out = clone(big->data, n);
      pool_->put(big);
      handle(out.get(), n);
    }
    return got;
  }
  std::size_t held_bytes() const {
    const PoolStats st = pool_->stats();
    return static_cast<std::size_t>(st.created - st.destroyed) * kBig + small_.size() * kSmall;
  }

 private:
  std::unique_ptr<Pool<BigBuf>> pool_;
  std::vector<SmallBuf> small_;
};

// The simulated mode's packet source: connections in turn (as the real
// mode's sender sends), sizes from packet_sizes() in turn; a packet arrives
// as a memcpy of the payload into the strategy's buffer. No sockets.
class SimulatedPackets {
 public:
  explicit SimulatedPackets(int conns) : conns_(conns), payload_(kBig, 'x') {}
  // The connection the next packet is for.
  int next_conn() {
    const int c = next_conn_;
    next_conn_ = next_conn_ + 1 == conns_ ? 0 : next_conn_ + 1;
    return c;
  }
  ssize_t operator()(int /*conn*/, char* buf, std::size_t cap) {
    const auto& sizes = packet_sizes();
    const std::size_t n = std::min(sizes[next_size_], cap);
    next_size_ = next_size_ + 1 == sizes.size() ? 0 : next_size_ + 1;
    std::memcpy(buf, payload_.data(), n);
    return static_cast<ssize_t>(n);
  }

 private:
  int conns_;
  int next_conn_ = 0;
  std::size_t next_size_ = 0;
  std::string payload_;
};

// Delivers `packets` simulated packets through strategy `s`; returns the
// bytes handled.
template <typename Strategy>
std::uint64_t simulate(Strategy& s, SimulatedPackets& src, std::int64_t packets) {
  std::uint64_t bytes = 0;
  for (std::int64_t i = 0; i < packets; ++i) {
    const ssize_t n = s.read(src, src.next_conn());
    if (n > 0) bytes += static_cast<std::uint64_t>(n);
  }
  return bytes;
}

}  // namespace zerolab::lab::udp

#endif  // ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
