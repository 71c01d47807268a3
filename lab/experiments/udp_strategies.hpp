// lab/experiments/udp_strategies.hpp — the five receive-buffer strategies of
// the `udp-buffers` experiment (seed 001, "cableshow: SNMP buffers") and the
// seed's read regime.
//
// The seed runs conns x GOMAXPROCS goroutines (b.SetParallelism(conns)),
// each calling a strategy whose fakeUDPRead sleeps 1 ms while it holds the
// 64 KiB buffer the strategy gave it. Its figures are throughput-bound
// (125 ns/op at 1000 connections on 24 threads, far above the sleep's
// floor of 42 ns), so what they measure is each strategy's work per read.
// Here one thread completes the reads of conns x procs readers in turn
// (Throughput), each at once: the strategy gives a buffer, the packet is
// copied into it, the strategy handles it and keeps or returns the buffer.
// A buffer is held only while its read is in flight; what a strategy holds
// between reads is its steady-state memory.
//
// A strategy is made for `conns` connections and `readers` readers:
//   Hold take(reader)                the buffer a read holds while in flight;
//   void finish(hold, reader, n)     the packet (n bytes, already in the
//                                    buffer) is handled; the buffer goes back;
//   std::size_t held_bytes()         buffer bytes held right now (exact,
//                                    allocator overhead not included).
//   FixedLargeBuffer     one 0xFFFF buffer per connection, held for good;
//                        reader r uses buffer r % conns (two readers share
//                        one, as the seed's goroutines g and g + conns do);
//   AlwaysAllocate       a new 0xFFFF buffer per read, then an exact-size copy;
//   SimplePool           a buffer from the seed's SimplePool (a mutex and a
//                        stack), then an exact-size copy;
//   SyncPoolAlwaysAlloc  a buffer from zerolab::Pool (sync.Pool's design),
//                        then an exact-size copy;
//   SyncPoolFixedSmall   a pooled buffer to catch the packet, then a copy
//                        into the connection's own 1 KiB buffer (an
//                        exact-size copy when it does not fit).
// Buffers are not zeroed (C++ does not have to), so only the pages packets
// land on are touched.
//
// Packet sizes follow the seed: normal, mean 400 B, sd 200, clamped to
// [255, 65535], from a fixed-seed RNG (4096 sizes, used in turn).
//
// Thread-safety: a strategy and its Throughput are used by one thread.
//
// Example:
//   udp::Throughput<udp::FixedLargeBuffer> reads(100, 2);   // 100 conns, 200 readers
//   reads.complete_next();   // one read: a packet into reader 0's buffer
#ifndef ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
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
inline std::unique_ptr<BigBuf> new_big() {
  return std::unique_ptr<BigBuf>(new BigBuf);
}

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

inline void clone_and_handle(const char* p, std::size_t n) {
  std::unique_ptr<char[]> out(new char[n]);
  std::memcpy(out.get(), p, n);
  handle(out.get(), n);
}

class FixedLargeBuffer {
 public:
  using Hold = BigBuf*;
  FixedLargeBuffer(int conns, int /*readers*/) {
    bufs_.reserve(static_cast<std::size_t>(conns));
    for (int i = 0; i < conns; ++i) bufs_.push_back(new_big());
  }
  Hold take(int reader) { return bufs_[static_cast<std::size_t>(reader) % bufs_.size()].get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) { handle(h->data, n); }
  std::size_t held_bytes() const { return bufs_.size() * kBig; }

 private:
  std::vector<std::unique_ptr<BigBuf>> bufs_;
};

class AlwaysAllocate {
 public:
  using Hold = BigBuf*;
  AlwaysAllocate(int /*conns*/, int /*readers*/) {}
  Hold take(int /*reader*/) {
    ++live_;
    return new_big().release();
  }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    std::unique_ptr<BigBuf> big(h);
    clone_and_handle(big->data, n);
    --live_;
  }
  std::size_t held_bytes() const { return live_ * kBig; }

 private:
  std::size_t live_ = 0;  // buffers taken and not yet finished
};

// The seed's SimplePool: a mutex and a stack of buffers; Get makes one when
// the stack is empty, Put pushes it back (never frees).
class SeedSimplePool {
 public:
  BigBuf* get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (stack_.empty()) {
      ++made_;
      return new_big().release();
    }
    BigBuf* b = stack_.back();
    stack_.pop_back();
    return b;
  }
  void put(BigBuf* b) {
    std::lock_guard<std::mutex> lock(mu_);
    stack_.push_back(b);
  }
  std::size_t made() const { return made_; }
  ~SeedSimplePool() {
    for (BigBuf* b : stack_) delete b;
  }
  SeedSimplePool() = default;
  SeedSimplePool(const SeedSimplePool&) = delete;
  SeedSimplePool& operator=(const SeedSimplePool&) = delete;

 private:
  std::mutex mu_;
  std::vector<BigBuf*> stack_;
  std::size_t made_ = 0;
};

class SimplePool {
 public:
  using Hold = BigBuf*;
  SimplePool(int /*conns*/, int /*readers*/) {}
  Hold take(int /*reader*/) { return pool_.get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    clone_and_handle(h->data, n);
    pool_.put(h);
  }
  // Every buffer made is held: taken by a read, or in the stack.
  std::size_t held_bytes() const { return pool_.made() * kBig; }

 private:
  SeedSimplePool pool_;
};

// Buffers from zerolab::Pool, sync.Pool's design; the pool counts what it
// made and destroyed.
class SyncPoolAlwaysAlloc {
 public:
  using Hold = BigBuf*;
  SyncPoolAlwaysAlloc(int /*conns*/, int /*readers*/)
      : pool_(std::make_unique<Pool<BigBuf>>([] { return new_big(); })) {}
  Hold take(int /*reader*/) { return pool_->get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    clone_and_handle(h->data, n);
    pool_->put(h);
  }
  std::size_t held_bytes() const {
    const PoolStats st = pool_->stats();
    return static_cast<std::size_t>(st.created - st.destroyed) * kBig;
  }

 private:
  std::unique_ptr<Pool<BigBuf>> pool_;
};

class SyncPoolFixedSmall {
 public:
  using Hold = BigBuf*;
  SyncPoolFixedSmall(int conns, int /*readers*/)
      : pool_(std::make_unique<Pool<BigBuf>>([] { return new_big(); })),
        small_(static_cast<std::size_t>(conns)) {}
  Hold take(int /*reader*/) { return pool_->get(); }
  void finish(Hold h, int reader, std::size_t n) {
    if (n < kSmall) {
      char* s = small_[static_cast<std::size_t>(reader) % small_.size()].data();
      std::memcpy(s, h->data, n);
      pool_->put(h);
      handle(s, n);
    } else {
      clone_and_handle(h->data, n);
      pool_->put(h);
    }
  }
  std::size_t held_bytes() const {
    const PoolStats st = pool_->stats();
    return static_cast<std::size_t>(st.created - st.destroyed) * kBig + small_.size() * kSmall;
  }

 private:
  std::unique_ptr<Pool<BigBuf>> pool_;
  std::vector<SmallBuf> small_;
};

// The seed's regime as its numbers show it: throughput-bound (its ns/op,
// 125 at 1000 connections on 24 threads, is far above the 1 ms sleep's
// floor of 42 ns), so a read's cost is the strategy's work, and a buffer is
// held only while its read is in flight. One thread completes the reads of
// conns x procs readers in turn, each at once: take a buffer, the packet
// arrives, hand it to the strategy, which keeps or returns the buffer.
// What a strategy holds between reads (held_bytes after a read) is its
// steady-state memory.
template <typename S>
class Throughput {
 public:
  // REQUIRES: conns >= 1, procs >= 1.
  Throughput(int conns, int procs)
      : strategy_(conns, conns * procs), readers_(conns * procs), payload_(kBig, 'x') {}
  Throughput(const Throughput&) = delete;
  Throughput& operator=(const Throughput&) = delete;

  // One read by the next reader in turn. Returns the packet's size.
  std::size_t complete_next() {
    const int reader = next_reader_;
    next_reader_ = next_reader_ + 1 == readers_ ? 0 : next_reader_ + 1;
    const auto& sizes = packet_sizes();
    const std::size_t n = sizes[next_size_];
    next_size_ = next_size_ + 1 == sizes.size() ? 0 : next_size_ + 1;
    typename S::Hold hold = strategy_.take(reader);
    std::memcpy(hold->data, payload_.data(), n);  // the packet arrives
    strategy_.finish(hold, reader, n);
    return n;
  }

  const S& strategy() const { return strategy_; }

 private:
  S strategy_;
  int readers_;
  std::string payload_;
  int next_reader_ = 0;
  std::size_t next_size_ = 0;
};

}  // namespace zerolab::lab::udp

#endif  // ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
