// Experiment `udp-buffers` (seed 001, "cableshow: SNMP buffers"): where
// the 64 KiB receive buffer of a UDP connection lives, in two modes.
//
// Real mode: real UDP sockets on loopback — 100, 1000 and 10000 receiving
// "connections" (RLIMIT_NOFILE is raised as needed), one sender, and one
// reader thread on an epoll loop — carry packets whose sizes follow the
// seed (normal, mean 400 B, sd 200, clamped to [255, 65535]).
//
// Simulated mode, at 100000 connections (100000 UDP sockets exceed what the
// machine allows): no sockets; connections in turn, and a packet "arrival"
// for connection i is a memcpy of the payload into the buffer the strategy
// provides, followed by the same handling. Same strategies, same
// per-connection state, same packet sizes (udp_strategies.hpp); benchmarks
// named .../mode=simulated/conns=100000.
//
// One op is one packet read with one strategy (udp_strategies.hpp):
//   FixedLargeBuffer       a 64 KiB buffer per connection, held for good;
//   AlwaysAllocate         a new 64 KiB buffer per read, then an exact-size
//                          copy;
//   SimplePool             a 64 KiB buffer from SimplePool (mutex + vector),
//                          then an exact-size copy;
//   Pool                   the same from zerolab::Pool (sync.Pool's design);
//   SharedLargeFixedSmall  a pooled 64 KiB buffer to catch the packet, then
//                          a copy into the connection's own 1 KiB buffer
//                          (an exact-size copy when it does not fit).
// Buffers are not zeroed (C++ does not have to), so their pages are touched
// only where packets land. Besides ns/op, B/op and allocs/op each run
// reports what the strategy holds at steady state: held-KiB/conn (reserved:
// the allocator's in-use bytes after the run minus before its buffers were
// made) and touched-KiB/conn (resident-set growth over the same span: the
// pages written); and the harness's heap-before-B, heap-peak-B and
// heap-after-B (B::report_heap). FixedLargeBuffer at 100000 conns reserves
// 6.4 GB but touches about one page per buffer (~0.4 GB), which the 24 GiB
// VM and the lab's run time afford.
//
// Reduced from the issue: one reader thread (Go ran one goroutine per
// connection, so its pools saw contention).
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
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/alloc_stats.hpp"
#include "lab/experiment.hpp"
#include "lab/experiments/udp_strategies.hpp"

namespace zerolab::lab {
namespace {

using udp::kBig;
using udp::packet_sizes;
constexpr int kBatch = 64;  // packets in flight at once

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

// The process's resident set, in bytes (/proc/self/statm), or 0.
double resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0;
}

// Reports what strategy s holds per connection: held-KiB/conn (the
// allocator's in-use bytes, i.e. reserved, since `before`) and
// touched-KiB/conn (resident-set growth since `rss_before`: the pages
// actually written; a lower bound, since reused heap pages are resident
// already).
void report_held(B& b, int conns, std::size_t before, double rss_before) {
  const double held = static_cast<double>(heap_in_use()) - static_cast<double>(before);
  b.report_metric(held / 1024.0 / conns, "held-KiB/conn");
  b.report_metric((resident_bytes() - rss_before) / 1024.0 / conns, "touched-KiB/conn");
}

// Real mode: the read loop over loopback sockets with strategy S.
template <typename S, int kConns>
void real(B& b) {
  b.report_heap();
  Net net(b, kConns);
  const std::size_t before = heap_in_use();
  const double rss_before = resident_bytes();
  S s(kConns);  // the strategy's buffers are made here
  auto src = [&net](int conn, char* buf, std::size_t cap) {
    return recv(net.fd(conn), buf, cap, MSG_DONTWAIT);  // -1: empty after all, ask epoll again
  };
  b.reset_timer();
  for (auto _ : b.loop()) {
    while (s.read(src, net.next_ready(b)) <= 0) {
    }
    net.consumed();
  }
  b.stop_timer();
  report_held(b, kConns, before, rss_before);
}

// Simulated mode: no sockets; connections in turn, each packet memcpy'd
// into the buffer S provides, then handled as in the real mode.
template <typename S, int kConns>
void simulated(B& b) {
  b.report_heap();
  udp::SimulatedPackets src(kConns);
  const std::size_t before = heap_in_use();
  const double rss_before = resident_bytes();
  S s(kConns);
  b.reset_timer();
  for (auto _ : b.loop()) s.read(src, src.next_conn());
  b.stop_timer();
  report_held(b, kConns, before, rss_before);
}

constexpr int kSimulatedConns = 100000;

std::string name(const char* strategy, int conns) {
  return std::string("BenchmarkUDPBuffers/") + strategy + "/conns=" + std::to_string(conns);
}
std::string sim_name(const char* strategy) {
  return std::string("BenchmarkUDPBuffers/") + strategy +
         "/mode=simulated/conns=" + std::to_string(kSimulatedConns);
}

template <int... Ns>
void add_real(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("FixedLargeBuffer", Ns), &real<udp::FixedLargeBuffer, Ns>, 0, t}),
    out.push_back({name("AlwaysAllocate", Ns), &real<udp::AlwaysAllocate, Ns>, 0, t}),
    out.push_back({name("SimplePool", Ns), &real<udp::SimplePoolClone, Ns>, 0, t}),
    out.push_back({name("Pool", Ns), &real<udp::PoolClone, Ns>, 0, t}),
    out.push_back(
        {name("SharedLargeFixedSmall", Ns), &real<udp::SharedLargeFixedSmall, Ns>, 0, t})),
   ...);
}

void add_simulated(std::vector<BenchmarkSpec>& out) {
  constexpr int n = kSimulatedConns;
  const auto t = std::chrono::milliseconds(100);
  out.push_back({sim_name("FixedLargeBuffer"), &simulated<udp::FixedLargeBuffer, n>, 0, t});
  out.push_back({sim_name("AlwaysAllocate"), &simulated<udp::AlwaysAllocate, n>, 0, t});
  out.push_back({sim_name("SimplePool"), &simulated<udp::SimplePoolClone, n>, 0, t});
  out.push_back({sim_name("Pool"), &simulated<udp::PoolClone, n>, 0, t});
  out.push_back(
      {sim_name("SharedLargeFixedSmall"), &simulated<udp::SharedLargeFixedSmall, n>, 0, t});
}

}  // namespace

Experiment make_udp_buffers_experiment() {
  Experiment e;
  e.id = "udp-buffers";
  e.title =
      "a 64 KiB UDP receive buffer: per connection, per read, or pooled (real loopback sockets; "
      "100000 conns simulated)";
  e.seed_file = "001_4eae026f8a0067a6.txt";
  e.seed_section = "cableshow: SNMP buffers (FixedLargeBuffer .. SyncPoolFixedSmall)";
  e.note =
      "No GC: a freed 64 KiB block goes straight back to glibc and is handed out again, so "
      "AlwaysAllocate costs a malloc/free pair, not GC work; one reader thread, so no pool "
      "contention. 100, 1000, 10000 conns: real loopback sockets; 100000 conns (mode=simulated): "
      "simulated: no sockets, packets are memcpy'd into the strategy's buffer. Buffers are not "
      "zeroed: held-KiB/conn is reserved heap, touched-KiB/conn the resident pages.";
  add_real<100, 1000, 10000>(e.benchmarks);
  add_simulated(e.benchmarks);
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
      // 100000 connections, simulated: no sockets, packets are memcpy'd.
      Claim::bound("100000 conns (simulated: no sockets, packets are memcpy'd): FixedLargeBuffer "
                   "holds about 64 KiB per connection (6.4 GB reserved)",
                   "12554 MiB cold, 6304 MiB hot (64.5 KiB/conn hot)", sim_name("FixedLargeBuffer"),
                   unit, 60, 70),
      Claim::bound("100000 conns (simulated): ... of which FixedLargeBuffer touches only the pages "
                   "packets land on (C++ does not zero them; at most 8 KiB/conn resident)",
                   "— (Go zeroes the buffers)", sim_name("FixedLargeBuffer"), "touched-KiB/conn",
                   0, 8),
      Claim::ratio("100000 conns (simulated): SharedLargeFixedSmall holds about 15% of "
                   "FixedLargeBuffer's memory",
                   "15% (903.6 vs 6304 MiB)", sim_name("FixedLargeBuffer"),
                   sim_name("SharedLargeFixedSmall"), 1 / 0.15, unit),
      Claim::ratio("100000 conns (simulated): AlwaysAllocate is far slower: 10x FixedLargeBuffer",
                   "no Go figure: AlwaysAllocate at 100000 crashed the author's machine "
                   "(2662 vs 124.7 ns at 10000)",
                   sim_name("AlwaysAllocate"), sim_name("FixedLargeBuffer"), 10.0),
      Claim::ratio("100000 conns (simulated): ... and slower than a pool of large buffers",
                   "no Go figure for AlwaysAllocate; SyncPoolAlwaysAlloc 124.9 ns",
                   sim_name("AlwaysAllocate"), sim_name("Pool"), 1.0),
      Claim::bound("100000 conns (simulated): SharedLargeFixedSmall ~0 allocs/op", "0 allocs/op",
                   sim_name("SharedLargeFixedSmall"), "allocs/op", 0, 0.01),
  };
  // heap-after-B is read after the benchmark function has destroyed its
  // strategy, so it is the same for all; the peak is taken while every
  // connection's buffer is live, which is the seed's "heap after the run".
  e.plots.push_back(PlotSpec::sweep("heap with every connection's buffers live, per strategy",
                                    "BenchmarkUDPBuffers/", "conns", "connections", "heap-peak-B",
                                    "peak heap in use"));
  e.plots.back().series_ignore = {"mode"};
  e.plots.push_back(PlotSpec::sweep("memory held per connection, per strategy",
                                    "BenchmarkUDPBuffers/", "conns", "connections", "held-KiB/conn",
                                    "held KiB per connection"));
  e.plots.back().series_ignore = {"mode"};
  return e;
}

}  // namespace zerolab::lab
