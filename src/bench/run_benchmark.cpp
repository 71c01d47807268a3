// zerolab::run_benchmark: one benchmark, one run, results as records
// (zerolab/bench_run.hpp). The same B machinery as bench_main, with a
// silent RunState that collects records instead of printing lines.
#include "bench/machine.hpp"
#include "bench/run_state.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/bench_run.hpp"

namespace zerolab {

RunReport run_benchmark(std::string_view name, const std::function<void(B&)>& function,
                        const RunSettings& settings) {
  internal::Options options;
  options.benchtime.duration = settings.benchtime;
  options.benchtime.iterations = settings.iterations;
  options.count = 1;
  options.cpus = {settings.cpu > 0 ? settings.cpu : internal::available_cpus()};
  options.benchmem = settings.benchmem;
  options.faults = settings.faults;
  options.heap = settings.heap;
  options.exact_memory = settings.exact_memory;

  internal::RunState state(options, "");
  state.silent = true;
  B root(&state, "", nullptr, 0);
  root.run(name, function);

  RunReport report;
  report.failed = state.any_failed;
  report.results = std::move(state.results);
  bool any_skip = false;
  for (const auto& block : state.blocks) {
    const bool failure = block.kind == benchfmt::BlockKind::kFail;
    any_skip = any_skip || block.kind == benchfmt::BlockKind::kSkip;
    auto& into = failure ? report.failure_messages : report.log_lines;
    into.insert(into.end(), block.lines.begin(), block.lines.end());
  }
  report.skipped = !report.failed && report.results.empty() && any_skip;
  report.blocks = std::move(state.blocks);
  return report;
}

}  // namespace zerolab
