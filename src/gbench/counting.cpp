// Google Benchmark's loop, counted under callgrind (counting.hpp).
#include "gbench/counting.hpp"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/callgrind_dump.hpp"
#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "zerolab/benchfmt.hpp"
#include "zerolab/gbench.hpp"

// Google Benchmark's parsed flags, exported by libbenchmark.
namespace benchmark {
extern double FLAGS_benchmark_min_time;
extern std::int32_t FLAGS_benchmark_repetitions;
extern std::string FLAGS_benchmark_out;
extern std::string FLAGS_benchmark_out_format;
}  // namespace benchmark

namespace zerolab::gbench::internal {
namespace {

namespace counting = zerolab::internal::counting;

bool g_counting = false;  // set once, before any benchmark runs
thread_local bool t_collecting = false;

// With --benchmark_out: the loops dumped since the last result, as
// (iterations, dump index), and each result's counts by name, which the
// file's reporter adds to its runs.
std::mutex g_loops_mu;
std::vector<std::pair<std::int64_t, int>> g_loop_dumps;
bool g_keep_counts = false;
std::map<std::string, std::vector<benchfmt::Metric>> g_counts;

// The counts of the loops dumped since the last result (empty, with the
// reason on stderr, when they cannot be read).
std::vector<benchfmt::Metric> counts_of_recorded_loops(const std::string& name) {
  std::vector<std::pair<std::int64_t, int>> recorded;
  {
    std::lock_guard lock(g_loops_mu);
    recorded.swap(g_loop_dumps);
  }
  std::vector<std::pair<std::int64_t, zerolab::internal::CallgrindDump>> loops;
  std::string error;
  for (const auto& [iterations, index] : recorded) {
    zerolab::internal::CallgrindDump dump;
    if (!counting::read_own_dump(index, dump, error)) break;
    loops.emplace_back(iterations, std::move(dump));
  }
  std::vector<benchfmt::Metric> counts;
  if (error.empty()) zerolab::internal::counts_from_loops(loops, counts, error);
  if (!error.empty()) {
    std::fprintf(stderr, "zerolab::gbench: --benchmark_out: %s: %s\n", name.c_str(), error.c_str());
    counts.clear();
  }
  return counts;
}

// --benchmark_out's reporter in the counting child: each run as Google
// Benchmark's own reporter writes it, with the counts per op as counters
// ("instructions/op" ...) and its times 0 (a time under callgrind is not
// a measurement).
class CountsFileReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit CountsFileReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner)
      : inner_(std::move(inner)) {}

  bool ReportContext(const Context& context) override {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }

  void ReportRuns(const std::vector<Run>& given) override {
    std::vector<Run> runs(given);
    for (Run& run : runs) {
      run.real_accumulated_time = 0;
      run.cpu_accumulated_time = 0;
      const auto it = g_counts.find("Benchmark" + run.benchmark_name());
      if (it == g_counts.end()) continue;
      for (const benchfmt::Metric& m : it->second)
        run.counters[m.unit] = benchmark::Counter(m.value);
    }
    inner_->ReportRuns(runs);
  }

  void Finalize() override { inner_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
};

using StateFunction = void (*)(benchmark::State*);

StateFunction real_function(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) {
    std::fprintf(stderr, "zerolab::gbench: libbenchmark has no %s\n", mangled);
    std::abort();
  }
  return reinterpret_cast<StateFunction>(f);
}

void collect(bool on) {
  if (t_collecting == on) return;
  t_collecting = on;
  if (on) {
    counting::collect_on();
  } else {
    counting::collect_off();
  }
}

// Prints each benchmark's run as a Go benchmark format line, after a dump
// that marks where its loops end.
class GoLineReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit GoLineReporter(std::string package) : package_(std::move(package)) {}

  bool ReportContext(const Context&) override {
    std::string header = "goos: linux\ngoarch: amd64\n";
    if (!package_.empty()) header += "pkg: " + package_ + "\n";
    print(header);
    return true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      const std::string name = "Benchmark" + run.benchmark_name();
      if (run.error_occurred) {
        failed_ = true;
        print("--- FAIL: " + name + "\n    " + run.error_message + "\n");
        continue;
      }
      counting::dump_counts("zerolab-gbench end " + name);
      if (g_keep_counts) g_counts[name] = counts_of_recorded_loops(name);
      benchfmt::Result result;
      result.name = name;
      result.iterations = run.iterations;
      MemoryFigures figures;
      if (memory_figures(run, figures)) {
        if (figures.has_bytes) result.metrics.push_back({figures.bytes_per_op, "B/op"});
        result.metrics.push_back({figures.allocs_per_op, "allocs/op"});
      }
      print(benchfmt::format_result_line(result, 0) + "\n");
    }
  }

  void Finalize() override { print(failed_ ? "FAIL\n" : "PASS\n"); }

 private:
  static void print(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

  std::string package_;
  bool failed_ = false;
};

}  // namespace

bool take_measure_flag(int& argc, char** argv, bool& instructions, std::string& error) {
  instructions = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool matched = false;
    for (std::string_view prefix : {"--benchmark_measure", "-benchmark_measure"}) {
      if (arg == prefix && i + 1 < argc) {
        value = argv[++i];
        matched = true;
      } else if (arg.substr(0, prefix.size() + 1) == std::string(prefix) + "=") {
        value = arg.substr(prefix.size() + 1);
        matched = true;
      }
      if (matched) break;
    }
    if (!matched) {
      argv[out++] = argv[i];
      continue;
    }
    if (value == "instructions") {
      instructions = true;
    } else if (value == "time") {
      instructions = false;
    } else {
      error = "invalid value \"" + std::string(value) +
              "\" for flag --benchmark_measure: must be time or instructions";
      return false;
    }
  }
  argc = out;
  argv[argc] = nullptr;
  return true;
}

int run_counting_child(int argc, char** argv) {
  bool min_time_given = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strstr(argv[i], "benchmark_min_time") != nullptr) min_time_given = true;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!min_time_given) benchmark::FLAGS_benchmark_min_time = 0.05;
  benchmark::FLAGS_benchmark_repetitions = 1;
  install_memory_manager();
  g_counting = true;
  const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  GoLineReporter reporter(slash != nullptr ? slash + 1 : (argc > 0 ? argv[0] : ""));
  // --benchmark_out: the file Google Benchmark would write, in its format,
  // with the counts.
  std::unique_ptr<benchmark::BenchmarkReporter> file;
  if (!benchmark::FLAGS_benchmark_out.empty()) {
    const std::string& format = benchmark::FLAGS_benchmark_out_format;
    std::unique_ptr<benchmark::BenchmarkReporter> inner;
    if (format == "json") {
      inner = std::make_unique<MemoryReporter>(std::make_unique<benchmark::JSONReporter>());
    } else if (format == "console") {
      inner = std::make_unique<MemoryReporter>(
          std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None));
    } else if (format == "csv") {
// Deprecated in Google Benchmark, still what it writes for
// --benchmark_out_format=csv.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      inner = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    } else {
      std::fprintf(stderr,
                   "zerolab::gbench: unexpected --benchmark_out_format \"%s\": must be json, "
                   "console or csv\n",
                   format.c_str());
      return 2;
    }
    file = std::make_unique<CountsFileReporter>(std::move(inner));
    g_keep_counts = true;
  }
  benchmark::RunSpecifiedBenchmarks(&reporter, file.get());
  benchmark::Shutdown();
  return 0;
}

}  // namespace zerolab::gbench::internal

// libbenchmark's loop entry points, seen from the executable. Each calls
// the library's own; only the counting child does more.
namespace benchmark {

using zerolab::gbench::internal::collect;
using zerolab::gbench::internal::g_counting;
using zerolab::gbench::internal::real_function;

void State::StartKeepRunning() {
  static const auto real = real_function("_ZN9benchmark5State16StartKeepRunningEv");
  real(this);
  if (g_counting) {
    zerolab::internal::counting::zero_counts();
    collect(true);
  }
}

void State::FinishKeepRunning() {
  static const auto real = real_function("_ZN9benchmark5State17FinishKeepRunningEv");
  if (g_counting) {
    collect(false);
    std::lock_guard lock(zerolab::gbench::internal::g_loops_mu);
    zerolab::internal::counting::dump_counts("zerolab-gbench loop n " +
                                             std::to_string(max_iterations));
    if (zerolab::gbench::internal::g_keep_counts) {
      zerolab::gbench::internal::g_loop_dumps.emplace_back(
          static_cast<std::int64_t>(max_iterations), zerolab::internal::counting::dumps_written());
    }
  }
  real(this);
}

void State::PauseTiming() {
  static const auto real = real_function("_ZN9benchmark5State11PauseTimingEv");
  if (g_counting) collect(false);
  real(this);
}

void State::ResumeTiming() {
  static const auto real = real_function("_ZN9benchmark5State12ResumeTimingEv");
  real(this);
  if (g_counting) collect(true);
}

}  // namespace benchmark
