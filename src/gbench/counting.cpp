// Google Benchmark's loop, counted under callgrind (counting.hpp).
#include "gbench/counting.hpp"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bench/counting.hpp"
#include "zerolab/benchfmt.hpp"
#include "zerolab/gbench.hpp"

// Google Benchmark's parsed flags, exported by libbenchmark.
namespace benchmark {
extern double FLAGS_benchmark_min_time;
extern std::int32_t FLAGS_benchmark_repetitions;
}  // namespace benchmark

namespace zerolab::gbench::internal {
namespace {

namespace counting = zerolab::internal::counting;

bool g_counting = false;  // set once, before any benchmark runs
thread_local bool t_collecting = false;

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
  benchmark::RunSpecifiedBenchmarks(&reporter);
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
    zerolab::internal::counting::dump_counts("zerolab-gbench loop n " +
                                             std::to_string(max_iterations));
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
