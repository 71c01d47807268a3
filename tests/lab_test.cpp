// Tests of the lab: verdict logic on synthetic samples (replicates,
// contradicts, inconclusive, ties, all-equal, provisional, bounds), the
// Hodges-Lehmann interval against a brute-force computation, judging and
// reporting, the driver on synthetic experiments (a failing benchmark makes
// its claims `error` while the rest runs; exit 1), and `zerolab lab --quick`
// end to end. No test asserts a timing.
//
// Example:
//   ./lab_test --gtest_filter='Verdict.*'
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloc_hooks/alloc_stats.hpp"
#include "lab/experiments/catalog.hpp"
#include "lab/experiments/reset_cost_calls.hpp"
#include "lab/experiments/udp_strategies.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/judge.hpp"
#include "lab/framework/lab_run.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/report.hpp"
#include "lab/framework/sources.hpp"
#include "lab/framework/verdict.hpp"
#include "lab_cli_util.hpp"
#include "lab_test_experiment.hpp"
#include "mem/cpu_features.hpp"
#include "text/byte_size.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::lab {
namespace {

using V = std::vector<double>;

std::vector<double> ramp(double start, double step, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + step * i);
  return v;
}

using lab_test_util::Command;
using lab_test_util::exists;
using lab_test_util::read_file;

std::string temp_dir() {
  return lab_test_util::temp_dir("zerolab_lab_test");
}

// ---- ratio verdicts ----------------------------------------------------------------

TEST(Verdict, SeparatedSamplesReplicate) {
  const auto slower = ramp(20.0, 0.01, 10);
  const auto faster = ramp(16.7, 0.01, 10);
  const RatioVerdict v = judge_ratio(slower, faster, 1.0, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kReplicates);
  EXPECT_FALSE(v.provisional);
  // Completely separated 10+10: exact two-sided p = 2 / C(20, 10).
  EXPECT_DOUBLE_EQ(v.p, 2.0 / 184756.0);
  EXPECT_EQ(v.n_slower, 10);
  EXPECT_EQ(v.n_faster, 10);
  EXPECT_DOUBLE_EQ(v.median_slower, 20.045);
  EXPECT_DOUBLE_EQ(v.median_faster, 16.745);
}

TEST(Verdict, HodgesLehmannIntervalMatchesBruteForce) {
  const std::vector<double> slower = {20.3, 19.1, 22.4, 20.0, 21.7, 19.8, 20.9, 23.5, 18.9, 20.6};
  const std::vector<double> faster = {16.2, 17.9, 16.8, 15.5, 18.3, 17.0, 16.1, 19.4, 16.6, 17.3};
  const RatioVerdict v = judge_ratio(slower, faster, 1.0, 0.05);
  std::vector<double> logs;
  for (double s : slower) {
    for (double f : faster) logs.push_back(std::log(s) - std::log(f));
  }
  std::sort(logs.begin(), logs.end());
  // For 10+10 the two-sided 5% critical U is 23 (published tables), so the
  // interval runs from the 24th to the 77th of the 100 pairwise ratios.
  EXPECT_DOUBLE_EQ(v.lo, std::exp(logs[23]));
  EXPECT_DOUBLE_EQ(v.hi, std::exp(logs[76]));
  EXPECT_DOUBLE_EQ(v.ratio, std::exp((logs[49] + logs[50]) / 2));
  EXPECT_GE(v.confidence, 0.95);
  EXPECT_LT(v.confidence, 0.96);
  EXPECT_LT(v.lo, v.ratio);
  EXPECT_GT(v.hi, v.ratio);
}

TEST(Verdict, OppositeDirectionContradicts) {
  const RatioVerdict v = judge_ratio(ramp(16.7, 0.01, 10), ramp(20.0, 0.01, 10), 1.0, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kContradicts);
  EXPECT_LT(v.ratio, 1.0);
}

TEST(Verdict, OverlappingSamplesAreInconclusive) {
  const RatioVerdict v = judge_ratio(ramp(10, 1, 10), ramp(10.5, 1, 10), 1.0, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_GT(v.p, 0.05);
}

TEST(Verdict, TiesAreInconclusiveWhenNotSignificant) {
  const RatioVerdict v = judge_ratio(V{5, 5, 5, 5, 5, 6}, V{5, 5, 5, 5, 5, 5}, 1.0, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_DOUBLE_EQ(v.ratio, 1.0);
}

TEST(Verdict, AllEqualIsInconclusive) {
  const std::vector<double> same(8, 7.0);
  const RatioVerdict v = judge_ratio(same, same, 1.0, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_DOUBLE_EQ(v.ratio, 1.0);
  EXPECT_DOUBLE_EQ(v.lo, 1.0);
  EXPECT_DOUBLE_EQ(v.hi, 1.0);
  EXPECT_DOUBLE_EQ(v.p, 1.0);
}

TEST(Verdict, AtLeastFactorIsTested) {
  const auto faster = ramp(10.0, 0.01, 10);
  std::vector<double> slower_2_5x;
  std::vector<double> slower_1_5x;
  for (double f : faster) {
    slower_2_5x.push_back(f * 2.5);
    slower_1_5x.push_back(f * 1.5);
  }
  EXPECT_EQ(judge_ratio(slower_2_5x, faster, 2.0, 0.05).verdict, Verdict::kReplicates);
  // 1.5x is significantly less than the claimed 2x.
  EXPECT_EQ(judge_ratio(slower_1_5x, faster, 2.0, 0.05).verdict, Verdict::kContradicts);
  EXPECT_EQ(judge_ratio(slower_1_5x, faster, 1.0, 0.05).verdict, Verdict::kReplicates);
}

TEST(Verdict, FewRunsAreProvisionalAndFollowTheEstimate) {
  RatioVerdict v = judge_ratio(V{20.0}, V{16.0}, 1.0, 0.05);
  EXPECT_TRUE(v.provisional);
  EXPECT_EQ(v.verdict, Verdict::kReplicates);
  EXPECT_DOUBLE_EQ(v.ratio, 1.25);
  v = judge_ratio(V{10, 11, 12, 13, 14}, V{20, 21, 22, 23, 24}, 1.0, 0.05);
  EXPECT_TRUE(v.provisional);
  EXPECT_EQ(v.verdict, Verdict::kContradicts);
}

// ---- band ("about Nx") and equivalence ("no change") verdicts ----------------------

std::vector<double> times(const std::vector<double>& v, double k) {
  std::vector<double> out;
  for (const double x : v) out.push_back(x * k);
  return out;
}

TEST(Verdict, BandInsideOutsideAndStraddling) {
  const auto faster = ramp(10.0, 0.01, 10);
  // "about 2x" is [2/1.25, 2*1.25] = [1.6, 2.5].
  const RatioVerdict inside = judge_band(times(faster, 2.0), faster, 1.6, 2.5);
  EXPECT_EQ(inside.verdict, Verdict::kReplicates);
  EXPECT_GE(inside.lo, 1.6);
  EXPECT_LE(inside.hi, 2.5);
  // 1.2x is significantly faster than 1x, but not "about 2x".
  const RatioVerdict below = judge_band(times(faster, 1.2), faster, 1.6, 2.5);
  EXPECT_EQ(below.verdict, Verdict::kContradicts);
  EXPECT_LT(below.hi, 1.6);
  // 3x is "at least 2x" but not "about 2x": two-sided.
  EXPECT_EQ(judge_band(times(faster, 3.0), faster, 1.6, 2.5).verdict, Verdict::kContradicts);
  // 14.0 .. 18.5 over ~10.05: the interval crosses 1.6.
  const RatioVerdict straddle = judge_band(ramp(14.0, 0.5, 10), faster, 1.6, 2.5);
  EXPECT_LT(straddle.lo, 1.6);
  EXPECT_GT(straddle.hi, 1.6);
  EXPECT_EQ(straddle.verdict, Verdict::kInconclusive);
  const RatioVerdict few = judge_band(V{20.0}, V{10.0}, 1.6, 2.5);
  EXPECT_TRUE(few.provisional);
  EXPECT_EQ(few.verdict, Verdict::kReplicates);
  EXPECT_EQ(judge_band(V{40.0}, V{10.0}, 1.6, 2.5).verdict, Verdict::kContradicts);
}

TEST(Verdict, EquivalenceInsideOutsideAndStraddling) {
  const auto faster = ramp(10.0, 0.01, 10);
  // Within ±5%: [1/1.05, 1.05]. A 2% difference is significant for the U
  // test, yet inside the seed's noise: "no change" replicates.
  const RatioVerdict small = judge_equivalence(times(faster, 1.02), faster, 0.05, 0.05);
  EXPECT_EQ(small.verdict, Verdict::kReplicates);
  EXPECT_LT(judge_ratio(times(faster, 1.02), faster, 1.0, 0.05).p, 0.05);
  EXPECT_EQ(judge_equivalence(faster, faster, 0.05, 0.05).verdict, Verdict::kReplicates);
  // 20% slower, or 20% faster: a change beyond the noise.
  EXPECT_EQ(judge_equivalence(times(faster, 1.2), faster, 0.05, 0.05).verdict,
            Verdict::kContradicts);
  EXPECT_EQ(judge_equivalence(times(faster, 0.8), faster, 0.05, 0.05).verdict,
            Verdict::kContradicts);
  // 9.0 .. 11.7 over ~10.05: too noisy to tell.
  const RatioVerdict straddle = judge_equivalence(ramp(9.0, 0.3, 10), faster, 0.05, 0.05);
  EXPECT_LT(straddle.lo, 1.05);
  EXPECT_GT(straddle.hi, 1.05);
  EXPECT_EQ(straddle.verdict, Verdict::kInconclusive);
  // The interval used is the 90% one (two one-sided tests at 5%).
  EXPECT_GE(straddle.confidence, 0.90);
  EXPECT_LT(straddle.confidence, 0.92);
  const RatioVerdict few = judge_equivalence(V{10.1}, V{10.0}, 0.05, 0.05);
  EXPECT_TRUE(few.provisional);
  EXPECT_EQ(few.verdict, Verdict::kReplicates);
}

// ---- bound verdicts ----------------------------------------------------------------

TEST(Verdict, BoundInsideOutsideAndStraddling) {
  const auto inside = ramp(0.98, 0.004, 10);  // 0.98 .. 1.016
  EXPECT_EQ(judge_bound(inside, 1.0, 0.95, 1.05, 0.95).verdict, Verdict::kReplicates);
  const auto outside = ramp(2.0, 0.1, 10);
  EXPECT_EQ(judge_bound(outside, 1.0, 0.95, 1.05, 0.95).verdict, Verdict::kContradicts);
  const auto straddle = ramp(0.9, 0.02, 10);  // 0.90 .. 1.08, median 0.99
  EXPECT_EQ(judge_bound(straddle, 1.0, 0.95, 1.05, 0.95).verdict, Verdict::kInconclusive);
  // Scaling: 262144 faults over 262144 pages is 1 fault per page.
  const BoundVerdict scaled =
      judge_bound(std::vector<double>(6, 262144.0), 1.0 / 262144, 0.95, 1.05, 0.95);
  EXPECT_EQ(scaled.verdict, Verdict::kReplicates);
  EXPECT_DOUBLE_EQ(scaled.median, 1.0);
  const BoundVerdict one = judge_bound(std::vector<double>{3.0}, 1.0, 0, 64, 0.95);
  EXPECT_TRUE(one.provisional);
  EXPECT_EQ(one.verdict, Verdict::kReplicates);
}

TEST(Verdict, Names) {
  EXPECT_EQ(to_string(Verdict::kReplicates), "replicates");
  EXPECT_EQ(to_string(Verdict::kContradicts), "contradicts");
  EXPECT_EQ(to_string(Verdict::kInconclusive), "inconclusive");
  EXPECT_EQ(to_string(Verdict::kHolds), "holds");
  EXPECT_EQ(to_string(Verdict::kDoesNotHold), "does not hold");
  EXPECT_EQ(to_string(Verdict::kError), "error");
  EXPECT_EQ(to_string(Verdict::kNotComparable), "not comparable");
  EXPECT_EQ(to_string(Verdict::kNotRun), "not run");
}

// ---- judging and reporting ---------------------------------------------------------

TEST(Judge, SamplesMatchNameExactlyOrWithCpuSuffix) {
  std::vector<benchfmt::Result> results = {
      {"BenchmarkMerge/malloc", 10, {{5, "ns/op"}, {1, "allocs/op"}}},
      {"BenchmarkMerge/malloc-2", 10, {{6, "ns/op"}}},
      {"BenchmarkMerge/malloc+memset", 10, {{9, "ns/op"}}},
      {"BenchmarkMerge/malloc-x", 10, {{7, "ns/op"}}},
  };
  EXPECT_EQ(samples_of(results, "BenchmarkMerge/malloc", "ns/op"), (std::vector<double>{5, 6}));
  EXPECT_EQ(samples_of(results, "BenchmarkMerge/malloc", "allocs/op"), (std::vector<double>{1}));
  EXPECT_TRUE(samples_of(results, "BenchmarkMerge/calloc", "ns/op").empty());
}

TEST(Judge, FormatValue) {
  EXPECT_EQ(format_value(16722, "ns/op"), "16.7µs");
  EXPECT_EQ(format_value(876.5e6, "ns/op"), "876ms");
  EXPECT_EQ(format_value(3.07e9, "ns/op"), "3.07s");
  EXPECT_EQ(format_value(984, "ns/op"), "984ns");
  EXPECT_EQ(format_value(1.0, "faults/page"), "1.00 faults/page");
}

TEST(Judge, MissingOrFailedBenchmarkIsAnError) {
  Experiment e;
  e.claims.push_back(Claim::ratio("a beats b", "", "BenchmarkA", "BenchmarkB"));
  ExperimentOutcome o;
  o.experiment = &e;
  o.failures.push_back({"BenchmarkA", "boom"});
  o.results.push_back({"BenchmarkB", 1, {{1, "ns/op"}}});
  SideOutcome c = judge_measured(e.claims[0], o, 0.05);
  EXPECT_EQ(c.verdict, Verdict::kError);
  EXPECT_EQ(c.detail, "BenchmarkA: boom");
  o.failures.clear();
  c = judge_measured(e.claims[0], o, 0.05);
  EXPECT_EQ(c.verdict, Verdict::kError);
  EXPECT_EQ(c.detail, "BenchmarkA: no ns/op results");
}

TEST(Judge, FactThatThrowsIsAnError) {
  const Claim c =
      Claim::fact("x", "", []() -> FactResult { throw std::runtime_error("no /proc"); });
  const SideOutcome o = judge_fact(c);
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_EQ(o.detail, "the check threw: no /proc");
  const Claim ok = Claim::fact("y", "", [] { return FactResult{true, "seen"}; });
  EXPECT_EQ(judge_fact(ok).verdict, Verdict::kHolds);
  EXPECT_EQ(judge_fact(ok).here, "seen");
}

TEST(Report, SummaryLine) {
  Tally t;
  t.cpp.claims = 9;
  t.cpp.replicate = 4;
  t.cpp.contradict = 1;
  t.cpp.inconclusive = 1;
  t.cpp.hold = 2;
  t.cpp.do_not_hold = 1;
  t.go.claims = 9;
  t.go.replicate = 3;
  t.go.not_comparable = 2;
  t.go.not_run = 4;
  EXPECT_EQ(summary_line(t),
            "9 seed claims — Go here: 3 replicate, 0 contradict, 0 inconclusive; facts: 0 hold, "
            "0 do not hold; 2 not comparable; 4 not run — C++: 4 replicate, 1 contradict, "
            "1 inconclusive; facts: 2 hold, 1 do not hold");
  t.cpp.errors = 2;
  t.cpp.claims = 11;
  t.go.claims = 11;
  t.go.errors = 2;
  t.project_cpp.claims = 1;
  t.project_cpp.replicate = 1;
  t.project_go.claims = 1;
  t.project_go.not_run = 1;
  EXPECT_EQ(t.errors(), 4);
  EXPECT_EQ(
      summary_line(t),
      "11 seed claims — Go here: 3 replicate, 0 contradict, 0 inconclusive; facts: 0 hold, "
      "0 do not hold; 2 not comparable; 4 not run; 2 errors — C++: 4 replicate, 1 contradict, "
      "1 inconclusive; facts: 2 hold, 1 do not hold; 2 errors\n"
      "1 project claims (counted apart) — Go here: 0 replicate, 0 contradict, 0 inconclusive; "
      "facts: 0 hold, 0 do not hold; 1 not run — C++: 1 replicate, 0 contradict, "
      "0 inconclusive; facts: 0 hold, 0 do not hold");
}

TEST(Report, MarkdownEscapesPipesAndAngleBrackets) {
  Experiment e = lab_test_util::experiment("x", "a | b", "s.txt", "sec");
  e.claims.push_back(Claim::fact("make_uninit<char[]> | vector", "", [] {
    return FactResult{true, "seen <here>"};
  }));
  ExperimentOutcome o;
  o.experiment = &e;
  ClaimOutcome c;
  c.claim = &e.claims[0];
  c.cpp = judge_fact(e.claims[0]);
  c.go = judge_go(e.claims[0], o, 0.05, nullptr);
  o.claims.push_back(c);
  const std::string md = report_markdown({o}, MachineInfo{}, ReportContext{});
  EXPECT_NE(md.find("## x: a \\| b\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| make_uninit&lt;char[]&gt; \\| vector | — | — | seen &lt;here&gt; | "
                    "not run (no Go peer) | holds |\n"),
            std::string::npos)
      << md;
}

// ---- the driver on synthetic experiments -------------------------------------------

void allocate_one_64_byte_block(B& b) {
  for (auto _ : b.loop()) {
    auto* p = new char[64];
    do_not_optimize(p);
    delete[] p;
  }
}

void always_fails(B& b) {
  b.fatal("boom");
}

TEST(RunLab, FailingBenchmarkMarksItsClaimsErrorAndTheRestRuns) {
  Experiment broken = lab_test_util::experiment("broken", "a benchmark that fails");
  broken.benchmarks = {{"BenchmarkFails", &always_fails},
                       {"BenchmarkAllocates", &allocate_one_64_byte_block}};
  broken.claims = {
      Claim::ratio("fails beats allocates", "1x", "BenchmarkFails", "BenchmarkAllocates")};
  Experiment fine = lab_test_util::experiment("fine", "exact allocation counts");
  fine.benchmarks = {{"BenchmarkAllocates", &allocate_one_64_byte_block}};
  fine.claims = {
      Claim::bound("one allocation per op", "1", "BenchmarkAllocates", kAllocsPerOp, 1, 1),
      Claim::bound("64 bytes per op", "64", "BenchmarkAllocates", kBytesPerOp, 64, 64),
      Claim::fact("a fact", "", [] {
        return FactResult{false, "not here"};
      })};

  LabSettings s;
  s.experiments = {&broken, &fine};
  s.count = 6;
  s.benchtime = std::chrono::milliseconds(1);
  s.benchtime_text = "1ms";
  s.out_dir = temp_dir();
  s.command = "test";
  const std::string out_path = s.out_dir + "/stdout";
  const std::string err_path = s.out_dir + "/stderr";
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  std::FILE* err = std::fopen(err_path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(err, nullptr);
  const int code = run_lab(s, out, err);
  std::fclose(out);
  std::fclose(err);
  EXPECT_EQ(code, 1);
  const std::string text = read_file(out_path);
  EXPECT_NE(text.find("FAILED BenchmarkFails: boom"), std::string::npos) << text;
  EXPECT_NE(text.find("error: BenchmarkFails: boom"), std::string::npos) << text;
  EXPECT_NE(text.find("1.00 mallocs/op [1.00, 1.00]"), std::string::npos) << text;
  EXPECT_NE(text.find("64.0 malloc-B/op [64.0, 64.0]"), std::string::npos) << text;
  EXPECT_NE(text.find("4 seed claims — Go here: 0 replicate, 0 contradict, 0 inconclusive; "
                      "facts: 0 hold, 0 do not hold; 4 not run — C++: 2 replicate, 0 contradict, "
                      "0 inconclusive; facts: 0 hold, 1 do not hold; 1 error\n"),
            std::string::npos)
      << text;

  // Raw results: six interleaved runs, readable by the stat reader.
  for (const char* id : {"broken", "fine"}) {
    const std::string raw = read_file(s.out_dir + "/" + id + ".txt");
    stat::StringSource src(raw);
    stat::GoReader reader(src, id);
    int results = 0;
    while (reader.next()) {
      ASSERT_EQ(reader.kind(), stat::RecordKind::kResult) << reader.syntax_error().to_string();
      EXPECT_EQ(reader.result().full_name(), "Allocates");
      EXPECT_EQ(reader.result().config_value("pkg"), std::string("zerolab/lab/") + id);
      ++results;
    }
    EXPECT_EQ(results, 6) << id;
    EXPECT_TRUE(reader.error().empty());
  }
  const std::string report = read_file(s.out_dir + "/report.md");
  EXPECT_NE(report.find("## broken: a benchmark that fails"), std::string::npos);
  EXPECT_NE(report.find("| one allocation per op | 1 | — | 1.00 mallocs/op [1.00, 1.00] | "
                        "not run (no Go peer) | replicates"),
            std::string::npos)
      << report;
  EXPECT_FALSE(exists(s.out_dir + "/report.md.tmp." + std::to_string(::getpid())));
}

// ---- reset-cost's Go fact --------------------------------------------------------------

TEST(LabResetCost, TheObjdumpFactFailsWhenACallIsMissing) {
  ResetCalls go119;
  go119.reset_struct = {"runtime.morestack_noctxt", "runtime.typedmemclr", "runtime.writeBarrier"};
  go119.clear_ptrs = {"runtime.memclrHasPointers", "runtime.morestack_noctxt"};
  go119.clear_bytes = {"runtime.memclrNoHeapPointers", "runtime.morestack_noctxt"};
  EXPECT_TRUE(check_reset_calls(go119).holds) << check_reset_calls(go119).observed;
  ResetCalls seed = go119;  // the seed's Go: wbZero instead of typedmemclr
  seed.reset_struct = {"runtime.morestack_noctxt", "runtime.wbZero", "runtime.writeBarrier"};
  EXPECT_TRUE(check_reset_calls(seed).holds);

  ResetCalls no_barrier = go119;
  no_barrier.reset_struct = {"runtime.morestack_noctxt"};
  EXPECT_FALSE(check_reset_calls(no_barrier).holds);
  ResetCalls ptrs_plain = go119;
  ptrs_plain.clear_ptrs = {"runtime.memclrNoHeapPointers"};
  EXPECT_FALSE(check_reset_calls(ptrs_plain).holds);
  ResetCalls bytes_barrier = go119;
  bytes_barrier.clear_bytes.insert("runtime.writeBarrier");
  EXPECT_FALSE(check_reset_calls(bytes_barrier).holds);
  ResetCalls failed;
  failed.error = "go tool objdump found no resetStruct in /nowhere";
  const FactResult r = check_reset_calls(failed);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.observed, failed.error);
}

TEST(LabResetCost, ObservingAMissingBinarySaysSo) {
  const ResetCalls c = observe_reset_calls({"/nonexistent/reset-cost.test", "go"});
  EXPECT_FALSE(c.error.empty());
  EXPECT_FALSE(check_reset_calls(c).holds);
}

// ---- udp-buffers' read model ------------------------------------------------------------

// With `in_flight` reads in flight among conns x procs readers, strategy S
// holds `during` bytes after rounds of reads (every packet arriving with the
// seed's sizes, in turn), and `cold` once the reads completed and the
// seed's GC ran.
template <typename S>
void check_held(int conns, int procs, int in_flight, std::size_t during, std::size_t cold) {
  udp::InFlight<S> reads(conns, procs, in_flight);
  EXPECT_EQ(reads.in_flight(), static_cast<std::size_t>(in_flight));
  const auto& sizes = udp::packet_sizes();
  const auto readers = static_cast<std::size_t>(conns * procs);
  for (std::size_t i = 0; i < 2 * readers + 3; ++i) {
    ASSERT_EQ(reads.complete_next(), sizes[i % sizes.size()]);
  }
  EXPECT_EQ(reads.strategy().held_bytes(), during);
  reads.drain();
  EXPECT_EQ(reads.in_flight(), 0u);
  EXPECT_EQ(reads.strategy().held_bytes(), cold);
}

TEST(LabUdpBuffers, ABufferIsHeldOnlyWhileItsReadIsInFlight) {
  for (const int conns : {1, 7, 50}) {
    for (const int procs : {1, 2, 24}) {
      for (const int in_flight : {1, 5, conns * procs}) {
        if (in_flight > conns * procs) continue;
        SCOPED_TRACE(std::to_string(conns) + " conns, " + std::to_string(procs) + " procs, " +
                     std::to_string(in_flight) + " in flight");
        const auto n = static_cast<std::size_t>(conns);
        const auto w = static_cast<std::size_t>(in_flight);
        check_held<udp::FixedLargeBuffer>(conns, procs, in_flight, n * udp::kBig, n * udp::kBig);
        // A buffer per read in flight, freed when it completes.
        check_held<udp::AlwaysAllocate>(conns, procs, in_flight, w * udp::kBig, 0);
        // The pools made one buffer per read in flight and keep them, through
        // the GC too (sync.Pool's victim cache).
        check_held<udp::SimplePool>(conns, procs, in_flight, w * udp::kBig, w * udp::kBig);
        check_held<udp::SyncPoolAlwaysAlloc>(conns, procs, in_flight, w * udp::kBig, w * udp::kBig);
        check_held<udp::SyncPoolFixedSmall>(conns, procs, in_flight,
                                            w * udp::kBig + n * udp::kSmall,
                                            w * udp::kBig + n * udp::kSmall);
      }
    }
  }
}

// The seed's reads in flight: one per reader while conns x 24 is under its
// throughput's 12000 (its 100 connections), 12000 from 1000 on.
TEST(LabUdpBuffers, TheSeedsReadsInFlight) {
  EXPECT_EQ(udp::InFlight<udp::SimplePool>::seed_in_flight(100), 2400);
  EXPECT_EQ(udp::InFlight<udp::SimplePool>::seed_in_flight(500), 12000);
  EXPECT_EQ(udp::InFlight<udp::SimplePool>::seed_in_flight(100000), 12000);
}

TEST(LabUdpBuffers, PacketsFollowTheSeedsDistribution) {
  const auto& sizes = udp::packet_sizes();
  double sum = 0;
  for (const std::size_t s : sizes) {
    EXPECT_GE(s, 255u);
    EXPECT_LE(s, 65535u);
    sum += static_cast<double>(s);
  }
  const double mean = sum / static_cast<double>(sizes.size());
  EXPECT_GT(mean, 380);  // normal(400, 200) clamped below at 255: a little over 400
  EXPECT_LT(mean, 450);
}

// The seed's Go names, which the claims hand to the Go peer, exist in the
// peer's source (FixedLargeBuffer's %010d and the others' plain numbers).
TEST(LabUdpBuffers, ClaimsNameTheSeedsGoBenchmarks) {
  const Experiment* udp_e = nullptr;
  for (const Experiment& e : catalog()) {
    if (e.id == "udp-buffers") udp_e = &e;
  }
  ASSERT_NE(udp_e, nullptr);
  EXPECT_EQ(udp_e->go_peer, "udp-buffers");
  bool fixed = false;
  for (const Claim& c : udp_e->claims) {
    for (const std::string& n : {c.go.slower, c.go.faster}) {
      if (n.rfind("BenchmarkFixedLargeBuffer/", 0) == 0) {
        fixed = true;
        EXPECT_EQ(n.size(), std::string("BenchmarkFixedLargeBuffer/").size() + 10) << n;
      }
    }
  }
  EXPECT_TRUE(fixed);
}

// ---- zerolab lab end to end ------------------------------------------------------------

Command run_cli(const std::string& args, const std::string& dir) {
  return lab_test_util::run_cli(ZEROLAB_CLI, args, dir);
}

TEST(LabCli, QuickRunWritesEveryExperiment) {
  const std::string dir = temp_dir();
  const std::string results = dir + "/results";
  const Command c = run_cli("lab --quick -o " + results, dir);
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  // No terminal: stderr holds warnings only.
  std::istringstream err_lines(c.err);
  for (std::string line; std::getline(err_lines, line);) {
    EXPECT_EQ(line.rfind("zerolab lab: warning: ", 0), 0u) << line;
  }
  // The summary line, with every count a number and each side's counts
  // adding up to the claims.
  const std::regex side_re(
      "(\\d+) replicate, (\\d+) contradict, (\\d+) inconclusive; facts: (\\d+) hold, (\\d+) do not "
      "hold(?:; (\\d+) not comparable)?(?:; (\\d+) not run)?(?:; (\\d+) errors?)?"
      "(?:; size against the seed's figure: \\d+ larger, \\d+ as the seed, \\d+ smaller, \\d+ "
      "unclear)?");
  // " (provisional)" ends the last summary line: the seed claims' line, or
  // the project claims' line after it when an experiment has some.
  const std::regex summary_re(
      "\n(\\d+) seed claims — Go here: (.*) — C\\+\\+: (.*?)(?: \\(provisional\\))?\n");
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(c.out, summary, summary_re)) << c.out;
  const int claims = std::stoi(summary[1]);
  for (const std::string& side : {summary[2].str(), summary[3].str()}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(side, m, side_re)) << side;
    int total = 0;
    for (std::size_t i = 1; i < m.size(); ++i) total += m[i].matched ? std::stoi(m[i]) : 0;
    EXPECT_EQ(total, claims) << side;
  }

  const std::string report = read_file(results + "/report.md");
  // A row ends with verdict (C++): "| <verdict> (provisional) (n=1) |",
  // "| holds |", "| not comparable (<why>) |".
  auto has_verdict = [](const std::string& row) {
    const auto last = row.rfind("| ", row.size() - 2);
    if (last == std::string::npos || row.back() != '|') return false;
    const std::string cell = row.substr(last + 2);
    for (const char* v : {"replicates (provisional)", "contradicts (provisional)",
                          "inconclusive (provisional)", "not comparable (", "holds |",
                          "does not hold |", "not run (not run within the budget: needs about "}) {
      if (cell.rfind(v, 0) == 0) return true;
    }
    return false;
  };
  for (const Experiment& e : catalog()) {
    SCOPED_TRACE(e.id);
    EXPECT_NE(c.out.find(e.id + ": " + e.title + "\n"), std::string::npos);
    EXPECT_NE(report.find("\n## " + e.id + ": "), std::string::npos);
    // Every claim has a row with a verdict.
    for (const Claim& claim : e.claims) {
      // As report.md escapes a cell: | < > become \| &lt; &gt;.
      std::string cell;
      for (const char ch : claim_text(claim)) {
        cell += ch == '|'   ? std::string("\\|")
                : ch == '<' ? std::string("&lt;")
                : ch == '>' ? std::string("&gt;")
                            : std::string(1, ch);
      }
      const auto at = report.find("| " + cell + (claim.seed_section.empty() ? " |" : " (§ "));
      ASSERT_NE(at, std::string::npos) << claim.statement;
      const std::string row = report.substr(at, report.find('\n', at) - at);
      EXPECT_TRUE(has_verdict(row)) << row;
    }
    // The raw file reads cleanly: one result per benchmark, machine config.
    const std::string raw = read_file(results + "/" + e.id + ".txt");
    ASSERT_FALSE(raw.empty());
    stat::StringSource src(raw);
    stat::GoReader reader(src, e.id);
    std::vector<std::string> names;
    while (reader.next()) {
      ASSERT_EQ(reader.kind(), stat::RecordKind::kResult) << reader.syntax_error().to_string();
      names.emplace_back(reader.result().result.name);
      for (const char* key : {"cpu", "caches", "kernel", "thp", "glibc", "compiler", "cxxflags"}) {
        EXPECT_FALSE(reader.result().config_value(key).empty()) << key;
      }
    }
    EXPECT_TRUE(reader.error().empty()) << reader.error();
    // Every benchmark but those the default budget leaves out
    // (BenchmarkSpec::full_seconds), in order.
    std::vector<std::string> within_budget;
    for (const BenchmarkSpec& spec : e.benchmarks) {
      if (spec.full_seconds == 0) within_budget.push_back(spec.name);
    }
    EXPECT_EQ(names, within_budget);
  }
}

// The results' caches line says the L3 the kernel describes (glibc's
// sysconf said 320 MiB where sysfs said 32 MiB on an AMD EPYC KVM guest).
TEST(LabMachine, TheCachesLineHasTheKernelsL3) {
  const zerolab::internal::CacheSizes kernel =
      zerolab::internal::read_cache_sizes("/sys/devices/system/cpu/cpu0/cache");
  if (kernel.l3 == 0) GTEST_SKIP() << "this kernel describes no L3 in sysfs";
  std::string caches;
  for (const auto& [key, value] : describe_machine().config) {
    if (key == "caches") caches = value;
  }
  const std::string l3 = "L3 " + zerolab::internal::format_byte_size(kernel.l3);
  ASSERT_GE(caches.size(), l3.size()) << caches;
  EXPECT_EQ(caches.substr(caches.size() - l3.size()), l3) << caches;
}

TEST(LabCli, BadInputExits2AndWritesNothing) {
  const std::string dir = temp_dir();
  const std::string results = dir + "/results";
  Command c = run_cli("lab nosuch -o " + results, dir);
  EXPECT_EQ(c.code, 2);
  std::string known;
  for (const Experiment& e : catalog()) known += (known.empty() ? "" : ", ") + e.id;
  EXPECT_EQ(c.err, "zerolab lab: unknown experiment \"nosuch\" (known: " + known + ")\n");
  EXPECT_FALSE(exists(results));
  c = run_cli("lab --count 0 -o " + results, dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err,
            "zerolab lab: invalid value \"0\" for flag -count: must be a whole number from 1 to "
            "100000\n");
  EXPECT_FALSE(exists(results));
  c = run_cli("lab --benchtime 1parsec -o " + results, dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err.rfind("zerolab lab: invalid value \"1parsec\" for flag -benchtime: ", 0), 0u)
      << c.err;
  EXPECT_FALSE(exists(results));
  c = run_cli("lab --frobnicate", dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err, "zerolab lab: flag provided but not defined: -frobnicate\n");
  // A regular file where a directory should be.
  c = run_cli("lab --quick -o /etc/hostname/results", dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(
      c.err,
      "zerolab lab: flag -o: cannot use directory /etc/hostname/results: /etc/hostname is not a "
      "directory\n");
  EXPECT_TRUE(c.out.empty());
}

TEST(LabCli, ProfilesOneFilePerExperiment) {
  const std::string dir = temp_dir();
  const std::string prof = dir + "/prof";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::string flags = " --cpuprofile " + prof;  // no -memprofile in sanitizer builds
#else
  const std::string flags =
      " --cpuprofile " + prof + " --memprofile " + prof + " --memprofilerate 1";
#endif
  const Command c =
      run_cli("lab merge --count 1 --benchtime 1000x -o " + dir + "/out" + flags, dir);
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  // pprof's format, gzipped (tests/profile_test.cpp reads it with go tool pprof).
  const std::string cpu = read_file(prof + "/merge.cpu.prof");
  EXPECT_EQ(cpu.substr(0, 3), "\x1f\x8b\x08");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  const std::string mem = read_file(prof + "/merge.mem.prof");
  EXPECT_EQ(mem.substr(0, 3), "\x1f\x8b\x08");
#endif
  const Command bad = run_cli("lab merge --cpuprofilerate 0 --cpuprofile " + prof, dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(
      bad.err,
      "zerolab lab: invalid value \"0\" for flag -cpuprofilerate: must be an integer from 1 to "
      "10000 (samples per second)\n");
}

TEST(LabCli, ListNamesEveryExperiment) {
  const std::string dir = temp_dir();
  const Command c = run_cli("lab --list", dir);
  EXPECT_EQ(c.code, 0);
  std::size_t width = 0;
  for (const Experiment& e : catalog()) width = std::max(width, e.id.size());
  std::string expected;
  for (const Experiment& e : catalog()) {
    expected += e.id + std::string(width - e.id.size() + 2, ' ') + e.title +
                " (source: " + source_name(e.seed_file) + ")\n";
    expected += differences_text(e, std::string(width + 2, ' '));
  }
  EXPECT_EQ(c.out, expected);
}

}  // namespace
}  // namespace zerolab::lab

// The progress line redraws itself with ESC[K, which a dumb
// terminal prints as garbage: only a terminal with a TERM that is not
// "dumb" gets it.
TEST(LabProgress, OnlyARealTerminalGetsTheProgressLine) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const int tty = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  const char* saved = std::getenv("TERM");
  const std::string old_term = saved != nullptr ? saved : "";
  ::setenv("TERM", "dumb", 1);
  EXPECT_FALSE(zerolab::lab::progress_line_wanted(tty));
  ::unsetenv("TERM");
  EXPECT_FALSE(zerolab::lab::progress_line_wanted(tty));
  ::setenv("TERM", "xterm-256color", 1);
  EXPECT_TRUE(zerolab::lab::progress_line_wanted(tty));
  int pipe_fds[2] = {-1, -1};
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_FALSE(zerolab::lab::progress_line_wanted(pipe_fds[1]));
  if (saved != nullptr)
    ::setenv("TERM", old_term.c_str(), 1);
  else
    ::unsetenv("TERM");
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ::close(tty);
  ::close(master);
}
