// lab/experiment.hpp — what an experiment of `zerolab lab` is: the seed
// claims it re-tests, the harness benchmarks that measure them, and the
// facts it checks directly.
//
// A claim quotes its seed (SeedRef: the words, the section, the figure)
// and is one of these kinds (the verdict rules are in lab/verdict.hpp):
//   - ratio ("X is faster" → k = 1; "at least 5x" → k = 5): slower/faster
//     >= k, one-sided;
//   - band ("about 2x"): the ratio's 95% interval lies inside
//     [N / kBandWidth, N * kBandWidth], or an explicit [lo, hi];
//   - equivalence ("no change"): slower/faster within ±noise (the seed's
//     own run-to-run noise, a fraction: 0.05 for ±5%);
//   - bound: one benchmark's median in `unit`, times `scale`, lies in
//     [lo, hi] (the seed's numbers);
//   - fact: a function that looks at the machine (C++ side) or at the
//     compiled Go peer (Go side) and says whether the seed's statement
//     holds here, and what it saw.
// Each claim is judged twice: on the seed's Go code run here (`go`, the
// Go peer's benchmark names; verdict (Go here)) and on the C++ port
// (the flat fields below; verdict (C++)). Either side may say it cannot
// test the claim, with a reason (not comparable). A claim the seed does
// not make is the project's own (origin kProject), counted apart.
// Benchmarks are ordinary functions of zerolab::B&; the lab runs them
// in-process with zerolab::run_benchmark, interleaved with the Go peer's.
// The guide for experiment authors: /work/notes/labinfra-api.md.
//
// Thread-safety: experiments are immutable after catalog() (lab/experiments/catalog.hpp)
// builds them.
//
// Example:
//   Experiment e;
//   e.id = "merge";
//   e.go_peer = "merge";  // peers/go/merge
//   e.benchmarks.push_back({"BenchmarkMerge/malloc", &merge_malloc});
//   e.claims.push_back(
//       Claim::is_faster({"uninitialized is faster", "MergeSlice benchmarks",
//                        "1.20x (20018 vs 16722 ns/op)"},
//                       "BenchmarkMerge/malloc+memset", "BenchmarkMerge/malloc")
//           .go_names("BenchmarkMergeSlicesZero", "BenchmarkMergeSlicesNoZero"));
#ifndef ZEROLAB_LAB_EXPERIMENT_HPP_
#define ZEROLAB_LAB_EXPERIMENT_HPP_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lab/framework/precondition.hpp"
#include "zerolab/bench.hpp"

namespace zerolab::lab {

struct BenchmarkSpec {
  std::string name;  // the full result name, "BenchmarkMerge/malloc"
  std::function<void(B&)> function;
  // > 0: every run does exactly this many iterations (for benchmarks whose
  // one iteration takes a large fraction of a second, such as 1 GiB passes).
  std::int64_t iterations = 0;
  // > 0: at most this much time per run (the lab's --benchtime still caps
  // it), for experiments with many cheap, stable benchmarks.
  std::chrono::nanoseconds benchtime{0};
  // > 0: its faithful run does not fit the default run's budget; it needs
  // about this many seconds. The default run leaves it out (its claims say
  // "not run within the budget"); `--full`, or the experiment named alone,
  // runs it.
  int full_seconds = 0;
};

// What a fact check saw.
struct FactResult {
  bool holds = false;
  std::string observed;  // one line: what was seen on this machine
};

// The compiled Go peer a Go-side fact looks at (stack-zero's objdump).
struct GoPeerBinary {
  std::string path;  // the `go test -c` binary
  std::string go;    // the go command that built it ("go" on PATH)
};

// Where a claim comes from: the seed's own words.
struct SeedRef {
  std::string quote;    // the seed's words, verbatim (cut with "…" only)
  std::string section;  // the seed's section heading it is in
  std::string figure;   // the seed's figure, "1.20x (20018 vs 16722 ns/op)"; "" if none
};

enum class ClaimKind { kRatio, kBand, kEquivalence, kBound, kFact };
enum class ClaimOrigin { kSeed, kProject };

// "About Nx" is the band [N / kBandWidth, N * kBandWidth].
inline constexpr double kBandWidth = 1.25;

// Claims that count allocations or bytes are judged on these untruncated
// units (the harness's RunSettings::exact_memory; the Go peers report the
// same from runtime.MemStats), never on the allocs/op and B/op Go prints,
// which are truncated integers (0.4 prints as 0). judge.cpp refuses the
// truncated units.
inline constexpr const char* kAllocsPerOp = "mallocs/op";
inline constexpr const char* kBytesPerOp = "malloc-B/op";
// "Allocates nothing" / "0 allocs/op": fewer than one allocation and 100
// bytes per thousand ops. A run's stray allocations by the Go runtime (a few
// in a million ops) stay below; code that allocates on a fraction of its ops
// (0.4 allocs/op, which Go prints as 0) does not.
inline constexpr double kNothingAllocsPerOp = 0.001;
inline constexpr double kNothingBytesPerOp = 0.1;
// The seed's "N allocs/op" (N >= 1) is Go's truncated count, so the exact
// count it states lies in [N, N + kBelowNextCount].
inline constexpr double kBelowNextCount = 0.999;

// The Go peer's side of a claim: its benchmark names (as `go test -bench`
// prints them, without the -GOMAXPROCS suffix), or why Go here cannot
// test it. All empty: the experiment has no Go side for this claim.
struct GoSide {
  std::string slower;                                    // ratio, band, equivalence: numerator
  std::string faster;                                    // ... denominator
  std::string benchmark;                                 // bound
  std::string unit;                                      // "" = the claim's unit
  double scale = 0;                                      // bound; 0 = the claim's scale
  std::string not_comparable;                            // non-empty: why Go here cannot test it
  std::function<FactResult(const GoPeerBinary&)> check;  // fact
  // A claim over several rows: more (slower, faster) pairs of the Go
  // peer's, judged as Claim::more_rows are.
  std::vector<std::pair<std::string, std::string>> more_rows;
  // True: `faster` names a C++ benchmark of the same run, in the claim's
  // unit: the seed compares its Go with its C (the C++ side runs the
  // seed's C), so Go here is the seed's Go against the seed's C, both run
  // here.
  bool faster_is_c = false;
  bool empty() const {
    return slower.empty() && faster.empty() && benchmark.empty() && not_comparable.empty() &&
           !check;
  }
};

struct Claim {
  ClaimKind kind = ClaimKind::kRatio;
  ClaimOrigin origin = ClaimOrigin::kSeed;
  std::string statement;     // the seed's words (SeedRef::quote), or the project's claim
  std::string seed_figure;   // the seed's own number(s), "" if it gives none
  std::string seed_section;  // the section of the seed it quotes, "" = the experiment's

  // The C++ side. kRatio: slower / faster >= at_least. kBand: the ratio in
  // [band_lo, band_hi]. kEquivalence: the ratio in [1/(1+noise), 1+noise].
  std::string slower;
  std::string faster;
  double at_least = 1.0;  // kRatio's k; kBand's N (the seed's factor)
  double band_lo = 0;
  double band_hi = 0;
  double noise = 0;
  // kBound: lo <= median(benchmark in unit) * scale <= hi (lo and hi in
  // the scaled unit, bound_unit).
  std::string benchmark;
  double scale = 1.0;
  double lo = 0;
  double hi = 0;
  std::string bound_unit;  // how the scaled value is shown, e.g. "faults/page"
  // All but kFact. Counts are kAllocsPerOp / kBytesPerOp (untruncated).
  std::string unit = "ns/op";
  // kFact.
  std::function<FactResult()> check;
  // Non-empty: why the C++ port cannot test this claim (a different
  // mechanism); the C++ verdict is then "not comparable".
  std::string cpp_not_comparable;
  // The seed's own figure as a ratio (slower/faster), shown beside the
  // verdict as the size of the effect against the seed's (judge_size); 0:
  // none. Context only, unless the claim is a band (a factor in words).
  double seed_ratio = 0;
  // A ratio claim over several rows of a table (one sentence about all of
  // them): more (slower, faster) C++ pairs judged like the first. The claim
  // replicates when every row does, contradicts when one row contradicts,
  // and is inconclusive otherwise.
  std::vector<std::pair<std::string, std::string>> more_rows;
  // What the claim rests on besides the code measured (a Go version's
  // feature, a cache size, ...), checked on the machine at hand: a side
  // whose precondition fails is "not comparable", with the reason.
  std::vector<Precondition> preconditions;

  GoSide go;

  // `zerolab lab --measure=instructions`: the instructions and cycles its
  // C++ benchmarks execute per op answer the claim (it is about work done:
  // bytes zeroed per op, bookkeeping per call, which code sequence runs),
  // so the counts are shown beside its time verdict. False: counts do not
  // answer it (time, faults, bandwidth, a fact) and the report says so.
  bool counts_answer = false;

  // ---- Constructors: the seed's words first, then the C++ benchmarks.
  // "X is faster than Y": slower/faster > 1.
  static Claim is_faster(SeedRef seed, std::string slower, std::string faster);
  // A direction or a quality in the seed's words ("X improves Y") with a
  // figure read off its table (`seed_ratio`): slower/faster > 1, the
  // figure only the size shown beside the verdict.
  static Claim direction(SeedRef seed, double seed_ratio, std::string slower, std::string faster);
  // "at least k times": slower/faster >= k.
  static Claim at_least_times(SeedRef seed, double k, std::string slower, std::string faster);
  // "about N times": slower/faster in [N / kBandWidth, N * kBandWidth].
  static Claim about(SeedRef seed, double n, std::string slower, std::string faster);
  // "no change": a/b within ±noise (a fraction: the seed's own noise).
  static Claim no_change(SeedRef seed, double noise, std::string a, std::string b);
  // The seed's numbers: lo <= median(benchmark, unit) * scale <= hi.
  static Claim within(SeedRef seed, std::string benchmark, std::string unit, double lo, double hi,
                      double scale = 1.0, std::string bound_unit = "");
  // A real check that can fail.
  static Claim fact_check(SeedRef seed, std::function<FactResult()> check);

  // ---- Modifiers, chained: Claim::about(...).in("B/op").go_names(...).
  Claim& in(std::string unit);                              // the unit compared (default ns/op)
  Claim& band(double lo, double hi);                        // an explicit band instead of N±25%
  Claim& go_names(std::string slower, std::string faster);  // the Go peer's benchmarks
  Claim& go_bench(std::string benchmark);                   // bound: the Go peer's benchmark
  Claim& go_unit(std::string unit, double scale = 0);       // when Go reports another unit
  Claim& go_fact(std::function<FactResult(const GoPeerBinary&)> check);
  Claim& go_also(std::string slower, std::string faster);  // one more row (Go side)
  // Go here: the Go peer's `go_slower` against the seed's C run here as
  // the C++ benchmark `c_faster` (GoSide::faster_is_c).
  Claim& go_against_c(std::string go_slower, std::string c_faster);
  Claim& go_not_comparable(std::string why);            // Go 1.19 here cannot test it
  Claim& cpp_not_comparable_because(std::string why);   // C++ cannot test it
  Claim& project();                                     // not the seed's claim
  Claim& sized(double seed_ratio);                      // the seed's figure, for the size
  Claim& needs(Precondition p);                         // a precondition, checked here
  Claim& also(std::string slower, std::string faster);  // one more row (C++ side)
  Claim& counted();  // instruction counts answer it (counts_answer)

  // Older constructors (statement + figure, no section), kept while the
  // experiments move to the ones above.
  static Claim ratio(std::string statement, std::string seed_figure, std::string slower,
                     std::string faster, double at_least = 1.0, std::string unit = "ns/op");
  static Claim bound(std::string statement, std::string seed_figure, std::string benchmark,
                     std::string unit, double lo, double hi, double scale = 1.0,
                     std::string bound_unit = "");
  static Claim fact(std::string statement, std::string seed_figure,
                    std::function<FactResult()> check);
};

// A plot report.html draws from an experiment's results (besides the one
// per ratio claim, which every experiment gets).
//   - kSweep: a line per series of the medians of `unit` against the value
//     of the name element "<x_key>=VALUE" (a size such as "64KiB", or a
//     number); the series is the rest of the name after `prefix`, without
//     the elements whose keys are in `series_ignore`.
//   - kStrip: every sample of `unit` of each benchmark under `prefix`, one
//     row per benchmark, with its median and confidence interval.
struct PlotSpec {
  enum class Kind { kSweep, kStrip };
  Kind kind = Kind::kSweep;
  std::string title;
  std::string prefix;   // "BenchmarkZero/"
  std::string unit;     // "MB/s", "ns/op", "faults/op", "heap-after-B"
  std::string y_label;  // what the unit measures: "throughput"
  std::string x_key;    // kSweep: "size"
  std::string x_label;  // kSweep: "buffer size"
  std::vector<std::string> series_ignore;
  bool cache_marks = false;  // kSweep: mark the machine's L1d, L2 and L3 sizes

  static PlotSpec sweep(std::string title, std::string prefix, std::string x_key,
                        std::string x_label, std::string unit, std::string y_label);
  static PlotSpec strip(std::string title, std::string prefix, std::string unit,
                        std::string y_label);
};

// The seed an experiment tests: its file under the seeds and the section.
struct SeedSection {
  std::string file;     // "000_46e1f39ca2df3ed5.txt"
  std::string section;  // "MergeSlice benchmarks (Benchmark_MergeSlicesZero / NoZero)"
};

// An experiment's Go peer, as Experiment::go_peer, go_benchtime,
// go_differences and go_benchmarks: name "" = no peer (the differences
// then say why). Members left out of a braced list are empty.
struct GoPeerSpec {
  std::string name{};
  std::string benchtime{};
  std::vector<std::string> differences{};
  std::string benchmarks{};
};

struct Experiment {
  std::string id;            // "merge": what `zerolab lab merge` selects
  std::string title;         // one line
  std::string seed_file;     // "000_46e1f39ca2df3ed5.txt"
  std::string seed_section;  // the section of the seed it tests
  // What still differs from the seed in the C++ port (sizes, work per op,
  // setup, live set, mechanism) and why: one line each. Shown under the
  // experiment in the claims table, report.md/html and `zerolab lab --list`.
  std::vector<std::string> differences;
  std::vector<BenchmarkSpec> benchmarks;
  // The seed's own Go code: peers/go/<go_peer>/ (a package whose _test.go
  // has the seed's benchmarks); "" = none. The lab builds it once with
  // `go test -c` and runs go_benchmarks (a -test.bench regexp; "" = ".")
  // in every round beside the C++ benchmarks, with -test.benchtime
  // go_benchtime (Go's syntax, "100ms" or "20x"; "" = the lab's
  // --benchtime; --quick caps it). go_differences: what the Go peer had to
  // change from the seed's code, or could not do (Go 1.19, no patched
  // runtime), one line each; for an experiment without a peer, why.
  std::string go_peer;
  std::string go_benchmarks;
  std::string go_benchtime;
  std::vector<std::string> go_differences;
  // > 0: the Go peer's faithful regime does not fit the default run's
  // budget; it needs about this many seconds. The default run then leaves
  // the Go peer out and says so; `--full`, or the experiment named alone on
  // the command line, runs it at go_benchtime (never a shorter one: the
  // budget does not change what is measured).
  int go_full_seconds = 0;
  // Extra C++ ↔ Go benchmark pairs for the medians table's "C++ / Go here"
  // column (the claims' own pairs are added automatically).
  std::vector<std::pair<std::string, std::string>> go_pairs;
  std::vector<Claim> claims;
  std::vector<PlotSpec> plots;

  // Everything but the benchmarks, claims, pairs and plots, in one call:
  //   Experiment e = Experiment::from_seed(
  //       "merge", "merging three buffers into a new one",
  //       {"000_46e1f39ca2df3ed5.txt", "MergeSlice benchmarks"}, {"No GC: ..."},
  //       {"merge", "100ms", {"unsafe.Slice instead of ..."}});
  static Experiment from_seed(std::string id, std::string title, SeedSection seed,
                              std::vector<std::string> differences, GoPeerSpec go);
};

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_EXPERIMENT_HPP_
