// Experiment `udp-buffers` (seed 001, "cableshow: SNMP buffers"): where the
// 64 KiB receive buffer of a UDP connection lives — per connection
// (FixedLargeBuffer), per read (AlwaysAllocate), or borrowed from a pool
// for the read (SimplePool, SyncPoolAlwaysAlloc, SyncPoolFixedSmall) — in
// the seed's regime: throughput-bound, the seed's conns x 24 readers with
// its reads in flight (about 12000), a buffer held only while its read is
// in flight (udp_strategies.hpp's InFlight, stated line by line there). One
// op is one completed read.
//
// Connections: 100, 1000, 10000 for every strategy (the seed's
// AlwaysAllocate stops at 10000: 100000 "crashed my computer"), and 100000
// for FixedLargeBuffer, SimplePool and SyncPoolFixedSmall, the seed's
// tables there. Each run reports cold-KiB/conn: the buffer bytes the
// strategy holds after the run, once its reads in flight completed and the
// seed's GC ran (exact, counted by the strategy; the seed's cold_mib), per
// connection, besides the harness's heap-before-B, heap-peak-B and
// heap-after-B.
//
// The Go peer (peers/go/udp-buffers) is the seed's code with its
// goroutines at Go's own benchtime (1 s): it does not fit the default
// budget, so it runs with `zerolab lab --full` or `zerolab lab udp-buffers`.
//
// Example:
//   zerolab lab udp-buffers
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/udp_strategies.hpp"
#include "lab/framework/experiment.hpp"

namespace zerolab::lab {
namespace {

// The Go peer at Go's own benchtime: 10 benchmarks, each about 1 s after
// b.N's ramp; a round of 8 took about 40 s on a loaded 2-core VM, so 10
// rounds of 10 about 500 s (docs/lab.md).
constexpr int kGoFullSeconds = 500;

template <typename S, int kConns>
void reads(B& b) {
  b.report_heap();
  using Loop = udp::InFlight<S>;
  Loop loop(kConns, udp::kSeedProcs, Loop::seed_in_flight(kConns));
  // Steady state before the timer, as the seed's millions of reads reach
  // it: every buffer in flight and every connection's has had a packet
  // (its pages faulted in).
  for (std::size_t i = 0; i < std::max<std::size_t>(loop.in_flight(), kConns); ++i) {
    loop.complete_next();
  }
  b.reset_timer();
  std::size_t bytes = 0;
  for (auto _ : b.loop()) bytes += loop.complete_next();
  b.stop_timer();
  do_not_optimize(bytes);
  loop.drain();
  b.report_metric(static_cast<double>(loop.strategy().held_bytes()) / 1024.0 / kConns,
                  "cold-KiB/conn");
}

std::string name(const char* strategy, int conns) {
  return std::string("BenchmarkUDPBuffers/") + strategy + "/conns=" + std::to_string(conns);
}

// The seed's Go names: BenchmarkFixedLargeBuffer/0000001000 (its "%010d"),
// BenchmarkAlwaysAllocate/1000 for the others.
std::string go_name(const char* strategy, int conns) {
  char n[16];
  if (std::string(strategy) == "FixedLargeBuffer") {
    std::snprintf(n, sizeof n, "%010d", conns);
  } else {
    std::snprintf(n, sizeof n, "%d", conns);
  }
  return std::string("Benchmark") + strategy + "/" + n;
}

template <int... Ns>
void add_all(std::vector<BenchmarkSpec>& out) {
  const auto t = std::chrono::milliseconds(100);
  ((out.push_back({name("FixedLargeBuffer", Ns), &reads<udp::FixedLargeBuffer, Ns>, 0, t}),
    out.push_back({name("AlwaysAllocate", Ns), &reads<udp::AlwaysAllocate, Ns>, 0, t}),
    out.push_back({name("SimplePool", Ns), &reads<udp::SimplePool, Ns>, 0, t}),
    out.push_back({name("SyncPoolAlwaysAlloc", Ns), &reads<udp::SyncPoolAlwaysAlloc, Ns>, 0, t}),
    out.push_back({name("SyncPoolFixedSmall", Ns), &reads<udp::SyncPoolFixedSmall, Ns>, 0, t})),
   ...);
}

}  // namespace

Experiment make_udp_buffers_experiment() {
  Experiment e = Experiment::from_seed(
      "udp-buffers",
      "a 64 KiB UDP receive buffer: per connection, per read, or pooled, with reads in flight",
      {"001_4eae026f8a0067a6.txt",
       "cableshow: SNMP buffers (FixedLargeBuffer .. SyncPoolFixedSmall, final results)"},
      {"C++ runs the seed's reads in flight (min(conns x 24, 12000): its sync.Pool's 750 MiB "
       "of buffers) on one thread as an event loop, where Go runs goroutines: no pool "
       "contention, so the seed's single-lock argument cannot show.",
       "No GC: a freed buffer goes straight back to glibc, where Go's stays garbage until a "
       "collection.",
       "Buffers are not zeroed in C++ (Go's make zeroes each 64 KiB buffer).",
       "4096 packet sizes in turn, where the seed draws from 100000 at random.",
       "Throughput-bound, as the seed's figures are (125 ns/op at 1000 connections is far above "
       "the 1 ms sleep's floor): an op completes the oldest read in flight and starts the next "
       "reader's, without fakeUDPRead's sleep; a buffer is held only while its read is in "
       "flight.",
       "cold-KiB/conn is what a strategy holds once its reads completed and the seed's GC ran "
       "(a sync.Pool keeps its buffers through one GC, as Go's victim cache does); C++ has no "
       "garbage, so the seed's hot has no counterpart."},
      {"udp-buffers",
       "1s",
       {"fakeUDPRead's latency quirk kept: every read sleeps exactly 1 ms (the formula "
        "divides by 5 ms in ns, then clamps to at least 1 ms).",
        "math/rand for math/rand/v2, min/max helpers and bytes.Clone written out (Go 1.19).",
        "A 3 GiB soft memory limit while the GC is off (the seed's reportHeapStats turns it "
        "off).",
        "reportHeapStats also reports mallocs/op and malloc-B/op (Go's allocs/op and B/op "
        "untruncated).",
        "Go's own benchtime (1 s), as the seed ran it: with a fixed 2000 reads, 2000 to 20000 "
        "goroutines would do about one read each and ns/op would be their start-up. It needs "
        "more than the default budget: `zerolab lab --full` or `zerolab lab udp-buffers`; "
        "conns 1000 and 10000 only."},
       // Only the rows the claims use: a round of these takes about 4 s here.
       "^Benchmark(FixedLargeBuffer|AlwaysAllocate|SimplePool|SyncPoolAlwaysAlloc|"
       "SyncPoolFixedSmall)$/"
       "^0*(1000|10000)$"});
  add_all<100, 1000, 10000>(e.benchmarks);
  const auto t = std::chrono::milliseconds(100);
  e.benchmarks.push_back(
      {name("FixedLargeBuffer", 100000), &reads<udp::FixedLargeBuffer, 100000>, 0, t});
  e.benchmarks.push_back({name("SimplePool", 100000), &reads<udp::SimplePool, 100000>, 0, t});
  e.benchmarks.push_back(
      {name("SyncPoolFixedSmall", 100000), &reads<udp::SyncPoolFixedSmall, 100000>, 0, t});
  e.go_full_seconds = kGoFullSeconds;
  const std::string sec = "cableshow.parseOID and cableshow.formatOID (its SNMP buffers)";
  const std::string simple = "SimplePool benchmarks";
  const std::string sync_pool = "sync.Pool benchmarks";
  const auto go = [](const char* strategy, int conns) { return go_name(strategy, conns); };
  const char* single_thread = "one thread runs every read here: no lock contention";
  const char* no_garbage =
      "no GC: a freed buffer goes back at once, where the seed's extra memory is garbage "
      "awaiting a collection";
  // The C++ side at 100000 connections: FixedLargeBuffer's buffers are
  // malloc'd whole, though only the pages packets land on are touched.
  const Precondition cpp_100k =
      only_on(ClaimSide::kCpp,
              memory_at_least(std::uint64_t{100000} * udp::kBig,
                              "FixedLargeBuffer's 100000 buffers of 64 KiB at 100000 connections"));
  const char* no_100k =
      "100000 connections need 6.4 GiB of buffers and 200000 goroutines, more than this shared "
      "machine gives a peer";
  for (const int conns : {1000, 10000}) {
    e.claims.push_back(
        Claim::about(
            {"Always allocating is 10x slower and uses more memory under nearly every "
             "circumstance.",
             sec,
             conns == 1000 ? "10x stated; its table: 13.0x at 1000 (1638 vs 125.6 ns/op), 2.1x at "
                             "100 (1518 vs 707.2); band [10 / 1.25, 13.0 * 1.25]"
                           : "10x stated; its table: 21.3x at 10000 (2662 vs 124.7 ns/op), 2.1x at "
                             "100 (1518 vs 707.2); band [10 / 1.25, 21.3 * 1.25]"},
            10.0, name("AlwaysAllocate", conns), name("FixedLargeBuffer", conns))
            .band(10.0 / kBandWidth, (conns == 1000 ? 13.0 : 21.3) * kBandWidth)
            .go_names(go("AlwaysAllocate", conns), go("FixedLargeBuffer", conns)));
  }
  e.claims.push_back(
      Claim::is_faster({"Always allocating is 10x slower and uses more memory under nearly every "
                        "circumstance.",
                        sec, "hot 350.2 vs 115.3 MiB at 1000 (3.0x)"},
                       name("AlwaysAllocate", 1000), name("FixedLargeBuffer", 1000))
          .in("cold-KiB/conn")
          .go_names(go("AlwaysAllocate", 1000), go("FixedLargeBuffer", 1000))
          .go_unit("hot_mib", 1)
          .cpp_not_comparable_because(no_garbage));
  e.claims.push_back(
      Claim::is_faster(
          {"Simplepool performs well under moderate concurrency, saving a lot of ‘cold’ "
           "(steady-state) memory at the expense of being slower than the fixed large "
           "buffer.",
           simple, "6.0x at 1000 (749.9 vs 125.6 ns/op)"},
          name("SimplePool", 1000), name("FixedLargeBuffer", 1000))
          .go_names(go("SimplePool", 1000), go("FixedLargeBuffer", 1000)));
  // Its other half, "saving a lot of 'cold' memory": in the seed's tables only at 100000
  // connections. Its FixedLargeBuffer table lacks the before_mib header, so its columns
  // read one to the left: cold is 115.3 at 1000 and 678.5 at 10000 (SimplePool: 764.8,
  // 729.7), no saving; at 100000 6304 vs 713.1.
  e.claims.push_back(
      Claim::direction(
          {"Simplepool performs well under moderate concurrency, saving a lot of ‘cold’ "
           "(steady-state) memory at the expense of being slower than the fixed large "
           "buffer.",
           simple,
           "8.84x at 100000 (cold 6304 vs 713.1 MiB); none at 10000 (678.5 vs 729.7) or 1000 "
           "(115.3 vs 764.8)"},
          6304 / 713.1, name("FixedLargeBuffer", 100000), name("SimplePool", 100000))
          .in("cold-KiB/conn")
          .go_not_comparable(no_100k)
          .needs(cpp_100k));
  e.claims.push_back(
      Claim::is_faster(
          {"Unfortunately, this doesn’t scale well past 10000 or so connections, since "
           "everything’s waiting on acquiring a single lock!",
           simple, "5.8x at 10000 (SimplePool 680.5 vs SyncPoolAlwaysAlloc 117.0 ns/op)"},
          name("SimplePool", 10000), name("SyncPoolAlwaysAlloc", 10000))
          .go_names(go("SimplePool", 10000), go("SyncPoolAlwaysAlloc", 10000))
          .cpp_not_comparable_because(single_thread)
          .needs(
              only_on(ClaimSide::kGo,
                      cpus_at_least(udp::kSeedProcs,
                                    "the seed's 24 threads contend for SimplePool's one lock"))));
  e.claims.push_back(
      Claim::is_faster(
          {"Unsurprisingly, the stdlib’s sync.Pool performs the best of all our "
           "options.",
           sync_pool, "6.4x at 1000 (SimplePool 749.9 vs SyncPoolAlwaysAlloc 116.6 ns/op)"},
          name("SimplePool", 1000), name("SyncPoolAlwaysAlloc", 1000))
          .go_names(go("SimplePool", 1000), go("SyncPoolAlwaysAlloc", 1000)));
  // "The best of all": also faster than the next best at 1000, the fixed buffer.
  e.claims.push_back(
      Claim::is_faster(
          {"Unsurprisingly, the stdlib’s sync.Pool performs the best of all our "
           "options.",
           sync_pool, "1.08x at 1000 (FixedLargeBuffer 125.6 vs SyncPoolAlwaysAlloc 116.6 ns/op)"},
          name("FixedLargeBuffer", 1000), name("SyncPoolAlwaysAlloc", 1000))
          .go_names(go("FixedLargeBuffer", 1000), go("SyncPoolAlwaysAlloc", 1000)));
  // A statement the seed asks the reader to explain ("Why?"), not a question whether it
  // holds: a direction, on the rows the Go peer runs. The C++ model holds, after the
  // seed's GC, exactly the buffers of the reads in flight in both strategies (the tests'
  // LabUdpBuffers.ABufferIsHeldOnlyWhileItsReadIsInFlight), so it cannot tell them apart.
  e.claims.push_back(
      Claim::is_faster({"syncPoolAlwaysAllocuses more ‘cold’ memory thanSimplePool. Why?",
                        "cableshow: final results: Problems",
                        "1.05x at 1000 (cold 805.1 vs 764.8 MiB), 1.10x at 10000 (805.8 vs "
                        "729.7); at 100 the other way (203.8 vs 205.0)"},
                       name("SyncPoolAlwaysAlloc", 1000), name("SimplePool", 1000))
          .in("cold-KiB/conn")
          .go_names(go("SyncPoolAlwaysAlloc", 1000), go("SimplePool", 1000))
          .go_also(go("SyncPoolAlwaysAlloc", 10000), go("SimplePool", 10000))
          .go_unit("cold_mib", 1)
          .cpp_not_comparable_because(
              "the model cannot tell them apart: after the seed's GC both hold exactly the "
              "buffers of the reads in flight (12000 x 64 KiB at 1000 and 10000 connections); "
              "the seed's difference is in Go's heap"));
  e.claims.push_back(
      Claim::about(
          {"FixedSmall uses 15% of the steady-state, and runs about 4% faster (though this "
           "is probably within the margin of error)",
           "cableshow: final results", "14.3% (cold 903.6 vs 6304 MiB at 100000): 7.0x"},
          1 / 0.15, name("FixedLargeBuffer", 100000), name("SyncPoolFixedSmall", 100000))
          .in("cold-KiB/conn")
          .go_not_comparable(no_100k)
          .needs(cpp_100k));
  e.claims.push_back(
      Claim::no_change(
          {"FixedSmall uses 15% of the steady-state, and runs about 4% faster (though "
           "this is probably within the margin of error)",
           "cableshow: final results", "1.04x (129.8 vs 124.9 ns/op at 100000); within 5%"},
          0.05, name("SyncPoolFixedSmall", 100000), name("FixedLargeBuffer", 100000))
          .go_not_comparable(no_100k)
          .needs(cpp_100k));
  // The tables' exact counts at 1000 connections (Go's allocs/op and B/op
  // are truncated integers: "0" is [0, 1), "1" is [1, 2)).
  e.claims.push_back(
      Claim::within({"The fixed large buffer generates very little garbage but uses too much "
                     "memory at steady-state.",
                     sec, "0 B/op at 1000 connections (2 at 10000, 21 at 100000): [0, 1)"},
                    name("FixedLargeBuffer", 1000), kBytesPerOp, 0, kBelowNextCount)
          .go_bench(go("FixedLargeBuffer", 1000)));
  e.claims.push_back(
      Claim::within({"| BenchmarkSyncPoolAlwaysAlloc/1000-24 | 7669573 | 132.8 | 53.73 | 804.3 | "
                     "4060 | 750.6 | -3256 | 547 | 1 |",
                     sync_pool, "1 allocs/op (its copy of the packet): [1, 2)"},
                    name("SyncPoolAlwaysAlloc", 1000), kAllocsPerOp, 1, 1 + kBelowNextCount)
          .go_bench(go("SyncPoolAlwaysAlloc", 1000)));
  e.claims.push_back(
      Claim::within({"| BenchmarkSyncPoolFixedSmall/1000-24 | 8933874 | 127.5 | 57.08 | 807.0 | "
                     "820.3 | 749.9 | -13.27 | 89 | 0 |",
                     sync_pool, "0 allocs/op (a copy only for packets of 1 KiB and more): [0, 1)"},
                    name("SyncPoolFixedSmall", 1000), kAllocsPerOp, 0, kBelowNextCount)
          .go_bench(go("SyncPoolFixedSmall", 1000)));
  e.plots.push_back(PlotSpec::sweep("cold memory per connection, per strategy",
                                    "BenchmarkUDPBuffers/", "conns", "connections", "cold-KiB/conn",
                                    "cold KiB per connection"));
  e.plots.push_back(PlotSpec::sweep("time per read, per strategy", "BenchmarkUDPBuffers/", "conns",
                                    "connections", "ns/op", "ns per completed read"));
  return e;
}

}  // namespace zerolab::lab
