// tests/lab_report_fixture.hpp — synthetic lab outcomes for the report.html
// tests and the browser test's page (tests/lab_report_sample.cpp): one
// experiment per plot type, plus an experiment with no results and one with
// a single sample per benchmark. Every value is fixed, so the tests can
// count exactly what the page must draw.
//
// Example:
//   ReportFixture f;
//   std::string html = report_html(f.outcomes, f.machine, f.context);
#ifndef ZEROLAB_TESTS_LAB_REPORT_FIXTURE_HPP_
#define ZEROLAB_TESTS_LAB_REPORT_FIXTURE_HPP_

#include <deque>
#include <string>
#include <vector>

#include "lab/framework/experiment.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"
#include "lab/framework/report.hpp"
#include "lab_test_experiment.hpp"

namespace zerolab::lab::testing {

struct ReportFixture {
  std::deque<Experiment> experiments;  // stable addresses for the outcomes' pointers
  std::vector<ExperimentOutcome> outcomes;
  MachineInfo machine;
  ReportContext context;

  // Points each plot of the page must have, in page order ("plot-empty"
  // figures are not listed).
  std::vector<int> expected_points;
  int expected_empty_plots = 0;

  ReportFixture() {
    machine.config = {
        {"goos", "linux"},       {"cpu", "Test CPU <model>"},
        {"cpus", "2"},           {"caches", "L1d 48KiB, L1i 32KiB, L2 1MiB, L3 32MiB"},
        {"kernel", "Linux 6.1"}, {"thp", "madvise"},
        {"glibc", "2.36"},       {"compiler", "g++ 12.2.0"},
        {"cxxflags", "-O2"}};
    machine.warnings = {"CPU frequency scaling governor is \"powersave\": results will be noisier"};
    machine.notes = {"frequency boost is off"};
    context.started = "2026-12-03T06:00:00Z";
    context.command = "zerolab lab --count 3";
    context.count = 3;
    context.benchtime = "20ms";
    context.provisional = true;

    add_sweep();
    add_passes();
    add_connections();
    add_empty();
    add_single();
  }

 private:
  static benchfmt::Result result(const std::string& name, const std::string& unit, double value) {
    benchfmt::Result r;
    r.name = name;
    r.iterations = 100;
    r.metrics.push_back({value, unit});
    return r;
  }

  ExperimentOutcome& add(Experiment e) {
    experiments.push_back(std::move(e));
    ExperimentOutcome o;
    o.experiment = &experiments.back();
    outcomes.push_back(std::move(o));
    return outcomes.back();
  }

  static ClaimOutcome judged(const Claim& c, Verdict v, std::string here, std::string detail) {
    ClaimOutcome out;
    out.claim = &c;
    out.cpp.verdict = v;
    out.cpp.provisional = true;
    out.cpp.here = std::move(here);
    out.cpp.detail = std::move(detail);
    out.go.verdict = Verdict::kNotRun;
    out.go.detail = "no Go peer";
    return out;
  }

  // Throughput of two methods at four sizes, three runs each: one line plot
  // with 2 series x 4 sizes = 8 points, then one ratio claim (2 x 3 samples).
  void add_sweep() {
    Experiment e = lab_test_util::experiment("sweep", "throughput by size <&> method", "seed.txt",
                                             "a section");
    const char* sizes[] = {"16B", "1KiB", "64KiB", "1MiB"};
    e.claims.push_back(Claim::ratio("method b is faster at 1 MiB <script>alert(1)</script>", "2.0x",
                                    "BenchmarkZero/method=a/size=1MiB",
                                    "BenchmarkZero/method=b/size=1MiB", 1.0, "MB/s"));
    e.plots.push_back(PlotSpec::sweep("zeroing throughput", "BenchmarkZero/", "size", "buffer size",
                                      "MB/s", "throughput"));
    e.plots.back().cache_marks = true;
    ExperimentOutcome& o = add(std::move(e));
    for (int run = 0; run < 3; ++run) {
      for (int m = 0; m < 2; ++m) {
        for (int s = 0; s < 4; ++s) {
          o.results.push_back(result(
              std::string("BenchmarkZero/method=") + (m == 0 ? "a" : "b") + "/size=" + sizes[s],
              "MB/s", 1000.0 * (s + 1) * (m + 1) + run));
        }
      }
    }
    o.claims.push_back(judged(o.experiment->claims[0], Verdict::kReplicates, "2.00x", "n=3+3"));
    expected_points.insert(expected_points.end(), {8, 6});
  }

  // Per-pass time and faults of two benchmarks, six runs: two strip plots
  // of 12 points, and a bound claim (no plot of its own).
  void add_passes() {
    Experiment e =
        lab_test_util::experiment("passes", "time and faults per pass", "seed.txt", "passes");
    e.claims.push_back(Claim::bound("calloc takes no time", "0 ms", "BenchmarkPass/calloc", "ns/op",
                                    0, 1, 1e-6, "ms"));
    e.plots.push_back(PlotSpec::strip("time per pass", "BenchmarkPass/", "ns/op", "time per pass"));
    e.plots.push_back(
        PlotSpec::strip("faults per pass", "BenchmarkPass/", "faults/op", "faults per pass"));
    ExperimentOutcome& o = add(std::move(e));
    for (int run = 0; run < 6; ++run) {
      for (const char* name : {"BenchmarkPass/calloc", "BenchmarkPass/memset"}) {
        benchfmt::Result r = result(name, "ns/op", 1e6 * (run + 1));
        r.metrics.push_back({262144.0 + run, "faults/op"});
        o.results.push_back(r);
      }
    }
    o.claims.push_back(
        judged(o.experiment->claims[0], Verdict::kContradicts, "3.50 ms", "median outside [0, 1]"));
    expected_points.insert(expected_points.end(), {12, 12});
  }

  // Heap after the run against connections, with a "mode" element left out
  // of the series: 2 strategies x 3 connection counts = 6 points.
  void add_connections() {
    Experiment e =
        lab_test_util::experiment("connections", "heap against connections", "seed.txt", "udp");
    e.plots.push_back(PlotSpec::sweep("heap after the run", "BenchmarkUDP/", "conns", "connections",
                                      "heap-after-B", "heap"));
    e.plots.back().series_ignore = {"mode"};
    ExperimentOutcome& o = add(std::move(e));
    for (const char* strategy : {"Fixed", "Shared"}) {
      o.results.push_back(
          result(std::string("BenchmarkUDP/") + strategy + "/conns=100", "heap-after-B", 1e5));
      o.results.push_back(
          result(std::string("BenchmarkUDP/") + strategy + "/conns=1000", "heap-after-B", 1e6));
      o.results.push_back(
          result(std::string("BenchmarkUDP/") + strategy + "/mode=simulated/conns=100000",
                 "heap-after-B", 1e8));
    }
    expected_points.push_back(6);
  }

  // No results at all: its plots are "plot-empty" figures, the claim an error.
  void add_empty() {
    Experiment e = lab_test_util::experiment("empty", "an experiment whose benchmarks all failed",
                                             "seed.txt", "none");
    e.claims.push_back(Claim::ratio("x is faster than y", "", "BenchmarkX", "BenchmarkY"));
    e.plots.push_back(PlotSpec::sweep("nothing", "BenchmarkX/", "size", "size", "ns/op", "time"));
    e.plots.push_back(PlotSpec::strip("nothing either", "BenchmarkX/", "ns/op", "time"));
    ExperimentOutcome& o = add(std::move(e));
    o.failures.push_back({"BenchmarkX", "could not open /dev/null"});
    o.claims.push_back(
        judged(o.experiment->claims[0], Verdict::kError, "", "BenchmarkX: no ns/op results"));
    expected_empty_plots += 3;
  }

  // One run: every plot still draws its single points.
  void add_single() {
    Experiment e = lab_test_util::experiment("single", "one sample each", "seed.txt", "one");
    e.claims.push_back(Claim::ratio("p is slower than q", "1.1x", "BenchmarkP", "BenchmarkQ"));
    e.plots.push_back(PlotSpec::strip("one sample", "Benchmark", "ns/op", "time"));
    ExperimentOutcome& o = add(std::move(e));
    o.results.push_back(result("BenchmarkP", "ns/op", 120));
    o.results.push_back(result("BenchmarkQ", "ns/op", 100));
    o.claims.push_back(judged(o.experiment->claims[0], Verdict::kReplicates, "1.20x", "n=1"));
    expected_points.insert(expected_points.end(), {2, 2});
  }
};

}  // namespace zerolab::lab::testing

#endif  // ZEROLAB_TESTS_LAB_REPORT_FIXTURE_HPP_
