// zerolab::run_benchmark: one benchmark, one run, results as records
// (zerolab/bench_run.hpp). The same B machinery as bench_main, with a
// silent RunState that collects records instead of printing lines.
#include <cstdlib>

#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
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

  if (settings.count_instructions) {
    std::string why;
    if (!internal::counting::built_with_callgrind()) {
      why = "this build cannot count (built without valgrind/callgrind.h, or with a sanitizer)";
    } else if (!internal::counting::is_child() ||
               std::getenv(internal::counting::kDumpPrefixVariable) == nullptr) {
      why =
          "this process does not run under callgrind as a counting run's child, and "
          "run_benchmark cannot start valgrind for a function in this process";
    }
    if (!why.empty()) {
      RunReport refused;
      refused.failed = true;
      refused.failure_messages.push_back("counting instructions: " + why);
      refused.blocks.push_back(
          {benchfmt::BlockKind::kFail, std::string(name), refused.failure_messages});
      return refused;
    }
    options.measure = internal::Measure::kInstructions;
    if (options.benchtime.iterations <= 0)
      options.benchtime.iterations = internal::kDefaultCountingIterations;
  }

  internal::RunState state(options, "");
  state.silent = true;
  state.counting = settings.count_instructions;
  state.reads_own_dumps = settings.count_instructions;
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
