// lab/lab_run.hpp — runs experiments the way `zerolab lab` does: checks
// every selected experiment's facts first (while the heap is still as the
// process started), then runs each experiment's benchmarks `count` times
// interleaved (A B C A B C ...) so drift hits all of them alike, judges the
// claims, prints each experiment's claims table as it finishes, and writes
// the raw results (<id>.txt, Go benchmark format with the machine's config
// lines), report.md and report.html into the output directory, each through a temporary
// file and a rename. With a baseline (lab/baseline.hpp) it compares the
// results with it after the run, and with save_name it saves them as one.
//
// The seed's Go code: each experiment's peer is built once with `go test -c`
// (cached) and run in the same rounds (A B C ... Go), its results read with
// the stat reader and every claim judged twice (Go here, C++).
//
// Thread-safety: one lab run per process (the allocation counters and the
// benchmarks' memory use are process-wide).
//
// Example:
//   LabSettings s;
//   s.experiments = {&catalog()[0]};
//   s.out_dir = "zerolab-results/x";
//   int code = run_lab(s, stdout, stderr);  // 0, or 1 if a claim errored
//   // with s.baseline = &b and s.fail_percent = 5: 3 on a regression > 5%
#ifndef ZEROLAB_LAB_LAB_RUN_HPP_
#define ZEROLAB_LAB_LAB_RUN_HPP_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lab/framework/experiment.hpp"
#include "lab/framework/go_peer.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"

namespace zerolab::lab {

struct Baseline;  // lab/baseline.hpp

struct LabSettings {
  std::vector<const Experiment*> experiments;
  int count = 10;  // runs of each benchmark; < kMinRunsForTest makes verdicts provisional
  std::chrono::nanoseconds benchtime{std::chrono::milliseconds(500)};
  std::int64_t iterations = 0;  // > 0: --benchtime Nx, for every benchmark
  std::string benchtime_text = "500ms";
  std::string out_dir;  // must exist and be writable
  // Non-empty: out_dir is a staging directory (lab/directory_swap.hpp) that
  // is put in place of final_dir in one step once every result file and
  // report is written (final_dir is left as it was when a write failed);
  // the summary's "results:" line, on_finished and --save then use final_dir.
  std::string final_dir;
  std::string command;    // shown in report.md
  bool progress = false;  // progress line on `err`
  double alpha = 0.05;
  // When non-empty: a CPU / allocation profile of each experiment's timed
  // code, written to <dir>/<id>.cpu.prof / <id>.mem.prof (pprof's format,
  // symbols resolved: go tool pprof -top FILE).
  std::string cpuprofile_dir;
  int cpuprofile_rate = 100;
  std::string memprofile_dir;
  std::uint64_t memprofile_rate = 512 * 1024;
  // --baseline: after the run, each experiment's results are compared with
  // this baseline's (loaded and checked beforehand by load_baseline); the
  // text tables follow the summary, report.md gets a section. Null: none.
  const Baseline* baseline = nullptr;
  // >= 0 (--fail-on-regression=PCT, with baseline): exit 3 when a change is
  // significant and worse by more than PCT% (unless the exit code is 1).
  double fail_percent = -1;
  // --save: after the run (and the comparison), keep the raw results as
  // baseline save_name in save_dir (which must exist); not when the gate
  // found a regression.
  std::string save_name;
  std::string save_dir;
  // Called once every result file and report is written (before --save),
  // with what ran and the directory its files are in (final_dir once
  // installed); returns false, having said why on stderr, when keeping
  // the run failed (the exit code is then 1). `zerolab lab` stores the run
  // in the results store here (tools/zerolab/lab_store.cpp).
  std::function<bool(const std::vector<ExperimentOutcome>& outcomes, const MachineInfo& machine,
                     const std::string& results_dir)>
      on_finished;
  // The seed's Go code (lab/go_peer.hpp): with go on, each experiment with
  // a go_peer has it built once (cached in go_cache_dir by source hash) and
  // run in every round after the C++ benchmarks; off (--go=off): skipped,
  // verdict (Go here) "not run". go_command is found on PATH; without it
  // the Go column says so and the run goes on.
  bool go = true;
  // --full, or experiments named on the command line: the Go peers whose
  // faithful regime exceeds the default budget (Experiment::go_full_seconds)
  // run too; otherwise they are "not run within the budget".
  bool full = false;
  bool named = false;
  // --measure=instructions (lab/framework/counts.hpp): after the timed runs, the C++
  // benchmarks of the claims that counts answer run once more under
  // callgrind, and the reports show their counts beside the time verdicts.
  // The executable must call run_counting_child_if_asked first thing.
  bool count_instructions = false;
  std::string go_command = "go";
  std::string go_peers_dir = default_go_peers_dir();
  std::string go_cache_dir = default_go_cache_dir();
};

// Why a Go peer whose faithful regime exceeds the default budget did not
// run: "not run within the budget: needs about 300 s; run `zerolab lab
// --full` or name the experiment (`zerolab lab udp-buffers`)".
std::string budget_text(const Experiment& e);
// The same for a part that needs about `seconds` (a C++ benchmark's
// BenchmarkSpec::full_seconds).
std::string budget_text(const Experiment& e, int seconds);

// Returns the exit code: 0; 1 when a benchmark failed, a claim is an error
// or a file (or the baseline) could not be written; else 3 when the
// regression gate (fail_percent >= 0) found a regression.
int run_lab(const LabSettings& settings, std::FILE* out, std::FILE* err);

// Whether fd takes the progress line (it redraws itself with "\r\033[K"):
// a terminal whose TERM is set and is not "dumb".
bool progress_line_wanted(int fd);

// The time now in UTC, through strftime: utc_now("%Y%m%dT%H%M%SZ") is
// "20261203T130925Z" (the results folder's default name).
std::string utc_now(const char* strftime_format);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_LAB_RUN_HPP_
