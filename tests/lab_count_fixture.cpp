// A one-experiment lab for lab_count_test.cpp: `lab_count_fixture DIR`
// runs the experiment the way `zerolab lab --measure=instructions` does
// (one quick timed run, then the counted claims' benchmarks under
// callgrind) and writes report.md and report.html into DIR. The same
// executable is the counting child (run_counting_child_if_asked).
//
// Example:
//   ./lab_count_fixture /tmp/out && grep -A3 'Counts per op' /tmp/out/report.md
#include <cstdint>
#include <cstdio>
#include <vector>

#include "add_loops.hpp"
#include "lab/framework/counts.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/lab_run.hpp"
#include "lab_test_experiment.hpp"
#include "zerolab/bench.hpp"

namespace {

using zerolab::lab::Claim;
using zerolab::lab::Experiment;

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

Experiment count_experiment() {
  Experiment e = lab_test_util::experiment("adds", "ten adds against three");
  e.benchmarks = {{"BenchmarkAdds/n=10", &ten_adds}, {"BenchmarkAdds/n=3", &three_adds}};
  e.claims = {
      Claim::is_faster({"three adds do less work than ten", "", ""}, "BenchmarkAdds/n=10",
                       "BenchmarkAdds/n=3")
          .counted(),
      Claim::is_faster({"three adds take less time than ten", "", ""}, "BenchmarkAdds/n=10",
                       "BenchmarkAdds/n=3"),
      Claim::fact_check({"this machine adds", "", ""},
                        [] {
                          return zerolab::lab::FactResult{true, "it does"};
                        }),
  };
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  static const Experiment e = count_experiment();
  const std::vector<const Experiment*> experiments = {&e};
  if (int code = 0; zerolab::lab::run_counting_child_if_asked(argc, argv, experiments, code)) {
    return code;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: lab_count_fixture DIR\n");
    return 2;
  }
  zerolab::lab::LabSettings s;
  s.experiments = experiments;
  s.count = 1;
  s.benchtime = std::chrono::milliseconds(10);
  s.benchtime_text = "10ms";
  s.out_dir = argv[1];
  s.command = "lab_count_fixture";
  s.go = false;
  s.count_instructions = true;
  return zerolab::lab::run_lab(s, stdout, stderr);
}
