// run_benchmark in counting mode (RunSettings::count_instructions), run by
// counting_test.cpp. Started plainly, it runs itself again as a counting
// run's child (run_self_counting) and prints what the child printed; the
// child counts two hand-written loops through run_benchmark and prints
// their records in the Go benchmark format. With "in-process" it calls
// run_benchmark where it is, outside callgrind, and prints the refusal.
//
// Example:
//   ./counting_run_benchmark_fixture            # BenchmarkAdds3 ... instructions/op
//   ./counting_run_benchmark_fixture in-process  # the reason it cannot count here
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "add_loops.hpp"
#include "bench/counting.hpp"
#include "bench/counting_run.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/bench_run.hpp"
#include "zerolab/benchfmt.hpp"

namespace {

void three_adds(zerolab::B& b) {
  std::uint64_t x = 0;
  for (auto _ : b.loop()) zerolab::test::three_adds(x);
  zerolab::do_not_optimize(x);
}

void ten_adds(zerolab::B& b) {
  std::uint64_t x = 0;
  for (auto _ : b.loop()) zerolab::test::ten_adds(x);
  zerolab::do_not_optimize(x);
}

// Counts both benchmarks and prints their records; 1 when one failed.
int count_both() {
  zerolab::RunSettings settings;
  settings.count_instructions = true;
  settings.iterations = 20;
  int code = 0;
  for (const auto& [name, function] :
       {std::pair{"BenchmarkAdds3", &three_adds}, std::pair{"BenchmarkAdds10", &ten_adds}}) {
    const zerolab::RunReport report = zerolab::run_benchmark(name, function, settings);
    for (const auto& message : report.failure_messages) std::printf("FAIL: %s\n", message.c_str());
    if (report.failed) code = 1;
    for (const auto& r : report.results)
      std::printf("%s\n", zerolab::benchfmt::format_result_line(r, 0).c_str());
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  if (zerolab::internal::counting::is_child() ||
      (argc > 1 && std::strcmp(argv[1], "in-process") == 0)) {
    return count_both();
  }
  std::string out, error;
  const bool ok = zerolab::internal::run_self_counting({}, out, error);
  std::fputs(out.c_str(), stdout);
  if (!ok) {
    std::fprintf(stderr, "counting_run_benchmark_fixture: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
