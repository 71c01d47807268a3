// zerolab::B: timers, metrics, calibration, b.loop(), sub-benchmarks and
// run_parallel, following Go's testing/benchmark.go step by step.
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "alloc_hooks/alloc_stats.hpp"
#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "bench/run_state.hpp"
#include "bench/signals.hpp"
#include "profile/profile_gate.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab {
namespace {

using std::chrono::nanoseconds;
__extension__ using Int128 = __int128;
using Clock = std::chrono::steady_clock;

// Go's predictN: the iteration count expected to take goal_ns, given that
// prev_iters took prev_ns; 1.2x headroom, at most 100x growth, at least one
// more than last, at most 1e9.
std::int64_t predict_n(std::int64_t goal_ns, std::int64_t prev_iters, std::int64_t prev_ns,
                       std::int64_t last) {
  if (prev_ns == 0) prev_ns = 1;
  // Multiply first: for fast benchmarks prev_iters ~ prev_ns.
  Int128 n = static_cast<Int128>(goal_ns) * prev_iters / prev_ns;
  n += n / 5;
  n = std::min<Int128>(n, static_cast<Int128>(100) * last);
  n = std::max<Int128>(n, last + 1);
  n = std::min<Int128>(n, 1000000000);
  return static_cast<std::int64_t>(n);
}

std::string benchmark_name(const std::string& name, int procs) {
  return procs == 1 ? name : name + "-" + std::to_string(procs);
}

}  // namespace

// ---- construction ------------------------------------------------------------

B::B(internal::RunState* state, std::string name, std::function<void(B&)> function, int depth)
    : state_(state), name_(std::move(name)), function_(std::move(function)), depth_(depth) {}

B::~B() = default;

// ---- timers ------------------------------------------------------------------

B::Counters B::read_counters() {
  Counters c;
  const auto totals = internal::alloc_stats::totals();
  c.allocs = totals.allocs;
  c.bytes = totals.bytes;
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    c.faults =
        static_cast<std::uint64_t>(usage.ru_minflt) + static_cast<std::uint64_t>(usage.ru_majflt);
  }
  return c;
}

void B::start_timer() {
  if (timer_on_) return;
  start_counters_ = read_counters();
  timer_on_ = true;
  internal::profile::set_timer_running(true);
  start_ = Clock::now();
  // Last, so the counting run counts as little of the harness as it can.
  if (state_->counting) internal::counting::collect_on();
}

void B::stop_timer() {
  if (!timer_on_) return;
  if (state_->counting) internal::counting::collect_off();
  duration_ += Clock::now() - start_;
  internal::profile::set_timer_running(false);
  const Counters now = read_counters();
  net_.allocs += now.allocs - start_counters_.allocs;
  net_.bytes += now.bytes - start_counters_.bytes;
  net_.faults += now.faults - start_counters_.faults;
  timer_on_ = false;
}

void B::reset_timer() {
  extra_.clear();
  if (timer_on_) {
    start_counters_ = read_counters();
    start_ = Clock::now();
  }
  duration_ = nanoseconds(0);
  net_ = Counters{};
  if (state_->counting) internal::counting::zero_counts();
}

nanoseconds B::elapsed() const {
  nanoseconds d = duration_;
  if (timer_on_) d += Clock::now() - start_;
  return d;
}

// ---- metrics and messages ------------------------------------------------------

void B::report_metric(double value, std::string_view unit) {
  if (unit.empty()) fatal("report_metric: metric unit must not be empty");
  if (std::any_of(unit.begin(), unit.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
    fatal("report_metric: metric unit must not contain whitespace");
  }
  extra_.insert_or_assign(std::string(unit), value);
}

void B::report_heap() {
  heap_requested_ = true;
  heap_started_ = true;
  heap_before_ = internal::alloc_stats::heap_in_use();
  internal::alloc_stats::heap_tracking(true);
}

void B::fatal(std::string_view message) {
  failed_ = true;
  log(message);
  throw internal::BenchmarkExit{false};
}

void B::skip(std::string_view message) {
  skipped_ = true;
  log(message);
  throw internal::BenchmarkExit{true};
}

void B::log(std::string_view message) {
  internal::alloc_stats::ScopedPause pause;
  output_.emplace_back(message);
}

// ---- b.loop() ------------------------------------------------------------------

bool LoopRange::Iterator::slow_path() {
  return b_->loop_slow_path(i_, n_);
}

bool B::loop_slow_path(std::uint64_t& i, std::uint64_t& n) {
  if (!timer_on_) fatal("B.loop called with timer stopped");
  const internal::BenchTime& bt = state_->options.benchtime;
  if (n == 0) {
    // First call: start counting from here, so setup is not measured.
    if (counting_pass_n_ > 0) {
      n = counting_pass_n_;
    } else {
      n = bt.iterations > 0 ? static_cast<std::uint64_t>(bt.iterations) : 1;
    }
    n_ = 0;
    reset_timer();
    i = 1;
    loop_n_ = n;
    return true;
  }
  bool more = false;
  if (bt.iterations == 0) more = stop_or_scale_loop(n);
  if (!more) {
    stop_timer();
    n_ = static_cast<std::int64_t>(n);
    loop_n_ = n;
    loop_done_ = true;
    return false;
  }
  ++i;
  return true;
}

bool B::stop_or_scale_loop(std::uint64_t& n) {
  const nanoseconds t = elapsed();
  const nanoseconds goal = state_->options.benchtime.duration;
  if (t >= goal) return false;
  const auto previous = static_cast<std::int64_t>(n);
  n = static_cast<std::uint64_t>(predict_n(goal.count(), previous, t.count(), previous));
  loop_n_ = n;
  // predict_n caps at 1e9; stop once the cap is reached.
  return static_cast<std::uint64_t>(previous) < n;
}

// ---- one run of the function -----------------------------------------------------

void B::run_n(std::int64_t n) {
  n_ = n;
  loop_n_ = 0;
  loop_done_ = false;
  parallelism_ = 1;
  heap_requested_ = false;
  heap_started_ = false;
  heap_metrics_.clear();
  if (state_->options.heap && !has_sub_) {
    heap_started_ = true;
    heap_before_ = internal::alloc_stats::heap_in_use();
    internal::alloc_stats::heap_tracking(true);
  }
  internal::signals::set_current_benchmark(name_);
  reset_timer();
  start_timer();
  try {
    function_(*this);
  } catch (const internal::BenchmarkExit& exit) {
    if (!exit.skipped) failed_ = true;
    finished_ = true;
  } catch (const std::exception& e) {
    failed_ = true;
    log(std::string("benchmark threw an exception: ") + e.what());
  } catch (...) {
    failed_ = true;
    log("benchmark threw an exception of unknown type");
  }
  stop_timer();
  internal::signals::set_current_benchmark("");
  if (heap_started_) {
    const std::int64_t peak = internal::alloc_stats::heap_peak_growth();
    internal::alloc_stats::heap_tracking(false);
    const std::uint64_t after = internal::alloc_stats::heap_in_use();
    internal::alloc_stats::ScopedPause pause;
    const auto before = static_cast<double>(heap_before_);
    heap_metrics_["heap-before-B"] = before;
    heap_metrics_["heap-peak-B"] = before + static_cast<double>(std::max<std::int64_t>(peak, 0));
    heap_metrics_["heap-after-B"] = static_cast<double>(after);
    heap_metrics_["heap-leaked-B"] = static_cast<double>(after) - before;
  }
  previous_n_ = n_;
  previous_duration_ = duration_;
  if (loop_n_ > 0 && !loop_done_ && !failed_ && !skipped_) {
    failed_ = true;
    log("benchmark function returned without b.loop() ending (break or return in the loop?)");
  }
}

// ---- sub-benchmarks ---------------------------------------------------------------

bool B::run(std::string_view name, const std::function<void(B&)>& function) {
  has_sub_ = true;
  const auto match = state_->matcher.full_name(name_, name, depth_);
  if (!match.ok) return true;
  B sub(state_, match.name, function, depth_ + 1);
  sub.partial_match_ = match.partial;
  if (match.partial) sub.has_sub_ = true;  // only its sub-benchmarks can match
  const bool timer_was_on = timer_on_;
  stop_timer();
  if (sub.run1()) sub.process_bench();
  if (timer_was_on) start_timer();
  internal::signals::set_current_benchmark(name_);
  if (sub.failed_) failed_ = true;
  return !sub.failed_;
}

bool B::run1() {
  run_n(1);
  if (failed_) {
    state_->any_failed = true;
    state_->report_block(benchfmt::BlockKind::kFail, name_, output_);
    return false;
  }
  if (skipped_) {
    state_->report_block(benchfmt::BlockKind::kSkip, name_, output_);
    return false;
  }
  if (has_sub_ || finished_) return false;
  return true;
}

void B::launch() {
  if (state_->counting) {
    launch_counting();
    return;
  }
  const internal::BenchTime& bt = state_->options.benchtime;
  // b.loop() ramps up inside its single call; nothing more to run.
  if (loop_n_ == 0) {
    if (bt.iterations > 0) {
      // run1 already ran one iteration; -benchtime 1x uses that result.
      if (bt.iterations > 1) run_n(bt.iterations);
    } else {
      const std::int64_t goal = bt.duration.count();
      for (std::int64_t n = 1;
           !failed_ && !skipped_ && duration_.count() < goal && n < 1000000000;) {
        const std::int64_t last = n;
        n = predict_n(goal, n_, duration_.count(), last);
        run_n(n);
      }
    }
  }
  result_n_ = n_;
  result_duration_ = duration_;
  result_net_ = net_;
}

void B::launch_counting() {
  // Two passes, of N and 2N iterations; the parent reports the difference
  // over N, so what a pass spends once (the timer calls, entering and
  // leaving the loop, setup timed in a b.n() loop) cancels out.
  const std::int64_t n = std::max<std::int64_t>(state_->options.benchtime.iterations, 1);
  const std::string bench_name = benchmark_name(name_, state_->procs);
  Counters first;
  state_->last_counts.clear();
  for (std::int64_t pass = 1; pass <= 2; ++pass) {
    counting_pass_n_ = static_cast<std::uint64_t>(n * pass);
    run_n(n * pass);
    if (failed_ || skipped_) break;
    internal::counting::dump_counts("zerolab-bench pass " + std::to_string(pass) + " n " +
                                    std::to_string(n * pass) + " " + bench_name);
    if (pass == 1) first = net_;
  }
  counting_pass_n_ = 0;
  if (state_->reads_own_dumps && !failed_ && !skipped_) {
    internal::CallgrindDump pass1, pass2;
    const int last = internal::counting::dumps_written();
    std::string error;
    if (!internal::counting::read_own_dump(last - 1, pass1, error) ||
        !internal::counting::read_own_dump(last, pass2, error)) {
      failed_ = true;
      log("counting: " + error);
    } else {
      state_->last_counts = internal::counts_per_op(pass1, pass2, n);
    }
  }
  auto minus = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; };
  result_n_ = n;
  result_duration_ = nanoseconds(0);
  result_net_.allocs = minus(net_.allocs, first.allocs);
  result_net_.bytes = minus(net_.bytes, first.bytes);
  result_net_.faults = 0;
}

void B::process_bench() {
  state_->print_labels_once();
  std::vector<int> cpus = state_->options.cpus;
  const int saved_procs = state_->procs;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    for (int j = 0; j < state_->options.count; ++j) {
      state_->procs = cpus[i];
      const std::string bench_name = benchmark_name(name_, cpus[i]);
      std::string prefix = bench_name;
      if (prefix.size() < state_->max_name_len)
        prefix.append(state_->max_name_len - prefix.size(), ' ');
      prefix += '\t';
      state_->emit(prefix);

      B fresh(state_, name_, function_, depth_);
      B& b = (i > 0 || j > 0) ? fresh : *this;
      bool ran = true;
      if (&b == &fresh) ran = fresh.run1_silent();
      if (ran) b.launch();
      if (b.failed_) {
        state_->any_failed = true;
        state_->report_block(benchfmt::BlockKind::kFail, bench_name, b.output_);
        state_->procs = saved_procs;
        return;
      }
      if (b.skipped_) {
        state_->report_block(benchfmt::BlockKind::kSkip, bench_name, b.output_);
        continue;
      }
      state_->emit(b.result_line(bench_name) + "\n");
      state_->results.push_back(b.result_record(bench_name));
      if (!b.output_.empty()) {
        state_->report_block(benchfmt::BlockKind::kBench, bench_name, b.output_);
      }
    }
  }
  state_->procs = saved_procs;
}

bool B::run1_silent() {
  run_n(1);
  return !failed_ && !skipped_;
}

std::string B::result_line(const std::string& bench_name) const {
  const std::string line = benchfmt::format_result_line(result_record(bench_name), 0);
  // The runner already printed the padded name and its tab.
  return line.substr(bench_name.size() + 1);
}

benchfmt::Result B::result_record(const std::string& bench_name) const {
  benchfmt::Result r;
  r.name = bench_name;
  r.iterations = result_n_;
  const double n = result_n_ > 0 ? static_cast<double>(result_n_) : 1.0;

  double ns = static_cast<double>(result_duration_.count()) / n;
  if (const auto it = extra_.find("ns/op"); it != extra_.end()) ns = it->second;
  // A counting run's times are callgrind's: not reported.
  if (result_n_ <= 0 || state_->counting) ns = 0;
  if (ns != 0) r.metrics.push_back({ns, "ns/op"});
  // run_benchmark's counting child: the counts first, where the counting
  // parent puts them in a printed line.
  if (state_->reads_own_dumps) {
    r.metrics.insert(r.metrics.end(), state_->last_counts.begin(), state_->last_counts.end());
  }

  double mbs = 0;
  if (const auto it = extra_.find("MB/s"); it != extra_.end()) {
    mbs = it->second;
  } else if (bytes_ > 0 && result_duration_.count() > 0 && result_n_ > 0) {
    mbs = static_cast<double>(bytes_) * static_cast<double>(result_n_) / 1e6 /
          (static_cast<double>(result_duration_.count()) / 1e9);
  }
  if (mbs != 0 && !state_->counting) r.metrics.push_back({mbs, "MB/s"});

  // Custom metrics, the harness's faults/op and heap metrics, sorted by unit.
  std::map<std::string, double, std::less<>> extras;
  if (state_->options.faults && !state_->counting) {
    extras["faults/op"] = static_cast<double>(result_net_.faults) / n;
  }
  const bool memory = (state_->options.benchmem || report_allocs_) && state_->count_allocs;
  if (memory && state_->options.exact_memory && result_n_ > 0) {
    extras["mallocs/op"] = static_cast<double>(result_net_.allocs) / n;
    extras["malloc-B/op"] = static_cast<double>(result_net_.bytes) / n;
  }
  for (const auto& [unit, value] : heap_metrics_) extras[unit] = value;
  for (const auto& [unit, value] : extra_) extras.insert_or_assign(unit, value);
  for (const auto& [unit, value] : extras) {
    if (unit == "ns/op" || unit == "MB/s" || unit == "B/op" || unit == "allocs/op") continue;
    r.metrics.push_back({value, unit});
  }

  if (memory) {
    // Go prints these two as integers, truncated; exact_memory's units above
    // carry the fractions.
    double bytes = 0;
    double allocs = 0;
    if (result_n_ > 0) {
      const auto runs = static_cast<std::uint64_t>(result_n_);
      const std::uint64_t whole_bytes = result_net_.bytes / runs;  // truncated, as Go's
      const std::uint64_t whole_allocs = result_net_.allocs / runs;
      bytes = static_cast<double>(whole_bytes);
      allocs = static_cast<double>(whole_allocs);
    }
    if (const auto it = extra_.find("B/op"); it != extra_.end()) bytes = it->second;
    if (const auto it = extra_.find("allocs/op"); it != extra_.end()) allocs = it->second;
    r.metrics.push_back({bytes, "B/op"});
    r.metrics.push_back({allocs, "allocs/op"});
  }
  return r;
}

// ---- run_parallel -----------------------------------------------------------------

void B::run_parallel_impl(void (*call)(void*, PB&), void* context) {
  if (n_ == 0) return;  // nothing to do while probing
  // A grain of about 100µs of iterations amortizes the counter, and at most
  // 1e4 iterations keeps the load balanced.
  std::uint64_t grain = 0;
  if (previous_n_ > 0 && previous_duration_.count() > 0) {
    grain = static_cast<std::uint64_t>(100000.0 * static_cast<double>(previous_n_) /
                                       static_cast<double>(previous_duration_.count()));
  }
  grain = std::clamp<std::uint64_t>(grain, 1, 10000);
  const int threads = parallelism_ * std::max(1, state_->procs);
  if (state_->counting) {
    // Under callgrind, which runs one thread at a time anyway, the workers'
    // bodies run one after another on this thread, each with its share of
    // the n iterations: the counts then do not depend on which worker took
    // which grain or on how long this thread waited, and they reach the
    // pass's dump (a worker thread's counts could reach the next one).
    const auto t = static_cast<std::uint64_t>(threads);
    const auto n = static_cast<std::uint64_t>(n_);
    bool exited_early = false;
    for (std::uint64_t w = 0; w < t; ++w) {
      const std::uint64_t share = n / t + (w < n % t ? 1 : 0);
      std::atomic<std::uint64_t> counter{0};
      PB pb(&counter, std::max<std::uint64_t>(share, 1), share);
      call(context, pb);
      exited_early = exited_early || counter.load() <= share;
    }
    if (exited_early && !failed_) fatal("run_parallel: body exited without pb.next() == false");
    return;
  }

  struct Shared {
    std::atomic<std::uint64_t> counter{0};
    std::uint64_t grain;
    std::uint64_t n;
    void (*call)(void*, PB&);
    void* context;
  } shared;
  shared.grain = grain;
  shared.n = static_cast<std::uint64_t>(n_);
  shared.call = call;
  shared.context = context;

  state_->pool.run(
      threads,
      [](void* p, int) {
        auto* s = static_cast<Shared*>(p);
        PB pb(&s->counter, s->grain, s->n);
        s->call(s->context, pb);
      },
      &shared);
  if (shared.counter.load() <= shared.n && !failed_) {
    fatal("run_parallel: body exited without pb.next() == false");
  }
}

}  // namespace zerolab
