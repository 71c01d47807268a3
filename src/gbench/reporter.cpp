// zerolab::gbench::MemoryReporter and run_main (include/zerolab/gbench.hpp).
//
// The console columns: each run goes to the wrapped console reporter alone,
// its output captured in a string (header lines included, colour codes as
// the reporter chose them), and the memory columns are inserted before the
// newline that ends the run's row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "gbench/counting.hpp"
#include "gbench/kept_results.hpp"
#include "zerolab/gbench.hpp"

// Google Benchmark's parsed flags: exported by libbenchmark (BENCHMARK_EXPORT
// in its src/commandlineflags.h), not declared in benchmark.h.
namespace benchmark {
extern std::string FLAGS_benchmark_out;
extern std::string FLAGS_benchmark_out_format;
}  // namespace benchmark

namespace zerolab::gbench {
namespace {

// Integers as integers; anything else with two decimals.
std::string format_number(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  }
  return buf;
}

void append_column(std::string& out, double value, int width, const char* unit) {
  char buf[96];
  std::snprintf(buf, sizeof buf, " %*s %s", width, format_number(value).c_str(), unit);
  out += buf;
}

}  // namespace

bool memory_figures(const benchmark::BenchmarkReporter::Run& run, MemoryFigures& out) {
  const benchmark::MemoryManager::Result* m = internal::kept_result(run);
  if (m == nullptr) m = run.memory_result;
  if (m == nullptr || run.error_occurred || run.report_big_o || run.report_rms ||
      run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) {
    return false;
  }
  // MemoryManager::TombstoneValue (the "not measured" mark) is INT64_MAX;
  // Debian's libbenchmark.so does not export the constant itself.
  constexpr std::int64_t kTomb = std::numeric_limits<std::int64_t>::max();
  out = MemoryFigures{};
  out.allocs_per_op = run.allocs_per_iter;
  out.max_bytes = static_cast<double>(m->max_bytes_used);
  if (m->net_heap_growth != kTomb) {
    out.has_net_heap = true;
    out.net_heap_bytes = static_cast<double>(m->net_heap_growth);
  }
  if (m->total_allocated_bytes != kTomb) {
    double iterations = 0;
    if (m->num_allocs > 0 && run.allocs_per_iter > 0) {
      iterations = std::round(static_cast<double>(m->num_allocs) / run.allocs_per_iter);
    } else {
      const std::int64_t threads = std::max<std::int64_t>(run.threads, 1);
      iterations = static_cast<double>(std::min<std::int64_t>(16, run.iterations / threads));
    }
    if (iterations >= 1) {
      out.has_bytes = true;
      out.bytes_per_op = static_cast<double>(m->total_allocated_bytes) / iterations;
    }
  }
  return true;
}

std::string format_memory_columns(const MemoryFigures& f) {
  std::string out;
  if (f.has_bytes) append_column(out, f.bytes_per_op, 10, "B/op");
  append_column(out, f.allocs_per_op, 10, "allocs/op");
  append_column(out, f.max_bytes, 10, "max-B");
  if (f.has_net_heap && f.net_heap_bytes != 0)
    append_column(out, f.net_heap_bytes, 1, "net-heap-B");
  return out;
}

MemoryReporter::MemoryReporter()
    : inner_(benchmark::CreateDefaultDisplayReporter()),
      console_(dynamic_cast<benchmark::ConsoleReporter*>(inner_) != nullptr) {}

MemoryReporter::MemoryReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner)
    : owned_(std::move(inner)),
      inner_(owned_.get()),
      console_(dynamic_cast<benchmark::ConsoleReporter*>(inner_) != nullptr) {}

MemoryReporter::~MemoryReporter() = default;

bool MemoryReporter::ReportContext(const Context& context) {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void MemoryReporter::ReportRuns(const std::vector<Run>& given) {
  // Point each report at the kept copy of its memory result (see
  // kept_results.hpp): Google Benchmark's own may have been freed.
  std::vector<Run> reports(given);
  for (Run& run : reports) {
    if (const benchmark::MemoryManager::Result* kept = internal::kept_result(run))
      run.memory_result = kept;
  }
  MemoryFigures figures;
  if (!console_ || std::none_of(reports.begin(), reports.end(),
                                [&figures](const Run& r) { return memory_figures(r, figures); })) {
    inner_->ReportRuns(reports);
    return;
  }
  std::ostream& out = GetOutputStream();
  for (const Run& run : reports) {
    if (!memory_figures(run, figures)) {
      inner_->SetOutputStream(&out);
      inner_->ReportRuns({run});
      continue;
    }
    std::ostringstream captured;
    inner_->SetOutputStream(&captured);
    inner_->ReportRuns({run});
    inner_->SetOutputStream(&out);
    std::string text = captured.str();
    const std::size_t eol = text.rfind('\n');
    const std::string columns = format_memory_columns(figures);
    if (eol == std::string::npos) {
      text += columns;
    } else {
      text.insert(eol, columns);
    }
    out << text;
  }
  out.flush();
}

void MemoryReporter::Finalize() {
  inner_->Finalize();
}

int run_main(int argc, char** argv) {
  const std::vector<char*> original(argv, argv + argc + 1);
  const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  const std::string program = slash != nullptr ? slash + 1 : (argc > 0 ? argv[0] : "benchmark");
  bool instructions = false;
  std::string error;
  if (!internal::take_measure_flag(argc, argv, instructions, error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 2;
  }
  if (instructions) {
    if (zerolab::internal::counting::is_child()) return internal::run_counting_child(argc, argv);
    return zerolab::internal::run_counting_parent(
        program, static_cast<int>(original.size()) - 1, const_cast<char**>(original.data()),
        zerolab::internal::Options{}, zerolab::internal::DumpProtocol::kLoopGroups);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  install_memory_manager();
  MemoryReporter display;
  // --benchmark_out's reporter too, for the formats that show the memory
  // figures (CSV does not; Google Benchmark makes that one itself).
  std::unique_ptr<MemoryReporter> file;
  const std::string& format = benchmark::FLAGS_benchmark_out_format;
  if (!benchmark::FLAGS_benchmark_out.empty() && (format == "json" || format == "console")) {
    std::unique_ptr<benchmark::BenchmarkReporter> inner;
    if (format == "json") {
      inner = std::make_unique<benchmark::JSONReporter>();
    } else {
      inner = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
    }
    file = std::make_unique<MemoryReporter>(std::move(inner));
  }
  benchmark::RunSpecifiedBenchmarks(&display, file.get());
  benchmark::Shutdown();
  return 0;
}

}  // namespace zerolab::gbench
