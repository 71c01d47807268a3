// lab/experiments/udp_strategies.hpp — the five receive-buffer strategies of
// the `udp-buffers` experiment (seed 001, "cableshow: SNMP buffers") and the
// seed's read model: many reads in flight, each holding its buffer while it
// waits for its packet.
//
// The seed runs conns x GOMAXPROCS goroutines (b.SetParallelism(conns));
// each calls a strategy whose fakeUDPRead sleeps 1 ms (the seed's latency
// formula always gives 1 ms) while it holds the 64 KiB buffer the strategy
// gave it, then copies a packet into it. Here one thread runs an event loop
// over the same number of in-flight reads (InFlight): reads complete in the
// order they started, each no sooner than 1 ms after it started; completing
// one copies its packet into the buffer it holds, hands the packet to the
// strategy, and starts the next read for the same reader, which takes a
// buffer again. So at any time every reader holds what the seed's goroutine
// would hold while it sleeps.
//
// A strategy is made for `conns` connections and `readers` readers:
//   Hold take(reader)                the buffer a read holds while it waits;
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
// Thread-safety: a strategy and its InFlight are used by one thread.
//
// Example:
//   udp::InFlight<udp::FixedLargeBuffer> loop(100, 2);   // 100 conns, 200 reads
//   loop.complete_next();   // waits until the oldest read's 1 ms is up
#ifndef ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_

#include <time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
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
inline constexpr std::chrono::nanoseconds kLatency = std::chrono::milliseconds(1);

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

// The seed's read model over strategy S: conns x procs readers, each with
// one read in flight that holds its buffer until its 1 ms is up.
template <typename S>
class InFlight {
 public:
  // REQUIRES: conns >= 1, procs >= 1.
  InFlight(int conns, int procs) : strategy_(conns, conns * procs), payload_(kBig, 'x') {
    const int readers = conns * procs;
    const auto now = std::chrono::steady_clock::now();
    try {
      for (int r = 0; r < readers; ++r) reads_.push_back({r, strategy_.take(r), now + kLatency});
    } catch (...) {  // out of memory: give back what was taken, then fail
      give_back_all();
      throw;
    }
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() { give_back_all(); }

  // Completes the oldest read (sleeping until its 1 ms is up), then starts
  // that reader's next read. Returns the packet's size.
  std::size_t complete_next() {
    Read r = reads_.front();
    reads_.pop_front();
    sleep_until(r.due);
    const auto& sizes = packet_sizes();
    const std::size_t n = sizes[next_size_];
    next_size_ = next_size_ + 1 == sizes.size() ? 0 : next_size_ + 1;
    std::memcpy(r.hold->data, payload_.data(), n);  // the packet arrives
    strategy_.finish(r.hold, r.reader, n);
    reads_.push_back(
        {r.reader, strategy_.take(r.reader), std::chrono::steady_clock::now() + kLatency});
    return n;
  }

  std::size_t in_flight() const { return reads_.size(); }
  const S& strategy() const { return strategy_; }

 private:
  struct Read {
    int reader;
    typename S::Hold hold;
    std::chrono::steady_clock::time_point due;
  };

  // Completes every read in flight with a 1-byte packet, so each buffer
  // goes back to (or is freed by) its strategy.
  void give_back_all() {
    for (Read& r : reads_) {
      r.hold->data[0] = 'x';
      strategy_.finish(r.hold, r.reader, 1);
    }
    reads_.clear();
  }

  static void sleep_until(std::chrono::steady_clock::time_point due) {
    const auto left = due - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds(0)) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }

  S strategy_;
  std::string payload_;
  std::deque<Read> reads_;
  std::size_t next_size_ = 0;
};

}  // namespace zerolab::lab::udp

#endif  // ZEROLAB_LAB_EXPERIMENTS_UDP_STRATEGIES_HPP_
