// lab/experiment.hpp — what an experiment of `zerolab lab` is: the seed
// claims it re-tests, the harness benchmarks that measure them, and the
// facts it checks directly.
//
// A claim is one of three kinds:
//   - ratio: benchmark `slower` takes at least `at_least` times as long as
//     benchmark `faster` in `unit` (the seed says "X is 1.20x faster");
//   - bound: one benchmark's median in `unit`, times `scale`, lies in
//     [lo, hi] (the seed says "calloc of 1 GiB takes ~0 ms");
//   - fact: a function that looks at the machine and says whether the
//     seed's statement holds here, and what it saw.
// Benchmarks are ordinary functions of zerolab::B&; the lab runs them
// in-process with zerolab::run_benchmark, interleaved.
//
// Thread-safety: experiments are immutable after catalog() builds them.
//
// Example:
//   Experiment e;
//   e.id = "merge";
//   e.benchmarks.push_back({"BenchmarkMerge/malloc", &merge_malloc});
//   e.claims.push_back(Claim::ratio("uninitialized merge is faster",
//       "1.20x (20018 vs 16722 ns/op)", "BenchmarkMerge/malloc+memset",
//       "BenchmarkMerge/malloc"));
#ifndef ZEROLAB_LAB_EXPERIMENT_HPP_
#define ZEROLAB_LAB_EXPERIMENT_HPP_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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
};

// What a fact check saw.
struct FactResult {
  bool holds = false;
  std::string observed;  // one line: what was seen on this machine
};

enum class ClaimKind { kRatio, kBound, kFact };

struct Claim {
  ClaimKind kind = ClaimKind::kRatio;
  std::string statement;    // what the seed says, in one line
  std::string seed_figure;  // the seed's own number(s), "" if it gives none

  // kRatio: slower / faster >= at_least, in unit.
  std::string slower;
  std::string faster;
  double at_least = 1.0;
  // kBound: lo <= median(benchmark in unit) * scale <= hi (lo and hi in
  // the scaled unit, bound_unit).
  std::string benchmark;
  double scale = 1.0;
  double lo = 0;
  double hi = 0;
  std::string bound_unit;  // how the scaled value is shown, e.g. "faults/page"
  // kRatio and kBound.
  std::string unit = "ns/op";
  // kFact.
  std::function<FactResult()> check;

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
  std::string prefix;  // "BenchmarkZero/"
  std::string unit;    // "MB/s", "ns/op", "faults/op", "heap-after-B"
  std::string y_label; // what the unit measures: "throughput"
  std::string x_key;   // kSweep: "size"
  std::string x_label; // kSweep: "buffer size"
  std::vector<std::string> series_ignore;
  bool cache_marks = false;  // kSweep: mark the machine's L1d, L2 and L3 sizes

  static PlotSpec sweep(std::string title, std::string prefix, std::string x_key,
                        std::string x_label, std::string unit, std::string y_label);
  static PlotSpec strip(std::string title, std::string prefix, std::string unit,
                        std::string y_label);
};

struct Experiment {
  std::string id;            // "merge": what `zerolab lab merge` selects
  std::string title;         // one line
  std::string seed_file;     // "000_46e1f39ca2df3ed5.txt"
  std::string seed_section;  // the section of the seed it tests
  // Where C++ differs from Go for a known reason, one line; may be empty.
  std::string note;
  std::vector<BenchmarkSpec> benchmarks;
  std::vector<Claim> claims;
  std::vector<PlotSpec> plots;
};

// Every experiment, in the order the lab runs them.
const std::vector<Experiment>& catalog();

// The experiments of catalog() (defined one per file in lab/experiments/).
Experiment make_merge_experiment();
Experiment make_zero_cost_experiment();
Experiment make_dirty_memory_experiment();
Experiment make_memclr_threshold_experiment();
Experiment make_chunked_zero_experiment();
Experiment make_make_reuse_clear_experiment();
Experiment make_stack_zero_experiment();
Experiment make_copy_vs_append_experiment();
Experiment make_needzero_experiment();
Experiment make_copy_experiment();
Experiment make_arena_experiment();
Experiment make_oid_experiment();
Experiment make_append_int_experiment();
Experiment make_reset_cost_experiment();
Experiment make_udp_buffers_experiment();

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_EXPERIMENT_HPP_
