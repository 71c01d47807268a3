// zerolab/bench.hpp — a Go-`testing`-style benchmark harness for C++.
//
// A benchmark is a function of `zerolab::B&` registered with
// ZEROLAB_BENCHMARK. The harness calibrates the iteration count, times the
// loop, and reports — by default — ns/op, page faults/op, B/op and allocs/op
// in the Go benchmark format, so benchstat and `zerolab compare` read it.
// Allocation counts need the zerolab::alloc_hooks target linked in
// (zerolab::bench_main brings it).
//
// Two loop forms, as in Go:
//   - `for (auto _ : b.loop()) { ... }` (Go 1.24's b.Loop): the timer resets
//     on the first call, the count ramps up inside this one call of the
//     function (so setup before the loop runs once per -count), and the
//     timer stops when the loop ends. Every iteration really runs; feed
//     results you compute to zerolab::do_not_optimize so the compiler keeps
//     them.
//   - `for (std::int64_t i = 0; i < b.n(); ++i) { ... }`: the function is
//     called again with growing b.n(), calibrated as Go's predictN does.
//
// Thread-safety: a B belongs to the thread running the benchmark function;
// only run_parallel's PB objects are used from other threads.
//
// Example:
//   #include <zerolab/bench.hpp>
//   #include <string>
//
//   ZEROLAB_BENCHMARK(StringConcat) {
//     std::string a(100, 'x');
//     for (auto _ : b.loop()) {
//       std::string s = a + a;
//       zerolab::do_not_optimize(s);
//     }
//   }
//   // linked with zerolab::bench_main, prints for instance
//   // (tab-separated columns:)
//   // BenchmarkStringConcat-2  27089936  43.9 ns/op  ...  208 B/op  1 allocs/op
#ifndef ZEROLAB_BENCH_HPP_
#define ZEROLAB_BENCH_HPP_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "zerolab/benchfmt.hpp"

namespace zerolab {

class B;
class PB;
struct RunSettings;
struct RunReport;

namespace internal {
struct RunState;
struct Registration {
  Registration(const char* name, void (*function)(B&));
};
// Thrown by B::fatal and B::skip to leave the benchmark function.
struct BenchmarkExit {
  bool skipped;
};
}  // namespace internal

// Keeps `value` alive and opaque to the optimizer: the compiler must assume
// it is read (and, for the non-const overload, modified) here.
template <class T>
inline void do_not_optimize(T const& value) {
  asm volatile("" : : "m"(value) : "memory");
}
template <class T>
inline void do_not_optimize(T& value) {
  // T may be a pointer (to an aggregate too): the question is whether a T fits a register.
  // NOLINTNEXTLINE(bugprone-sizeof-expression)
  if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(void*)) {
    asm volatile("" : "+r"(value) : : "memory");
  } else {
    asm volatile("" : "+m"(value) : : "memory");
  }
}

// Forces pending writes to memory to be considered visible (a compiler
// barrier, no instruction emitted).
inline void clobber_memory() {
  asm volatile("" : : : "memory");
}

// The range returned by B::loop(). Its iterator keeps the iteration index and
// target in registers; only when the target is reached does it call into the
// harness, which decides whether to ramp up or stop.
class LoopRange {
 public:
  struct Sentinel {};
  // Variables of this type never warn as unused: `for (auto _ : b.loop())`.
  struct __attribute__((unused)) Unit {};
  class Iterator {
   public:
    explicit Iterator(B* b) noexcept : b_(b) {}
    bool operator!=(Sentinel) {
      if (i_ < n_) [[likely]] {
        ++i_;
        // Opaque to the optimizer, so every iteration is executed.
        asm volatile("" : "+r"(i_));
        return true;
      }
      return slow_path();
    }
    void operator++() noexcept {}
    Unit operator*() const noexcept { return {}; }

   private:
    bool slow_path();
    B* b_;
    std::uint64_t i_ = 0;
    std::uint64_t n_ = 0;
  };
  explicit LoopRange(B* b) noexcept : b_(b) {}
  Iterator begin() noexcept { return Iterator(b_); }
  Sentinel end() const noexcept { return {}; }

 private:
  B* b_;
};

// The handle each run_parallel thread iterates with: `while (pb.next()) {...}`.
class PB {
 public:
  // Reports whether there are more iterations to execute.
  bool next() noexcept {
    if (cache_ == 0) {
      const std::uint64_t n = global_n_->fetch_add(grain_, std::memory_order_relaxed) + grain_;
      if (n <= b_n_) {
        cache_ = grain_;
      } else if (n < b_n_ + grain_) {
        cache_ = b_n_ + grain_ - n;
      } else {
        return false;
      }
    }
    --cache_;
    return true;
  }

 private:
  friend class B;
  PB(std::atomic<std::uint64_t>* global_n, std::uint64_t grain, std::uint64_t b_n)
  noexcept : global_n_(global_n), grain_(grain), b_n_(b_n) {}
  std::atomic<std::uint64_t>* global_n_;
  std::uint64_t grain_;
  std::uint64_t cache_ = 0;
  std::uint64_t b_n_;
};

// The state of one benchmark run, handed to the benchmark function.
class B {
 public:
  B(const B&) = delete;
  B& operator=(const B&) = delete;
  ~B();

  // The iteration count for the classic `for (i < b.n())` loop.
  std::int64_t n() const noexcept { return n_; }

  // Go 1.24's b.Loop as a range: `for (auto _ : b.loop()) { ... }`.
  LoopRange loop() noexcept { return LoopRange(this); }

  // Zeroes the elapsed time, allocation and fault counts, and clears the
  // metrics reported so far; does not change whether the timer runs.
  void reset_timer();
  // Starts timing (and counting allocations and page faults).
  void start_timer();
  // Stops timing; allocations made while stopped are not counted.
  void stop_timer();

  // Records the bytes processed per operation; adds the MB/s column.
  void set_bytes(std::int64_t n) noexcept { bytes_ = n; }

  // Adds a metric to the result line, replacing a built-in one of the same
  // unit ("ns/op", "B/op", ...). An "ns/op" of 0 hides that column.
  // REQUIRES: unit is non-empty and has no whitespace (fatal otherwise).
  void report_metric(double value, std::string_view unit);

  // Reports B/op and allocs/op for this benchmark even with -benchmem=false.
  void report_allocs() noexcept { report_allocs_ = true; }

  // Reports live-heap metrics for this benchmark even without -heap, taking
  // "before" at this call (call it right before the loop, after setup):
  // heap-before-B, heap-peak-B (highest while running), heap-after-B (when
  // the function returned) and heap-leaked-B (after - before).
  void report_heap();

  // Marks the benchmark failed with `message` and leaves it. Other
  // benchmarks still run; the binary exits 1.
  [[noreturn]] void fatal(std::string_view message);
  // Records `message` and leaves the benchmark without a result.
  [[noreturn]] void skip(std::string_view message);
  // Adds a line printed under the result (Go's b.Log).
  void log(std::string_view message);

  // The measured time so far, including the running timer.
  std::chrono::nanoseconds elapsed() const;

  // Runs `function` as a sub-benchmark named `<this name>/<name>`. A
  // benchmark that calls run is not measured itself. Returns false if the
  // sub-benchmark failed.
  bool run(std::string_view name, const std::function<void(B&)>& function);

  // Runs `body` on parallelism × cpus threads (cpus from -cpu), sharing b.n()
  // iterations handed out in grains; ns/op is wall time per operation.
  // `body` is any callable taking PB&; it is not copied and nothing is
  // allocated to call it.
  template <class Body>
  void run_parallel(Body&& body) {
    run_parallel_impl(
        [](void* context, PB& pb) { (*static_cast<std::remove_reference_t<Body>*>(context))(pb); },
        const_cast<void*>(static_cast<const void*>(&body)));
  }
  // Sets the thread multiplier used by run_parallel; values below 1 count as 1.
  void set_parallelism(int p) noexcept { parallelism_ = p < 1 ? 1 : p; }

  // The full name, e.g. "BenchmarkFoo/bar".
  const std::string& name() const noexcept { return name_; }
  bool failed() const noexcept { return failed_; }

 private:
  friend class LoopRange::Iterator;
  friend int bench_main(int argc, char** argv);
  friend RunReport run_benchmark(std::string_view name, const std::function<void(B&)>& function,
                                 const RunSettings& settings);

  B(internal::RunState* state, std::string name, std::function<void(B&)> function, int depth);
  void run_parallel_impl(void (*call)(void*, PB&), void* context);
  bool loop_slow_path(std::uint64_t& i, std::uint64_t& n);
  bool stop_or_scale_loop(std::uint64_t& n);
  void run_n(std::int64_t n);
  bool run1();
  bool run1_silent();
  void launch();
  void launch_counting();
  void process_bench();
  std::string result_line(const std::string& bench_name) const;
  benchfmt::Result result_record(const std::string& bench_name) const;

  struct Counters {
    std::uint64_t allocs = 0;
    std::uint64_t bytes = 0;
    std::uint64_t faults = 0;
  };
  static Counters read_counters();

  internal::RunState* state_;
  std::string name_;
  std::function<void(B&)> function_;
  int depth_;

  std::int64_t n_ = 0;
  std::int64_t previous_n_ = 0;
  std::chrono::nanoseconds previous_duration_{0};

  bool timer_on_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::nanoseconds duration_{0};
  Counters start_counters_;
  Counters net_;

  std::int64_t bytes_ = 0;
  std::map<std::string, double, std::less<>> extra_;
  bool report_allocs_ = false;

  bool heap_requested_ = false;  // report_heap() called
  bool heap_started_ = false;    // tracking running for this call
  std::uint64_t heap_before_ = 0;
  std::map<std::string, double, std::less<>> heap_metrics_;

  // b.loop() state (Go's b.loop.{n,done}; the count i lives in the caller).
  std::uint64_t loop_n_ = 0;
  bool loop_done_ = false;
  // A counting run's pass length, which b.loop() runs instead of -benchtime's.
  std::uint64_t counting_pass_n_ = 0;

  int parallelism_ = 1;
  bool has_sub_ = false;
  bool partial_match_ = false;
  bool failed_ = false;
  bool skipped_ = false;
  bool finished_ = false;
  std::vector<std::string> output_;

  // The result of the last measured run.
  std::int64_t result_n_ = 0;
  std::chrono::nanoseconds result_duration_{0};
  Counters result_net_;
};

// Runs the registered benchmarks selected by the command-line flags (Go's
// test flags: -bench, -benchtime, -count, -cpu, -benchmem, -heap, -o, -list,
// -benchmeasure (instructions: exact counts under callgrind, counting_run.hpp),
// -h) and returns the process exit code: 0 all passed, 1 a benchmark failed,
// 2 bad usage.
int bench_main(int argc, char** argv);

}  // namespace zerolab

#define ZEROLAB_BENCH_CONCAT_INNER_(a, b) a##b
#define ZEROLAB_BENCH_CONCAT_(a, b) ZEROLAB_BENCH_CONCAT_INNER_(a, b)

// Defines and registers the benchmark `Benchmark<Name>`; the body sees
// `zerolab::B& b`.
#define ZEROLAB_BENCHMARK(Name)                                                       \
  static void ZEROLAB_BENCH_CONCAT_(zerolab_benchmark_, Name)(::zerolab::B & b);      \
  static const ::zerolab::internal::Registration ZEROLAB_BENCH_CONCAT_(               \
      zerolab_registration_, Name){"Benchmark" #Name,                                 \
                                   &ZEROLAB_BENCH_CONCAT_(zerolab_benchmark_, Name)}; \
  static void ZEROLAB_BENCH_CONCAT_(zerolab_benchmark_, Name)([[maybe_unused]] ::zerolab::B & b)

#endif  // ZEROLAB_BENCH_HPP_
