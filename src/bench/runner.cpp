// zerolab::bench_main: parses the flags, runs the selected benchmarks in
// registration order and prints the Go benchmark format (Go's
// runBenchmarks + processBench).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "alloc_hooks/alloc_stats.hpp"
#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "bench/machine.hpp"
#include "bench/options.hpp"
#include "bench/profiles.hpp"
#include "bench/registry.hpp"
#include "bench/run_state.hpp"
#include "bench/signals.hpp"
#include "bench/std_streams.hpp"
#include "files/atomic_file.hpp"
#include "text/quote.hpp"
#include "zerolab/bench.hpp"

namespace zerolab {
namespace internal {
namespace {

std::string base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? std::string(slash + 1) : std::string(path);
}

}  // namespace

RunState::RunState(Options opts, std::string pkg)
    : options(std::move(opts)), package(std::move(pkg)) {
  if (options.cpus.empty()) options.cpus.push_back(available_cpus());
  procs = available_cpus();
  matcher.set_pattern(options.bench);
  count_allocs = alloc_stats::available();
}

void RunState::emit(const std::string& text) {
  if (silent) {
    file_output += text;
    return;
  }
  write_stdout(text);
  if (!options.output_file.empty()) file_output += text;
}

void RunState::report_block(benchfmt::BlockKind kind, const std::string& name,
                            const std::vector<std::string>& lines) {
  blocks.push_back({kind, name, lines});
  emit(benchfmt::format_message_block(blocks.back()));
}

void RunState::print_labels_once() {
  if (labels_printed || silent) return;
  labels_printed = true;
  std::string text = "goos: linux\ngoarch: " + std::string(goarch()) + "\n";
  if (!package.empty()) text += "pkg: " + package + "\n";
  if (const std::string cpu = cpu_model(); !cpu.empty()) text += "cpu: " + cpu + "\n";
  emit(text);
}

}  // namespace internal

namespace {

// The harness without the standard streams' bookkeeping; run_all runs every
// registered benchmark under the root B (only bench_main may make one).
int run_benchmarks(const std::string& program, int argc, char** argv,
                   const std::function<void(internal::RunState&)>& run_all) {
  using namespace internal;
  Options options;
  std::string error;
  if (!parse_options(argc, argv, options, error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(usage_text(program).c_str(), stdout);
    return 0;
  }
  if (options.list) {
    NameMatcher list_matcher;
    list_matcher.set_pattern(*options.list);
    for (const auto& entry : registered_benchmarks()) {
      if (list_matcher.matches(entry.name)) std::printf("%s\n", entry.name.c_str());
    }
    return 0;
  }

  // Output paths first: an unwritable -o or profile path is a usage error
  // before anything runs. "-o -" is stdout, where the results go anyway.
  if (options.output_file == "-") options.output_file.clear();
  if (!options.output_file.empty() && !check_output_path(options.output_file, {}, error)) {
    std::fprintf(stderr, "%s: -o: %s\n", program.c_str(), error.c_str());
    return 2;
  }
  const bool counting_child = options.measure == Measure::kInstructions && counting::is_child();
  if (options.measure == Measure::kInstructions && !counting_child) {
    return run_counting_parent(program, argc, argv, options);
  }
  if (counting_child) {
    options.output_file.clear();  // the parent writes -o, with the counts
    if (options.benchtime.iterations <= 0)
      options.benchtime.iterations = kDefaultCountingIterations;
  }
  ProfileSession profiles;
  if (!profiles.start(options, error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 2;
  }

  RunState state(options, program);
  state.counting = counting_child;
  if (state.options.benchmem && !state.count_allocs) {
    std::fprintf(stderr,
                 "%s: allocation counting is off: link zerolab::alloc_hooks (or "
                 "zerolab::bench_main) to get B/op and allocs/op\n",
                 program.c_str());
  }
  signals::install();

  // Column width as Go computes it: the longest selected name with the
  // largest -cpu suffix, plus room for one more suffix.
  int max_procs = 1;
  for (const int p : state.options.cpus) max_procs = std::max(max_procs, p);
  const std::size_t suffix_len = max_procs == 1 ? 0 : std::to_string(max_procs).size() + 1;
  bool any_selected = false;
  for (const auto& entry : registered_benchmarks()) {
    if (!state.matcher.matches(entry.name)) continue;
    any_selected = true;
    state.max_name_len = std::max(state.max_name_len, entry.name.size() + 2 * suffix_len + 1);
  }
  if (!any_selected) {  // Go's "testing: warning: no tests to run", for benchmarks
    std::fprintf(stderr, "%s: warning: no benchmarks to run (-bench %s matches none)\n",
                 program.c_str(), quote_text(state.options.bench).c_str());
  }

  run_all(state);
  state.emit(state.any_failed ? "FAIL\n" : "PASS\n");
  if (!profiles.finish(error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 1;
  }

  if (!state.options.output_file.empty() &&
      !write_file_atomically(state.options.output_file, state.file_output, error)) {
    std::fprintf(stderr, "%s: -o: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  return state.any_failed ? 1 : 0;
}

}  // namespace

int bench_main(int argc, char** argv) {
  internal::reserve_standard_fds();
  const std::string program = argc > 0 ? internal::base_name(argv[0]) : "bench";
  auto run_all = [](internal::RunState& state) {
    B root(&state, "", nullptr, 0);
    for (const auto& entry : internal::registered_benchmarks())
      root.run(entry.name, entry.function);
  };
  return internal::finish_stdout(program, run_benchmarks(program, argc, argv, run_all));
}

}  // namespace zerolab
