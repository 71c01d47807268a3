// The verdict model's parts on synthetic samples: a ratio claim answers
// twice — its direction (the verdict) and its size against the seed's
// figure (larger / as the seed / smaller / unclear), the size never
// turning a larger effect into "contradicts" unless the seed states a
// factor in words (a band); a claim over several rows of a table is one
// claim; every precondition, failing, makes the side "not comparable" with
// its reason, and the catalog's claims that carry one say so on a machine
// that lacks it; the summary counts the sizes. No test asserts a timing.
//
// Example:
//   ctest --preset release -R LabVerdictModel
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/judge.hpp"
#include "lab/framework/outcome.hpp"
#include "lab/framework/precondition.hpp"
#include "lab/framework/report.hpp"
#include "lab/framework/sources.hpp"
#include "lab/framework/verdict.hpp"

namespace zerolab::lab {
namespace {

// Ten runs of `a` around `center` (±1% in a fixed pattern).
void add_runs(ExperimentOutcome& o, const std::string& name, double center) {
  static const double kSpread[] = {0.99, 1.0, 1.01, 0.995, 1.005, 0.998, 1.002, 0.997, 1.003, 1.0};
  for (const double k : kSpread) o.results.push_back({name, 1000, {{center * k, "ns/op"}}});
}

// A claim whose seed's words give a direction, with the seed's table at 5x.
Claim improves() {
  return Claim::direction({"Improve performance of X", "Results", "5.00x (10 vs 2 ns/op)"}, 5.0,
                          "BenchmarkOld", "BenchmarkNew");
}

SideOutcome judge_at(const Claim& c, double slower, double faster) {
  static Experiment e;
  ExperimentOutcome o;
  o.experiment = &e;
  add_runs(o, "BenchmarkOld", slower);
  add_runs(o, "BenchmarkNew", faster);
  return judge_measured(c, o, 0.05);
}

TEST(LabVerdictModel, DirectionHoldsAndTheSizeIsLarger) {
  const SideOutcome s = judge_at(improves(), 158, 10);  // 15.8x against the seed's 5x
  EXPECT_EQ(s.verdict, Verdict::kReplicates);
  EXPECT_EQ(s.size, Size::kLarger);
  EXPECT_EQ(verdict_cell(s).rfind("replicates; size larger than the seed's 5.00x (p=", 0), 0u)
      << verdict_cell(s);
}

TEST(LabVerdictModel, DirectionHoldsAndTheSizeIsAsTheSeed) {
  const SideOutcome s = judge_at(improves(), 52, 10);
  EXPECT_EQ(s.verdict, Verdict::kReplicates);
  EXPECT_EQ(s.size, Size::kAsSeed);
  EXPECT_EQ(size_text(s), "size as the seed's 5.00x");
}

TEST(LabVerdictModel, DirectionHoldsAndTheSizeIsSmaller) {
  const SideOutcome s = judge_at(improves(), 26, 10);  // 2.6x: faster, by less
  EXPECT_EQ(s.verdict, Verdict::kReplicates);
  EXPECT_EQ(s.size, Size::kSmaller);
  EXPECT_EQ(size_text(s), "size smaller than the seed's 5.00x");
}

TEST(LabVerdictModel, DirectionFails) {
  const SideOutcome s = judge_at(improves(), 8, 10);  // the "improvement" is slower
  EXPECT_EQ(s.verdict, Verdict::kContradicts);
  EXPECT_EQ(s.size, Size::kSmaller);
}

TEST(LabVerdictModel, TheSizeStraddlesAnEdge) {
  // The interval of a noisy ratio around 6.25x (the edge 5 * 1.25) crosses it.
  static Experiment e;
  ExperimentOutcome o;
  o.experiment = &e;
  const double slower[] = {50, 56, 62, 68, 74, 50, 56, 62, 68, 74};
  for (const double v : slower) o.results.push_back({"BenchmarkOld", 1000, {{v, "ns/op"}}});
  add_runs(o, "BenchmarkNew", 10);
  const SideOutcome s = judge_measured(improves(), o, 0.05);
  EXPECT_EQ(s.verdict, Verdict::kReplicates);
  EXPECT_EQ(s.size, Size::kUnclear);
  EXPECT_EQ(size_text(s), "size unclear against the seed's 5.00x");
}

TEST(LabVerdictModel, OnlyAFactorInWordsMakesTheSizeTheVerdict) {
  // "about 5x" in words: a band; 15.8x is outside it.
  const Claim about =
      Claim::about({"X is about 5x faster", "Results", "5x"}, 5.0, "BenchmarkOld", "BenchmarkNew");
  const SideOutcome banded = judge_at(about, 158, 10);
  EXPECT_EQ(banded.verdict, Verdict::kContradicts);
  EXPECT_EQ(banded.size, Size::kLarger);
  // The same figure read off a table, with words that give a direction: replicates.
  EXPECT_EQ(judge_at(improves(), 158, 10).verdict, Verdict::kReplicates);
}

TEST(LabVerdictModel, ASeedFigureStartingWithARatioIsTheSize) {
  const Claim c = Claim::is_faster({"X is faster", "Results", "1.69x (4674 vs 2760 ns/op)"},
                                   "BenchmarkOld", "BenchmarkNew");
  EXPECT_DOUBLE_EQ(c.seed_ratio, 1.69);
  const Claim none = Claim::is_faster({"X is faster", "Results", "new 1.06x slower"},
                                      "BenchmarkOld", "BenchmarkNew");
  EXPECT_EQ(none.seed_ratio, 0);
  const SideOutcome s = judge_at(none, 20, 10);
  EXPECT_EQ(s.size, Size::kNone);
  EXPECT_EQ(size_text(s), "");
}

TEST(LabVerdictModel, JudgeSizeOnIntervals) {
  RatioVerdict v;
  v.ratio = 10;
  v.lo = 9;
  v.hi = 11;
  EXPECT_EQ(judge_size(v, 5), Size::kLarger);
  EXPECT_EQ(judge_size(v, 10), Size::kAsSeed);
  EXPECT_EQ(judge_size(v, 20), Size::kSmaller);
  EXPECT_EQ(judge_size(v, 7.5), Size::kUnclear);  // [6, 9.375]: 11 is above
  EXPECT_EQ(judge_size(v, 0), Size::kNone);
  v.provisional = true;  // the point estimate alone
  EXPECT_EQ(judge_size(v, 8.5), Size::kAsSeed);
}

TEST(LabVerdictModel, OneSentenceOverSeveralRowsIsOneClaim) {
  static Experiment e;
  Claim c = Claim::direction({"the arena outperformed", "Results", "2.16x"}, 2.16, "BenchmarkA/h",
                             "BenchmarkA/a");
  c.also("BenchmarkB/h", "BenchmarkB/a");
  ExperimentOutcome o;
  o.experiment = &e;
  add_runs(o, "BenchmarkA/h", 20);
  add_runs(o, "BenchmarkA/a", 10);
  add_runs(o, "BenchmarkB/h", 20);
  add_runs(o, "BenchmarkB/a", 10);
  SideOutcome s = judge_measured(c, o, 0.05);
  EXPECT_EQ(s.verdict, Verdict::kReplicates);
  EXPECT_EQ(s.detail.rfind("2 of 2 rows replicate; ", 0), 0u) << s.detail;
  ExperimentOutcome worse;
  worse.experiment = &e;
  add_runs(worse, "BenchmarkA/h", 20);
  add_runs(worse, "BenchmarkA/a", 10);
  add_runs(worse, "BenchmarkB/h", 10);
  add_runs(worse, "BenchmarkB/a", 20);  // the second row goes the other way
  s = judge_measured(c, worse, 0.05);
  EXPECT_EQ(s.verdict, Verdict::kContradicts);
  EXPECT_EQ(s.detail.rfind("1 of 2 rows replicate; ", 0), 0u) << s.detail;
}

// Go runs of `name` around `center`, as add_runs.
void add_go_runs(ExperimentOutcome& o, const std::string& name, double center, const char* unit) {
  static const double kSpread[] = {0.99, 1.0, 1.01, 0.995, 1.005, 0.998, 1.002, 0.997, 1.003, 1.0};
  for (const double k : kSpread) o.go_results.push_back({name, 1000, {{center * k, unit}}});
}

TEST(LabVerdictModel, OneSentenceOverSeveralGoRowsIsOneClaim) {
  static Experiment e;
  e.go_peer = "peer";
  Claim c = Claim::is_faster({"X uses more than Y", "Results", ""}, "BenchmarkX", "BenchmarkY")
                .in("cold_mib")
                .go_names("BenchmarkX/1000", "BenchmarkY/1000")
                .go_also("BenchmarkX/10000", "BenchmarkY/10000");
  ExperimentOutcome o;
  o.experiment = &e;
  add_go_runs(o, "BenchmarkX/1000", 800, "cold_mib");
  add_go_runs(o, "BenchmarkY/1000", 700, "cold_mib");
  add_go_runs(o, "BenchmarkX/10000", 800, "cold_mib");
  add_go_runs(o, "BenchmarkY/10000", 700, "cold_mib");
  SideOutcome s = judge_go(c, o, 0.05, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kReplicates) << s.detail;
  EXPECT_EQ(s.detail.rfind("2 of 2 rows replicate; ", 0), 0u) << s.detail;
  ExperimentOutcome worse;
  worse.experiment = &e;
  add_go_runs(worse, "BenchmarkX/1000", 800, "cold_mib");
  add_go_runs(worse, "BenchmarkY/1000", 700, "cold_mib");
  add_go_runs(worse, "BenchmarkX/10000", 700, "cold_mib");
  add_go_runs(worse, "BenchmarkY/10000", 800, "cold_mib");  // the second row goes the other way
  s = judge_go(c, worse, 0.05, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kContradicts) << s.detail;
  EXPECT_EQ(s.detail.rfind("1 of 2 rows replicate; ", 0), 0u) << s.detail;
}

TEST(LabVerdictModel, GoAgainstTheSeedsCReadsTheFasterSideFromTheCppRuns) {
  static Experiment e;
  e.go_peer = "peer";
  const Claim c = Claim::no_change({"the same work in Go and in C", "Results", ""}, 1.0,
                                   "BenchmarkPort", "BenchmarkC")
                      .go_against_c("BenchmarkGo", "BenchmarkC");
  ExperimentOutcome o;
  o.experiment = &e;
  add_go_runs(o, "BenchmarkGo", 150, "ns/op");
  add_runs(o, "BenchmarkC", 100);
  SideOutcome s = judge_go(c, o, 0.05, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kReplicates) << s.detail;  // 1.5x inside [0.5, 2]
  EXPECT_NE(s.here.find("1.50x"), std::string::npos) << s.here;
  ExperimentOutcome far;
  far.experiment = &e;
  add_go_runs(far, "BenchmarkGo", 300, "ns/op");
  add_runs(far, "BenchmarkC", 100);
  s = judge_go(c, far, 0.05, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kContradicts) << s.detail;  // 3x outside [0.5, 2]
  // A Go peer's benchmark of the same name is not read for the C side.
  ExperimentOutcome go_only;
  go_only.experiment = &e;
  add_go_runs(go_only, "BenchmarkGo", 150, "ns/op");
  add_go_runs(go_only, "BenchmarkC", 150, "ns/op");
  s = judge_go(c, go_only, 0.05, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kError) << s.detail;
  EXPECT_NE(s.detail.find("BenchmarkC: no ns/op results"), std::string::npos) << s.detail;
}

TEST(LabVerdictModel, TheSummaryCountsTheSizesApart) {
  static Experiment e;
  e.claims = {improves(), improves(), improves()};
  ExperimentOutcome o;
  o.experiment = &e;
  o.claims.resize(3);
  for (int i = 0; i < 3; ++i) o.claims[i].claim = &e.claims[static_cast<std::size_t>(i)];
  o.claims[0].cpp = judge_at(e.claims[0], 158, 10);
  o.claims[1].cpp = judge_at(e.claims[1], 52, 10);
  o.claims[2].cpp = judge_at(e.claims[2], 26, 10);
  const Tally t = tally({o});
  EXPECT_EQ(t.cpp.replicate, 3);
  EXPECT_EQ(t.cpp.larger, 1);
  EXPECT_EQ(t.cpp.as_seed, 1);
  EXPECT_EQ(t.cpp.smaller, 1);
  EXPECT_NE(summary_line(t).find(
                "C++: 3 replicate, 0 contradict, 0 inconclusive; facts: 0 hold, 0 do not hold; "
                "size against the seed's figure: 1 larger, 1 as the seed, 1 smaller, 0 unclear"),
            std::string::npos)
      << summary_line(t);
}

// ---- preconditions -----------------------------------------------------------------

// A directory holding an executable file for each of `names` (stand-ins:
// only their presence is looked at).
std::string programs_dir(const std::vector<std::string>& names) {
  std::string tag;
  for (const std::string& n : names) tag += "-" + n;
  const std::string dir = "/tmp/zerolab-path-" + std::to_string(::getpid()) + tag;
  ::mkdir(dir.c_str(), 0700);
  for (const std::string& n : names) {
    const std::string file = dir + "/" + n;
    std::FILE* f = std::fopen(file.c_str(), "w");
    if (f != nullptr) std::fclose(f);
    ::chmod(file.c_str(), 0700);
  }
  return dir;
}

MachineFacts facts(const std::string& go, std::size_t l3_mib, int cpus, std::uint64_t mem_mib,
                   std::string path = "") {
  MachineFacts f;
  f.go_version = go;
  f.l3_bytes = l3_mib << 20;
  f.cpus = cpus;
  f.memory = mem_mib << 20;
  f.path = std::move(path);
  f.l2_bytes = std::size_t{1} << 20;
  f.cpu_features = {"erms", "avx2"};
  return f;
}

// `f` without the cache size and CPU features the lab reads.
MachineFacts without_cpu_facts(MachineFacts f) {
  f.l2_bytes = 0;
  f.cpu_features.clear();
  return f;
}

const MachineFacts kGo119 = facts("go version go1.19.8 linux/amd64", 32, 2, 4096);
const MachineFacts kGo122 = facts("go version go1.22.2 linux/amd64", 16, 24, 262144,
                                  "/nonexistent:" + programs_dir({"gcc", "objdump"}));

// A machine with everything the catalog's claims rest on: kGo122 with the
// seed's Go 1.24 (stack-zero's 128 KiB limit) and strace (needzero's
// syscalls).
MachineFacts seeds_go() {
  MachineFacts f = kGo122;
  f.go_version = "go version go1.24.10 linux/amd64";
  f.path = programs_dir({"gcc", "objdump", "strace"});
  return f;
}
const MachineFacts kSeedsGo = seeds_go();

std::string reason(const Claim& c, ClaimSide side, const MachineFacts& f) {
  const std::optional<SideOutcome> s = unmet_precondition(c, side, f);
  if (!s) return "";
  EXPECT_EQ(s->verdict, Verdict::kNotComparable);
  return s->detail;
}

Claim with(Precondition p) {
  return Claim::is_faster({"X is faster", "", ""}, "BenchmarkOld", "BenchmarkNew").needs(p);
}

TEST(LabVerdictModel, GoVersionPreconditions) {
  EXPECT_EQ(go_minor_version("go version go1.19.8 linux/amd64"), 19);
  EXPECT_EQ(go_minor_version("go version devel"), -1);
  const Claim splice = with(go_at_least(21, "File.ReadFrom splices from a socket"));
  EXPECT_EQ(reason(splice, ClaimSide::kGo, kGo119),
            "needs Go 1.21 or later (File.ReadFrom splices from a socket): Go here is go1.19.8");
  EXPECT_EQ(reason(splice, ClaimSide::kGo, kGo122), "");
  EXPECT_EQ(reason(splice, ClaimSide::kCpp, kGo119), "");  // the C++ side does not need Go
  EXPECT_EQ(reason(splice, ClaimSide::kGo, facts("", 32, 2, 4096)),
            "needs Go 1.21 or later (File.ReadFrom splices from a socket): no Go version here");
  const Claim old = with(go_before(20, "sendfile falls back at end of file"));
  EXPECT_EQ(reason(old, ClaimSide::kGo, kGo119), "");
  EXPECT_EQ(reason(old, ClaimSide::kGo, kGo122),
            "needs a Go before 1.20 (sendfile falls back at end of file): Go here is go1.22.2");
}

TEST(LabVerdictModel, MachinePreconditions) {
  const Claim l3 = with(larger_than_l3(31u << 20, "memory-bound"));
  EXPECT_EQ(reason(l3, ClaimSide::kCpp, kGo119),
            "a 31 MiB buffer larger than the L3 (memory-bound): the L3 here is 32 MiB, so it fits");
  EXPECT_EQ(reason(l3, ClaimSide::kGo, kGo119),
            "a 31 MiB buffer larger than the L3 (memory-bound): the L3 here is 32 MiB, so it fits");
  EXPECT_EQ(reason(l3, ClaimSide::kCpp, kGo122), "");
  EXPECT_EQ(reason(l3, ClaimSide::kCpp, facts("", 0, 2, 4096)),
            "a 31 MiB buffer larger than the L3 (memory-bound): the L3 size is unknown here");
  const Claim cores = with(cpus_at_least(4, "lock contention"));
  EXPECT_EQ(reason(cores, ClaimSide::kCpp, kGo119),
            "at least 4 CPUs (lock contention): 2 CPUs here");
  EXPECT_EQ(reason(cores, ClaimSide::kGo, kGo122), "");
  const Claim memory = with(memory_at_least(std::uint64_t{8192} << 20, "6.4 GiB of buffers"));
  EXPECT_EQ(reason(memory, ClaimSide::kCpp, kGo119),
            "at least 8192 MiB of available memory (6.4 GiB of buffers): 4096 MiB available here");
  EXPECT_EQ(reason(memory, ClaimSide::kCpp, kGo122), "");
}

// The catalog's claims with a precondition say "not comparable" on a
// machine that lacks it, and are judged on one that has it.
TEST(LabVerdictModel, TheCatalogsPreconditionsFailWhereTheMachineLacksThem) {
  int with_preconditions = 0;
  bool splice_seen = false;
  bool l3_seen = false;
  for (const Experiment& e : catalog()) {
    for (const Claim& c : e.claims) {
      if (c.preconditions.empty()) continue;
      ++with_preconditions;
      // A machine without any of it: Go 1.19, a 256 MiB L3, one CPU, 1 MiB free.
      // No L2 size and no CPU features known either.
      const MachineFacts lacking =
          without_cpu_facts(facts("go version go1.19.8 linux/amd64", 256, 1, 1));
      EXPECT_FALSE(reason(c, ClaimSide::kGo, lacking).empty() &&
                   reason(c, ClaimSide::kCpp, lacking).empty())
          << e.id << ": " << c.statement;
      const std::string go = reason(c, ClaimSide::kGo, kGo119);
      const std::string cpp = reason(c, ClaimSide::kCpp, kGo119);
      EXPECT_EQ(reason(c, ClaimSide::kGo, kSeedsGo), "") << e.id << ": " << c.statement;
      EXPECT_EQ(reason(c, ClaimSide::kCpp, kSeedsGo), "") << e.id << ": " << c.statement;
      if (e.id == "copy" && go.find("splices from a socket") != std::string::npos) {
        splice_seen = true;
        EXPECT_NE(go.find(": Go here is go1.19.8"), std::string::npos) << go;
      }
      if (e.id == "memclr-threshold" && cpp.find("larger than the L3") != std::string::npos) {
        l3_seen = true;
        EXPECT_NE(cpp.find("the L3 here is 32 MiB, so it fits"), std::string::npos) << cpp;
      }
    }
  }
  EXPECT_GE(with_preconditions, 6);
  EXPECT_TRUE(splice_seen);
  EXPECT_TRUE(l3_seen);
}

const Claim* find_claim(const std::string& experiment, const std::string& quote_start,
                        const std::string& slower) {
  for (const Experiment& e : catalog()) {
    if (e.id != experiment) continue;
    for (const Claim& c : e.claims) {
      if (c.statement.rfind(quote_start, 0) == 0 && c.slower == slower) return &c;
    }
  }
  return nullptr;
}

TEST(LabVerdictModel, CacheAndCpuFeaturePreconditions) {
  const Claim l2 = with(fits_in_l2(256u << 10, "cache-resident"));
  EXPECT_EQ(reason(l2, ClaimSide::kCpp, kGo119), "");
  MachineFacts small = kGo119;
  small.l2_bytes = 128u << 10;
  EXPECT_EQ(reason(l2, ClaimSide::kCpp, small),
            "a 256 KiB buffer that fits the L2 (cache-resident): the L2 here is 128 KiB");
  EXPECT_EQ(reason(l2, ClaimSide::kGo, without_cpu_facts(kGo119)),
            "a 256 KiB buffer that fits the L2 (cache-resident): the L2 size is unknown here");
  const Claim erms = with(cpu_has("erms", "REP STOSB/STOSQ fast path"));
  EXPECT_EQ(reason(erms, ClaimSide::kCpp, kGo119), "");
  EXPECT_EQ(reason(erms, ClaimSide::kCpp, without_cpu_facts(kGo119)),
            "a CPU with erms (REP STOSB/STOSQ fast path): this CPU has no erms");
  // The catalog's claims on them: memclr's start-up cost needs ERMS and AVX2, ReuseClear's
  // flat throughput a 256 KiB buffer in the L2.
  const Claim* start_up =
      find_claim("memclr-threshold", "От двух килобайт", "BenchmarkZero/method=rep-stosq/size=64B");
  ASSERT_NE(start_up, nullptr);
  MachineFacts no_erms = kGo119;
  no_erms.cpu_features = {"avx2"};
  EXPECT_EQ(reason(*start_up, ClaimSide::kCpp, no_erms),
            "a CPU with erms (the seed's string-instruction path is Go's ERMS branch): this CPU "
            "has no erms");
  EXPECT_EQ(reason(*start_up, ClaimSide::kCpp, kGo119), "");
  const Claim* flat = find_claim("make-reuse-clear", "На 16 и 256 килобайтах",
                                 "BenchmarkZeroedBuffer/ReuseClear/size=16KiB");
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(reason(*flat, ClaimSide::kGo, small),
            "a 256 KiB buffer that fits the L2 (the seed's 256 KB buffer stays in a cache): the "
            "L2 here is 128 KiB");
  EXPECT_EQ(reason(*flat, ClaimSide::kCpp, kGo119), "");
}

// A claim that needs the seed's core count or more memory than this machine
// has says so on the side that needs it, and only there.
TEST(LabVerdictModel, CoreAndMemoryPreconditionsFailWhereTheMachineLacksThem) {
  const Claim* lock = find_claim("udp-buffers", "Unfortunately, this doesn’t scale well past 10000",
                                 "BenchmarkUDPBuffers/SimplePool/conns=10000");
  ASSERT_NE(lock, nullptr);
  EXPECT_EQ(reason(*lock, ClaimSide::kGo, kGo119),
            "at least 24 CPUs (the seed's 24 threads contend for SimplePool's one lock): 2 CPUs "
            "here");
  EXPECT_EQ(reason(*lock, ClaimSide::kGo, kGo122), "");
  EXPECT_EQ(reason(*lock, ClaimSide::kCpp, kGo119), "");  // C++ has its own reason

  const Claim* cold = find_claim("udp-buffers", "Simplepool performs well",
                                 "BenchmarkUDPBuffers/FixedLargeBuffer/conns=100000");
  ASSERT_NE(cold, nullptr);
  EXPECT_EQ(reason(*cold, ClaimSide::kCpp, facts("", 32, 2, 2048)),
            "at least 6250 MiB of available memory (FixedLargeBuffer's 100000 buffers of 64 KiB "
            "at 100000 connections): 2048 MiB available here");
  EXPECT_EQ(reason(*cold, ClaimSide::kCpp, kGo122), "");
  EXPECT_EQ(reason(*cold, ClaimSide::kGo, facts("", 32, 2, 2048)), "");

  const Claim* pass =
      find_claim("zero-cost", "Первый проход на запись", "BenchmarkZeroCost/first-write-pass");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(reason(*pass, ClaimSide::kCpp, facts("", 32, 2, 512)),
            "at least 1024 MiB of available memory (a pass makes a fresh 1 GiB buffer resident): "
            "512 MiB available here");
  EXPECT_EQ(reason(*pass, ClaimSide::kCpp, kGo119), "");
}

// The seed's gcc and objdump: a fact that runs them is not comparable where
// either is missing from PATH.
TEST(LabVerdictModel, ProgramsOnPathPreconditions) {
  const Claim* fold = find_claim("zero-cost", "GCC на -O2", "");
  ASSERT_NE(fold, nullptr);
  const std::string what = "gcc and objdump on PATH (the seed's gcc -O2 and objdump -d): ";
  EXPECT_EQ(reason(*fold, ClaimSide::kCpp, kGo122), "");
  EXPECT_EQ(reason(*fold, ClaimSide::kCpp, facts("", 32, 2, 4096, "")),
            what + "no gcc on PATH here");
  EXPECT_EQ(reason(*fold, ClaimSide::kCpp, facts("", 32, 2, 4096, programs_dir({"gcc"}))),
            what + "no objdump on PATH here");
  EXPECT_EQ(reason(*fold, ClaimSide::kCpp, facts("", 32, 2, 4096, programs_dir({"objdump"}))),
            what + "no gcc on PATH here");
  EXPECT_EQ(reason(*fold, ClaimSide::kGo, facts("", 32, 2, 4096, "")), "");  // C only
}

TEST(LabVerdictModel, EverySeedHasATitleAndAWhere) {
  for (const Experiment& e : catalog()) {
    const Source* s = source_of(e.seed_file);
    ASSERT_NE(s, nullptr) << e.id << ": " << e.seed_file;
    EXPECT_FALSE(s->title.empty());
    EXPECT_FALSE(s->where.empty());
    EXPECT_EQ(source_name(e.seed_file).rfind("“", 0), 0u);
  }
  EXPECT_EQ(source_name("003_8cb2aa8b072200dd.txt"),
            "“perf: improve copyZeroAlloc for os.File and net.TCPConn #1893” by ksw2000");
  EXPECT_EQ(source_name("000_46e1f39ca2df3ed5.txt"),
            "“MergeSlice benchmarks” by an author the text does not name");
  EXPECT_EQ(source_name("unknown.txt"), "unknown.txt");
}

}  // namespace
}  // namespace zerolab::lab
