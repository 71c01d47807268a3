// page_heap_bench: the PageHeap figures the README quotes, and what its lock costs.
//
//   Fresh/zero=yes|no/size=S   new heap, allocate S, first write to every
//                              page (alloc + first touch); Zero::kYes of fresh
//                              memory should cost what Zero::kNo does
//   Dirty/method=pageheap/size=S     allocate(S, Zero::kYes) + deallocate of a
//                              resident dirty span: zero_fill plus bookkeeping
//   Dirty/method=zero_fill/size=S    zero_fill over the same bytes
//   DirtyPair/method=pageheap/size=S  the two above in alternating blocks
//                              of a few microseconds over the same span,
//                              reported as ratio (median over block pairs of
//                              pageheap time / zero_fill time) and
//                              extra-ns/op (median difference per operation).
//                              A loaded machine slows both blocks of a pair
//                              alike, so this figure holds where the separate
//                              Dirty runs, seconds apart, do not; no ns/op
//   DirtyPair/method=mutex-x2/size=64KiB  the same for zero_fill between two
//                              bare std::mutex lock/unlock pairs: the floor
//                              for an allocator that takes a std::mutex per call
//   DirtyPair/.../process=threaded  the same, run after the process started
//                              (and joined) a thread: glibc's locks, and
//                              PageHeap's, skip their atomic instructions
//                              while a process has only ever had one thread;
//                              these variants measure the locks as every
//                              multi-threaded program pays them
//   Touch/pages=4KiB|2MiB      first touch of 256 MiB of a new heap with
//                              HugePages::kOff or kOn (set_bytes: MB/s = per GiB)
//   Lock/alloc-free            allocate(64 KiB, Zero::kNo) + deallocate, one thread
//   Lock/mutex-x2              two uncontended std::mutex lock/unlock pairs
//   Lock/alloc-free-parallel   alloc-free from GOMAXPROCS-like threads (contended)
//
// Example:
//   ./build/release/bench/rigs/page_heap_bench -bench 'Fresh|Dirty' -count 10 > ph.txt
//   zerolab compare -filter ... ph.txt
#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "zerolab/bench.hpp"
#include "zerolab/page_heap.hpp"
#include "zerolab/zero.hpp"

namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;
constexpr std::size_t kPage = 4096;

std::string size_name(std::size_t n) {
  return n >= kMiB ? std::to_string(n / kMiB) + "MiB" : std::to_string(n / kKiB) + "KiB";
}

void touch(void* p, std::size_t n) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t off = 0; off < n; off += kPage)
    *static_cast<volatile unsigned char*>(b + off) = 1;
}

void fresh(zerolab::B& b, std::size_t n, zerolab::Zero zero, zerolab::HugePages huge) {
  b.set_bytes(static_cast<std::int64_t>(n));
  zerolab::PageHeapOptions options;
  options.huge_pages = huge;
  for (std::int64_t i = 0; i < b.n(); ++i) {
    b.stop_timer();
    std::optional<zerolab::PageHeap> heap(std::in_place, options);
    b.start_timer();
    void* p = heap->allocate(n, zero);
    touch(p, n);
    b.stop_timer();
    heap.reset();
    b.start_timer();
  }
}

}  // namespace

ZEROLAB_BENCHMARK(Fresh) {
  for (const std::size_t n : {16 * kMiB, 256 * kMiB}) {
    for (const auto zero : {zerolab::Zero::kYes, zerolab::Zero::kNo}) {
      b.run(std::string("zero=") + (zero == zerolab::Zero::kYes ? "yes" : "no") +
                "/size=" + size_name(n),
            [n, zero](zerolab::B& sb) { fresh(sb, n, zero, zerolab::HugePages::kAuto); });
    }
  }
}

ZEROLAB_BENCHMARK(Dirty) {
  for (const std::size_t n : {64 * kKiB, 256 * kKiB, 1 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB}) {
    b.run("method=pageheap/size=" + size_name(n), [n](zerolab::B& sb) {
      zerolab::PageHeap heap;
      void* p = heap.allocate(n, zerolab::Zero::kNo);
      zerolab::zero_fill(p, n);  // resident
      heap.deallocate(p);
      sb.set_bytes(static_cast<std::int64_t>(n));
      sb.reset_timer();
      for (auto _ : sb.loop()) {
        void* q = heap.allocate(n, zerolab::Zero::kYes);
        zerolab::do_not_optimize(q);
        heap.deallocate(q);
      }
    });
    b.run("method=zero_fill/size=" + size_name(n), [n](zerolab::B& sb) {
      zerolab::PageHeap heap;
      void* p = heap.allocate(n, zerolab::Zero::kNo);
      zerolab::zero_fill(p, n);
      sb.set_bytes(static_cast<std::int64_t>(n));
      sb.reset_timer();
      for (auto _ : sb.loop()) {
        zerolab::zero_fill(p, n);
        zerolab::clobber_memory();
      }
      sb.stop_timer();
      heap.deallocate(p);
    });
  }
}

// DirtyPair: blocks of `op` (one operation per call, each zeroing the n
// bytes of the heap's one span its own way) alternating with blocks of
// zero_fill over that span; reports the median ratio and difference over
// block pairs. With `hold`, the span is allocated (Zero::kNo, so the cache
// hands the same one back) around op's block and op gets it; otherwise op
// gets nullptr and must allocate it itself.
template <class Op>
void dirty_pair(zerolab::B& sb, std::size_t n, bool hold, Op op) {
  using Clock = std::chrono::steady_clock;
  zerolab::PageHeap heap;
  void* p = heap.allocate(n, zerolab::Zero::kNo);
  zerolab::zero_fill(p, n);  // resident
  heap.deallocate(p);
  const std::int64_t block = std::max<std::int64_t>(1, static_cast<std::int64_t>((1 * kMiB) / n));
  std::vector<double> ratio;
  std::vector<double> extra;
  ratio.reserve(static_cast<std::size_t>(sb.n() / block + 1));
  extra.reserve(ratio.capacity());
  sb.reset_timer();
  for (std::int64_t done = 0; done < sb.n(); done += block) {
    void* held = hold ? heap.allocate(n, zerolab::Zero::kNo) : nullptr;
    const auto t0 = Clock::now();
    for (std::int64_t i = 0; i < block; ++i) op(heap, held);
    const auto t1 = Clock::now();
    if (held != nullptr) heap.deallocate(held);
    void* q = heap.allocate(n, zerolab::Zero::kNo);
    const auto t2 = Clock::now();
    for (std::int64_t i = 0; i < block; ++i) {
      zerolab::zero_fill(q, n);
      zerolab::clobber_memory();
    }
    const auto t3 = Clock::now();
    heap.deallocate(q);
    const double op_ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    const double fill_ns = std::chrono::duration<double, std::nano>(t3 - t2).count();
    ratio.push_back(op_ns / fill_ns);
    extra.push_back((op_ns - fill_ns) / static_cast<double>(block));
  }
  sb.stop_timer();
  auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  sb.report_metric(median(ratio), "ratio");
  sb.report_metric(median(extra), "extra-ns/op");
  sb.report_metric(0, "ns/op");
}

ZEROLAB_BENCHMARK(DirtyPair) {
  // Single-threaded variants first: starting a thread cannot be undone.
  for (const bool threaded : {false, true}) {
    const std::string process = threaded ? "/process=threaded" : "";
    const auto start_a_thread = [threaded] {
      if (threaded) std::thread([] {}).join();
    };
    for (const std::size_t n : {64 * kKiB, 256 * kKiB, 1 * kMiB, 16 * kMiB}) {
      if (threaded && n > 64 * kKiB) continue;
      b.run("method=pageheap/size=" + size_name(n) + process, [n, start_a_thread](zerolab::B& sb) {
        start_a_thread();
        dirty_pair(sb, n, false, [n](zerolab::PageHeap& heap, void*) {
          void* q = heap.allocate(n, zerolab::Zero::kYes);
          zerolab::do_not_optimize(q);
          heap.deallocate(q);
        });
      });
    }
    // The floor for any design that takes a std::mutex per call: two
    // uncontended lock/unlock pairs around zero_fill.
    b.run("method=mutex-x2/size=64KiB" + process, [start_a_thread](zerolab::B& sb) {
      start_a_thread();
      std::mutex mu;
      dirty_pair(sb, 64 * kKiB, true, [&mu](zerolab::PageHeap&, void* q) {
        mu.lock();
        zerolab::clobber_memory();
        mu.unlock();
        zerolab::zero_fill(q, 64 * kKiB);
        zerolab::clobber_memory();
        mu.lock();
        zerolab::clobber_memory();
        mu.unlock();
      });
    });
  }
}

ZEROLAB_BENCHMARK(Touch) {
  b.run("pages=4KiB", [](zerolab::B& sb) {
    fresh(sb, 256 * kMiB, zerolab::Zero::kNo, zerolab::HugePages::kOff);
  });
  b.run("pages=2MiB",
        [](zerolab::B& sb) { fresh(sb, 256 * kMiB, zerolab::Zero::kNo, zerolab::HugePages::kOn); });
}

ZEROLAB_BENCHMARK(Lock) {
  b.run("alloc-free", [](zerolab::B& sb) {
    zerolab::PageHeap heap;
    heap.deallocate(heap.allocate(64 * kKiB, zerolab::Zero::kNo));
    for (auto _ : sb.loop()) {
      void* p = heap.allocate(64 * kKiB, zerolab::Zero::kNo);
      zerolab::do_not_optimize(p);
      heap.deallocate(p);
    }
  });
  b.run("mutex-x2", [](zerolab::B& sb) {
    std::mutex mu;
    for (auto _ : sb.loop()) {
      mu.lock();
      zerolab::clobber_memory();
      mu.unlock();
      mu.lock();
      zerolab::clobber_memory();
      mu.unlock();
    }
  });
  b.run("alloc-free-parallel", [](zerolab::B& sb) {
    zerolab::PageHeap heap;
    sb.run_parallel([&heap](zerolab::PB& pb) {
      while (pb.next()) {
        void* p = heap.allocate(64 * kKiB, zerolab::Zero::kNo);
        zerolab::do_not_optimize(p);
        heap.deallocate(p);
      }
    });
  });
}
