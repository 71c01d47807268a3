// lab/experiments/udp_strategies.hpp — the five receive-buffer strategies of
// the `udp-buffers` experiment (seed 001, "cableshow: SNMP buffers") and the
// seed's read regime.
//
// The seed runs conns x GOMAXPROCS (24) goroutines (b.SetParallelism(conns)),
// each calling a strategy whose fakeUDPRead sleeps 1 ms while it holds the
// 64 KiB buffer the strategy gave it. From 1000 connections on, its figures
// are throughput-bound (125 ns/op, far above the sleep's floor of 1 ms /
// 24000 readers = 42 ns): what they time is each strategy's work per read,
// and the reads in flight at once are what the throughput allows, about
// 12000 (its sync.Pool keeps 750 MiB = 12000 buffers at 1000, 10000 and
// 100000 connections; at 100 it keeps 150 MiB = 2400 buffers, one per
// reader). The model here (InFlight), line by line:
//   - readers = conns x 24 (the seed's GOMAXPROCS), reader r on connection
//     r % conns;
//   - reads in flight = min(readers, kSeedInFlight): the seed's count, not
//     what this machine's throughput would give, so the pools hold what the
//     seed's held;
//   - one op completes the oldest read in flight (its packet is copied into
//     the buffer the read holds, the strategy handles it and keeps or
//     returns the buffer), then the next reader in turn starts a read (the
//     strategy gives it a buffer): no sleep, so the time is the strategies'
//     work, the seed's throughput-bound regime;
//   - a buffer is held only from the start of its read to its completion;
//   - cold memory is measured after the run as the seed's reportHeapStats
//     measures it after runtime.GC(): the reads in flight complete, garbage
//     is gone (C++ frees at once), and a sync.Pool keeps what it holds (one
//     GC moves its objects to the victim cache, it does not free them; here
//     one rotate()); held_bytes() is then the strategy's cold.
// The conns x 24 readers are only reader numbers: one thread does every
// read, in turn, so no lock is contended.
//
// A strategy is made for `conns` connections:
//   Hold take(reader)                the buffer a read holds while in flight;
//   void finish(hold, reader, n)     the packet (n bytes, already in the
//                                    buffer) is handled; the buffer goes back;
//   void collect()                   what the seed's runtime.GC() does to it;
//   std::size_t held_bytes()         buffer bytes held right now (exact,
//                                    allocator overhead not included).
//   FixedLargeBuffer     one 0xFFFF buffer per connection, held for good;
//                        reader r uses buffer r % conns (reads in flight of
//                        readers r and r + conns share one, as the seed's
//                        goroutines do);
//   AlwaysAllocate       a new 0xFFFF buffer per read, then an exact-size copy;
//   SimplePool           a buffer from the seed's SimplePool (a mutex and a
//                        stack, never freed), then an exact-size copy;
//   SyncPoolAlwaysAlloc  a buffer from zerolab::Pool (sync.Pool's design,
//                        unbounded per thread as sync.Pool's chains are),
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
// Thread-safety: a strategy and its InFlight are used by one thread.
//
// Example:
//   udp::InFlight<udp::SimplePool> reads(100, udp::kSeedProcs, 300);
//   reads.complete_next();   // the oldest of 300 reads completes, one starts
//   reads.drain();           // the 300 complete; then the seed's GC
//   reads.strategy().held_bytes();   // 300 buffers: the pool keeps them
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
// The seed's GOMAXPROCS (its names end in -24) and its reads in flight in
// the throughput-bound runs (750 MiB of 64 KiB buffers kept by its
// sync.Pool, 711 MiB by its SimplePool).
inline constexpr int kSeedProcs = 24;
inline constexpr int kSeedInFlight = 12000;

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
  explicit FixedLargeBuffer(int conns) {
    bufs_.reserve(static_cast<std::size_t>(conns));
    for (int i = 0; i < conns; ++i) bufs_.push_back(new_big());
  }
  Hold take(int reader) { return bufs_[static_cast<std::size_t>(reader) % bufs_.size()].get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) { handle(h->data, n); }
  void collect() {}
  std::size_t held_bytes() const { return bufs_.size() * kBig; }

 private:
  std::vector<std::unique_ptr<BigBuf>> bufs_;
};

class AlwaysAllocate {
 public:
  using Hold = BigBuf*;
  explicit AlwaysAllocate(int /*conns*/) {}
  Hold take(int /*reader*/) {
    ++live_;
    return new_big().release();
  }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    std::unique_ptr<BigBuf> big(h);
    clone_and_handle(big->data, n);
    --live_;
  }
  void collect() {}
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
  explicit SimplePool(int /*conns*/) {}
  Hold take(int /*reader*/) { return pool_.get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    clone_and_handle(h->data, n);
    pool_.put(h);
  }
  void collect() {}  // the stack holds its buffers: the GC cannot free them
  // Every buffer made is held: taken by a read, or in the stack.
  std::size_t held_bytes() const { return pool_.made() * kBig; }

 private:
  SeedSimplePool pool_;
};

// sync.Pool's design: zerolab::Pool without a per-thread bound (sync.Pool's
// chains grow as far as puts push them); it counts what it made and freed.
inline std::unique_ptr<Pool<BigBuf>> new_sync_pool() {
  PoolOptions unbounded;
  unbounded.per_thread_bound = SIZE_MAX;
  return std::make_unique<Pool<BigBuf>>([] { return new_big(); }, Pool<BigBuf>::ResetHook{},
                                        unbounded);
}

// Buffers from new_sync_pool().
class SyncPoolAlwaysAlloc {
 public:
  using Hold = BigBuf*;
  explicit SyncPoolAlwaysAlloc(int /*conns*/) : pool_(new_sync_pool()) {}
  Hold take(int /*reader*/) { return pool_->get(); }
  void finish(Hold h, int /*reader*/, std::size_t n) {
    clone_and_handle(h->data, n);
    pool_->put(h);
  }
  // One GC: the pool's objects move to its victim cache and stay.
  void collect() { pool_->rotate(); }
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
  explicit SyncPoolFixedSmall(int conns)
      : pool_(new_sync_pool()), small_(static_cast<std::size_t>(conns)) {}
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
  void collect() { pool_->rotate(); }
  std::size_t held_bytes() const {
    const PoolStats st = pool_->stats();
    return static_cast<std::size_t>(st.created - st.destroyed) * kBig + small_.size() * kSmall;
  }

 private:
  std::unique_ptr<Pool<BigBuf>> pool_;
  std::vector<SmallBuf> small_;
};

// The seed's regime (the model is stated line by line at the top): `in_flight`
// reads in flight at once among conns x procs readers; one op completes the
// oldest and starts the next reader's.
template <typename S>
class InFlight {
 public:
  // REQUIRES: conns >= 1, procs >= 1, 1 <= in_flight <= conns * procs.
  InFlight(int conns, int procs, int in_flight)
      : strategy_(conns), readers_(conns * procs), payload_(kBig, 'x') {
    ring_.reserve(static_cast<std::size_t>(in_flight));
    try {
      for (int r = 0; r < in_flight; ++r) ring_.push_back({r, strategy_.take(r)});
    } catch (...) {
      drain();  // out of memory: the buffers already taken go back
      throw;
    }
    next_reader_ = in_flight % readers_;
  }
  // The seed's reads in flight for `conns` connections: min(readers, 12000).
  static int seed_in_flight(int conns) { return std::min(conns * kSeedProcs, kSeedInFlight); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() { drain(); }

  // The oldest read in flight completes; the next reader in turn starts
  // one. Returns the completed packet's size.
  // REQUIRES: not drained.
  std::size_t complete_next() {
    Flight& f = ring_[head_];
    const std::size_t n = complete(f);
    f.reader = next_reader_;
    next_reader_ = next_reader_ + 1 == readers_ ? 0 : next_reader_ + 1;
    f.hold = strategy_.take(f.reader);
    head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
    return n;
  }

  // The run ends: every read in flight completes, oldest first, and none
  // starts; then the seed's runtime.GC() (the strategy's collect()).
  void drain() {
    for (std::size_t i = 0; i < ring_.size(); ++i) {
      complete(ring_[(head_ + i) % ring_.size()]);
    }
    ring_.clear();
    head_ = 0;
    strategy_.collect();
  }

  std::size_t in_flight() const { return ring_.size(); }
  const S& strategy() const { return strategy_; }

 private:
  struct Flight {
    int reader;
    typename S::Hold hold;
  };

  std::size_t complete(Flight& f) {
    const auto& sizes = packet_sizes();
    const std::size_t n = sizes[next_size_];
    next_size_ = next_size_ + 1 == sizes.size() ? 0 : next_size_ + 1;
    std::memcpy(f.hold->data, payload_.data(), n);  // the packet arrives
    strategy_.finish(f.hold, f.reader, n);
    return n;
  }

  S strategy_;
  int readers_;
  std::string payload_;
  std::vector<Flight> ring_;
  std::size_t head_ = 0;
  int next_reader_ = 0;
  std::size_t next_size_ = 0;
};

}  // namespace zerolab::lab::udp

#endif  // ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
