// Experiment `udp-buffers` (seed 001, "cableshow: SNMP buffers"): where
// the 64 KiB receive buffer of a UDP connection lives. Real UDP sockets on
// loopback — 100, 1000 and 10000 receiving "connections" (RLIMIT_NOFILE is
// raised as needed), one sender, and one reader thread on an epoll loop —
// carry packets whose sizes follow the seed (normal, mean 400 B, sd 200,
// clamped to [255, 65535]). One op is one packet read with one strategy:
//   FixedLargeBuffer       a 64 KiB buffer per connection, held for good;
//   AlwaysAllocate         a new 64 KiB buffer per read (not zeroed: C++
//                          does not have to), then an exact-size copy;
//   SimplePool             a 64 KiB buffer from SimplePool (mutex + vector),
//                          then an exact-size copy;
//   Pool                   the same from zerolab::Pool (sync.Pool's design);
//   SharedLargeFixedSmall  a pooled 64 KiB buffer to catch the packet, then
//                          a copy into the connection's own 1 KiB buffer
//                          (an exact-size copy when it does not fit).
// Besides ns/op, B/op and allocs/op each run reports the heap the strategy
// holds at steady state (the allocator's in-use bytes after the run minus
// before its buffers were made): held-KiB/conn; and the harness's
// heap-before-B, heap-peak-B and heap-after-B (B::report_heap).
//
// Reduced from the issue: one reader thread (Go ran one goroutine per
// connection, so its pools saw contention), and no simulated 100000-
// connection mode.
//
// Example:
//   zerolab lab udp-buffers
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/alloc_stats.hpp"
#include "lab/experiment.hpp"
#include "zerolab/pool.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kBig = 0xFFFF;
constexpr std::size_t kSmall = 0x400;
constexpr int kBatch = 64;  // packets in flight at once

struct BigBuf {
  char data[kBig];
};
using SmallBuf = std::array<char, kSmall>;

const std::vector<std::size_t>& packet_sizes() {
  static const std::vector<std::size_t> v = [] {
    std::mt19937_64 rng(0x5A4D50);
    std::normal_distribution<double> d(400, 200);
    std::vector<std::size_t> out(4096);
    for (auto& s : out) s = static_cast<std::size_t>(std::clamp(d(rng), 255.0, 65535.0));
    return out;
  }();
  return v;
}

// The allocator's in-use bytes (glibc's mallinfo2, or the sanitizer's
// count), from the harness's allocation hooks.
std::size_t heap_in_use() { return internal::alloc_stats::heap_in_use(); }

// N receiving sockets on 127.0.0.1, one sender, one epoll set.
class Net {
 public:
  Net(B& b, int conns) {
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    const rlim_t need = static_cast<rlim_t>(conns) + 64;
    if (rl.rlim_cur < need) {
      if (rl.rlim_max < need) b.skip("RLIMIT_NOFILE hard limit below " + std::to_string(need));
      rl.rlim_cur = need;
      setrlimit(RLIMIT_NOFILE, &rl);
    }
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    sender_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ep_ < 0 || sender_ < 0) b.fatal(std::string("socket/epoll: ") + std::strerror(errno));
    for (int i = 0; i < conns; ++i) {
      const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) b.fatal(std::string("socket: ") + std::strerror(errno));
      fds_.push_back(fd);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof a;
      if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
          getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        b.fatal(std::string("bind: ") + std::strerror(errno));
      }
      addrs_.push_back(a);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = static_cast<std::uint32_t>(i);
      if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        b.fatal(std::string("epoll_ctl: ") + std::strerror(errno));
      }
    }
    payload_.assign(kBig, 'x');
  }
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;
  ~Net() {
    for (int fd : fds_) close(fd);
    close(sender_);
    close(ep_);
  }

  int fd(int conn) const { return fds_[static_cast<std::size_t>(conn)]; }

  // The next connection with a packet waiting; sends a batch when none is
  // in flight.
  int next_ready(B& b) {
    for (;;) {
      if (ready_ < nready_) return static_cast<int>(events_[ready_++].data.u32);
      if (in_flight_ == 0) send_batch(b);
      nready_ = epoll_wait(ep_, events_.data(), kBatch, 1000);
      if (nready_ <= 0) b.fatal("udp-buffers: no packet arrived on loopback within 1 s");
      ready_ = 0;
    }
  }
  void consumed() { --in_flight_; }

 private:
  void send_batch(B& b) {
    const auto& sizes = packet_sizes();
    const int conns = static_cast<int>(fds_.size());
    for (int k = 0; k < std::min(kBatch, conns); ++k) {
      const sockaddr_in& a = addrs_[static_cast<std::size_t>(next_conn_)];
      const std::size_t n = sizes[next_size_];
      next_size_ = (next_size_ + 1) % sizes.size();
      next_conn_ = (next_conn_ + 1) % conns;
      if (sendto(sender_, payload_.data(), n, 0, reinterpret_cast<const sockaddr*>(&a), sizeof a) !=
          static_cast<ssize_t>(n)) {
        b.fatal(std::string("sendto: ") + std::strerror(errno));
      }
      ++in_flight_;
    }
  }

  int ep_ = -1;
  int sender_ = -1;
  std::vector<int> fds_;
  std::vector<sockaddr_in> addrs_;
  std::string payload_;
  std::array<epoll_event, kBatch> events_{};
  int nready_ = 0;
  int ready_ = 0;
  int in_flight_ = 0;
  int next_conn_ = 0;
  std::size_t next_size_ = 0;
};

// Reads one datagram into buf; returns its size, or -1 if the socket had
// none after all (the loop then asks epoll again).
ssize_t read_into(int fd, char* buf, std::size_t cap) {
  const ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
  return n;
}

// The "handling" of a packet: look at it, so the copy is not dead.
void handle(const char* p, std::size_t n) {
  char first = p[0];
  char last = p[n - 1];
  do_not_optimize(first);
  do_not_optimize(last);
}

std::unique_ptr<char[]> clone(const char* p, std::size_t n) {
  std::unique_ptr<char[]> out(new char[n]);
  std::memcpy(out.get(), p, n);
  return out;
}

// Runs the read loop with strategy `read(conn)`, which returns false when
// the socket turned out empty. Reports held-KiB/conn.
template <typename Setup>
void run(B& b, int conns, Setup setup) {
  b.report_heap();
  Net net(b, conns);
  const std::size_t before = heap_in_use();
  auto read = setup();  // the strategy's buffers are made here
  b.reset_timer();
  for (auto _ : b.loop()) {
    for (;;) {
      const int c = net.next_ready(b);
      if (read(net.fd(c), c)) break;
    }
    net.consumed();
  }
  b.stop_timer();
  const double held = static_cast<double>(heap_in_use()) - static_cast<double>(before);
  b.report_metric(held / 1024.0 / conns, "held-KiB/conn");
}

template <int kConns>
void fixed_large(B& b) {
  run(b, kConns, [] {
    auto bufs = std::make_shared<std::vector<std::unique_ptr<BigBuf>>>();
    for (int i = 0; i < kConns; ++i) bufs->push_back(std::make_unique<BigBuf>());
    return [bufs](int fd, int c) {
      char* buf = (*bufs)[static_cast<std::size_t>(c)]->data;
      const ssize_t n = read_into(fd, buf, kBig);
      if (n <= 0) return false;
      handle(buf, static_cast<std::size_t>(n));
      return true;
    };
  });
}

template <int kConns>
void always_allocate(B& b) {
  run(b, kConns, [] {
    return [](int fd, int) {
      std::unique_ptr<char[]> big(new char[kBig]);
      const ssize_t n = read_into(fd, big.get(), kBig);
      if (n <= 0) return false;
      const auto out = clone(big.get(), static_cast<std::size_t>(n));
      big.reset();
      handle(out.get(), static_cast<std::size_t>(n));
      return true;
    };
  });
}

template <typename PoolT>
auto pooled_clone(std::shared_ptr<PoolT> pool) {
  return [pool](int fd, int) {
    BigBuf* big = pool->get();
    const ssize_t n = read_into(fd, big->data, kBig);
    if (n <= 0) {
      pool->put(big);
      return false;
    }
    const auto out = clone(big->data, static_cast<std::size_t>(n));
    pool->put(big);
    handle(out.get(), static_cast<std::size_t>(n));
    return true;
  };
}

template <int kConns>
void simple_pool(B& b) {
  run(b, kConns, [] { return pooled_clone(std::make_shared<SimplePool<BigBuf>>()); });
}

template <int kConns>
void sync_pool(B& b) {
  run(b, kConns, [] { return pooled_clone(std::make_shared<Pool<BigBuf>>()); });
}

template <int kConns>
void shared_large_fixed_small(B& b) {
  run(b, kConns, [] {
    auto pool = std::make_shared<Pool<BigBuf>>();
    auto small = std::make_shared<std::vector<SmallBuf>>(static_cast<std::size_t>(kConns));
    return [pool, small](int fd, int c) {
      BigBuf* big = pool->get();
      const ssize_t got = read_into(fd, big->data, kBig);
      if (got <= 0) {
        pool->put(big);
        return false;
      }
      const auto n = static_cast<std::size_t>(got);
      if (n < kSmall) {
        char* s = (*small)[static_cast<std::size_t>(c)].data();
        std::memcpy(s, big->data, n);
        pool->put(big);
        handle(s, n);
      } else {
        const auto out = clone(big->data, n);
        pool->put(big);
        handle(out.get(), n);
      }
      return true;
    };
  });
}

std::string name(const char* strategy, int conns) {
  return std::string("BenchmarkUDPBuffers/") + strategy + "/conns=" + std::to_string(conns);
}

template <int... Ns>
void add_all(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("FixedLargeBuffer", Ns), &fixed_large<Ns>, 0, t}),
    out.push_back({name("AlwaysAllocate", Ns), &always_allocate<Ns>, 0, t}),
    out.push_back({name("SimplePool", Ns), &simple_pool<Ns>, 0, t}),
    out.push_back({name("Pool", Ns), &sync_pool<Ns>, 0, t}),
    out.push_back({name("SharedLargeFixedSmall", Ns), &shared_large_fixed_small<Ns>, 0, t})),
   ...);
}

}  // namespace

Experiment make_udp_buffers_experiment() {
  Experiment e;
  e.id = "udp-buffers";
  e.title = "a 64 KiB UDP receive buffer: per connection, per read, or pooled (real loopback sockets)";
  e.seed_file = "001_4eae026f8a0067a6.txt";
  e.seed_section = "cableshow: SNMP buffers (FixedLargeBuffer .. SyncPoolFixedSmall)";
  e.note =
      "No GC: a freed 64 KiB block goes straight back to glibc and is handed out again, so "
      "AlwaysAllocate costs a malloc/free pair, not GC work; one reader thread, so no pool "
      "contention.";
  add_all<100, 1000, 10000>(e.benchmarks);
  const std::string unit = "held-KiB/conn";
  e.claims = {
      Claim::bound("FixedLargeBuffer holds about 64 KiB per connection at steady state",
                   "6304 MiB hot at 100000 conns (64.5 KiB/conn)",
                   name("FixedLargeBuffer", 10000), unit, 60, 70),
      Claim::ratio("SharedLargeFixedSmall holds about 15% of FixedLargeBuffer's memory",
                   "15% (903.6 vs 6304 MiB at 100000 conns)", name("FixedLargeBuffer", 10000),
                   name("SharedLargeFixedSmall", 10000), 1 / 0.15, unit),
      Claim::ratio("AlwaysAllocate is far slower: 10x FixedLargeBuffer",
                   "~10x (1518 vs 707.2 ns at 100, 2662 vs 124.7 at 10000)",
                   name("AlwaysAllocate", 1000), name("FixedLargeBuffer", 1000), 10.0),
      Claim::ratio("... and slower than a pool of large buffers", "1638 vs 116.6 ns at 1000",
                   name("AlwaysAllocate", 1000), name("Pool", 1000), 1.0),
      Claim::bound("SharedLargeFixedSmall: ~0 allocs/op (only packets of 1 KiB or more)", "0 allocs/op",
                   name("SharedLargeFixedSmall", 1000), "allocs/op", 0, 0.01),
  };
  return e;
}

}  // namespace zerolab::lab
