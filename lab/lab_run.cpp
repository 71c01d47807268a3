// The lab driver (lab_run.hpp).
#include "lab/lab_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>

#include "bench/options.hpp"
#include "files/atomic_file.hpp"
#include "lab/baseline.hpp"
#include "lab/counts.hpp"
#include "lab/directory_swap.hpp"
#include "lab/judge.hpp"
#include "lab/machine_info.hpp"
#include "lab/report.hpp"
#include "lab/report_html.hpp"
#include "profile/cpu_profiler.hpp"
#include "profile/mem_profiler.hpp"
#include "zerolab/bench_run.hpp"

namespace zerolab::lab {
namespace {

using Clock = std::chrono::steady_clock;

// What a failed run said, joined with "; ".
std::string failure_message(const RunReport& report) {
  std::string out;
  for (const auto& line : report.failure_messages) out += (out.empty() ? "" : "; ") + line;
  return out.empty() ? "failed" : out;
}

class Progress {
 public:
  Progress(bool enabled, std::FILE* err) : enabled_(enabled), err_(err), start_(Clock::now()) {}
  void show(std::size_t k, std::size_t n, const std::string& id, const std::string& bench, int run,
            int count) {
    if (!enabled_) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    std::fprintf(err_, "\r\033[K[%zu/%zu %s] %s run %d/%d  %.1fs", k, n, id.c_str(), bench.c_str(),
                 run, count, seconds);
    std::fflush(err_);
  }
  void clear() {
    if (!enabled_) return;
    std::fputs("\r\033[K", err_);
    std::fflush(err_);
  }

 private:
  bool enabled_;
  std::FILE* err_;
  Clock::time_point start_;
};

// `header`, then the results in the Go benchmark format, names padded to one width.
std::string results_text(std::string header, const std::vector<benchfmt::Result>& results) {
  std::size_t width = 0;
  for (const auto& r : results) width = std::max(width, r.name.size());
  for (const auto& r : results) header += benchfmt::format_result_line(r, width) + "\n";
  return header;
}

std::string raw_results_text(const ExperimentOutcome& o, const MachineInfo& machine) {
  return results_text(config_text(machine) + "pkg: zerolab/lab/" + o.experiment->id +
                          "\nseed: " + o.experiment->seed_file + "\n",
                      o.results);
}

// The Go peer of one experiment during a run: built (or not, and why),
// and the arguments each round passes it.
struct GoPeerState {
  bool runnable = false;
  GoPeerBinary binary;
  std::string workdir;
  std::vector<std::string> args;
  std::set<std::string> failures_seen;
};

// -test.benchtime for an experiment's peer: its go_benchtime capped at
// the lab's time per run (so --quick stays quick), or the lab's.
std::string go_benchtime(const LabSettings& s, const Experiment& e) {
  if (e.go_full_seconds > 0) return e.go_benchtime;  // its faithful regime, never capped
  if (e.go_benchtime.empty() || s.iterations > 0) return s.benchtime_text;
  internal::BenchTime own;
  std::string error;
  if (!internal::parse_benchtime(e.go_benchtime, own, error)) return s.benchtime_text;
  if (own.iterations > 0) return e.go_benchtime;
  return own.duration <= s.benchtime ? e.go_benchtime : s.benchtime_text;
}

}  // namespace

std::string budget_text(const Experiment& e) {
  return "not run within the budget: needs about " + std::to_string(e.go_full_seconds) +
         " s; run `zerolab lab --full` or name the experiment (`zerolab lab " + e.id + "`)";
}

namespace {

// Builds the experiment's Go peer (when it has one and Go runs); sets
// o.go_not_run when it will not run. Returns false when the build failed.
bool prepare_go_peer(const LabSettings& s, const GoToolchain& go, ExperimentOutcome& o,
                     GoPeerState& peer, Progress& progress, std::size_t k, std::size_t n) {
  const Experiment& e = *o.experiment;
  if (e.go_peer.empty()) return true;
  if (!s.go) {
    o.go_not_run = "--go=off";
    return true;
  }
  if (go.path.empty()) {
    o.go_not_run = go.error;
    return true;
  }
  if (e.go_full_seconds > 0 && !s.full && !s.named) {
    o.go_not_run = budget_text(e);
    return true;
  }
  progress.show(k, n, e.id, "building Go peer peers/go/" + e.go_peer, 0, s.count);
  const GoPeerBuild b = build_go_peer(go, s.go_peers_dir, e.go_peer, s.go_cache_dir);
  if (!b.ok) {
    o.go_not_run = "the Go peer did not build: " + b.error;
    return false;
  }
  peer.runnable = true;
  peer.binary = {b.binary, go.path};
  peer.workdir = s.go_peers_dir + "/" + e.go_peer;
  peer.args = {"-test.run=^$",
               "-test.bench=" + (e.go_benchmarks.empty() ? std::string(".") : e.go_benchmarks),
               "-test.benchtime=" + go_benchtime(s, e), "-test.count=1", "-test.benchmem"};
  return true;
}

// One round of the Go peer: its results appended, new failures recorded.
void run_go_round(GoPeerState& peer, ExperimentOutcome& o) {
  GoPeerRun r = run_go_peer(peer.binary.path, peer.workdir, peer.args);
  for (auto& result : r.results) o.go_results.push_back(std::move(result));
  for (auto& f : r.failures) {
    if (peer.failures_seen.insert(f.text()).second) o.go_failures.push_back(std::move(f));
  }
}

// Runs the benchmarks of one experiment, interleaved, into `o`: per round
// every C++ benchmark, then the Go peer's.
void run_benchmarks(const LabSettings& s, ExperimentOutcome& o, GoPeerState& peer,
                    Progress& progress, std::size_t k, std::size_t n) {
  const Experiment& e = *o.experiment;
  std::set<std::string> failed;
  for (int run = 1; run <= s.count; ++run) {
    for (const auto& spec : e.benchmarks) {
      if (failed.count(spec.name) != 0) continue;
      progress.show(k, n, e.id, spec.name, run, s.count);
      RunSettings rs;
      rs.benchtime =
          spec.benchtime.count() > 0 ? std::min(spec.benchtime, s.benchtime) : s.benchtime;
      rs.iterations = spec.iterations > 0 ? spec.iterations : s.iterations;
      rs.cpu = 1;
      rs.exact_memory = true;  // claims count on mallocs/op and malloc-B/op
      RunReport report = run_benchmark(spec.name, spec.function, rs);
      if (report.failed || report.results.empty()) {
        failed.insert(spec.name);
        o.failures.push_back({spec.name, report.failed
                                             ? failure_message(report)
                                             : std::string("skipped or produced no result")});
        continue;
      }
      for (auto& r : report.results) o.results.push_back(std::move(r));
    }
    if (peer.runnable) {
      progress.show(k, n, e.id, "Go peer peers/go/" + e.go_peer, run, s.count);
      run_go_round(peer, o);
    }
  }
}

// <id>.go.txt: the Go peer's results in the Go benchmark format.
std::string go_results_text(const ExperimentOutcome& o, const GoToolchain& go) {
  return results_text("go: " + go.version + "\npkg: zerolab/peers/go/" + o.experiment->go_peer +
                          "\nseed: " + o.experiment->seed_file + "\n",
                      o.go_results);
}

std::vector<std::string> ids_of(const std::vector<const Experiment*>& experiments) {
  std::vector<std::string> ids;
  for (const Experiment* e : experiments) ids.push_back(e->id);
  return ids;
}

// After the summary: the comparison's tables, the gate's regressions, and
// --save. Returns the exit code (see run_lab).
int finish_baseline(const LabSettings& s, const BaselineComparison* comparison, bool any_error,
                    const std::string& started, std::FILE* out, std::FILE* err) {
  bool regressed = false;
  if (comparison != nullptr) {
    std::fputs(baseline_text(*comparison).c_str(), out);
    std::fflush(out);
    regressed = comparison->gate && comparison->regression_count() > 0;
    if (comparison->gate) {
      for (const auto& p : comparison->parts) {
        for (const auto& r : p.regressions) {
          std::fprintf(err, "zerolab lab: regression: %s\n",
                       regression_line(p.experiment_id, r).c_str());
        }
      }
    }
  }
  // A gate that compared nothing cannot pass: the run could not be judged.
  if (comparison != nullptr && comparison->gate && comparison->parts.empty()) {
    std::fprintf(
        err,
        "zerolab lab: --fail-on-regression: nothing was compared with baseline %s, so the run "
        "could not be judged\n",
        comparison->name.c_str());
    any_error = true;
  }
  if (!s.save_name.empty()) {
    std::string error;
    if (any_error) {
      std::fprintf(
          err,
          "zerolab lab: baseline %s not saved: this run had failed benchmarks, errored claims "
          "or failed writes\n",
          s.save_name.c_str());
    } else if (regressed) {
      std::fprintf(err,
                   "zerolab lab: baseline %s not saved: this run regressed against baseline %s\n",
                   s.save_name.c_str(), comparison->name.c_str());
    } else if (!save_baseline(s.out_dir, ids_of(s.experiments), s.save_dir, s.save_name,
                              {started, s.command, s.count, s.benchtime_text}, error)) {
      std::fprintf(err, "zerolab lab: cannot save baseline %s: %s\n", s.save_name.c_str(),
                   error.c_str());
      any_error = true;
    } else {
      std::fprintf(out, "saved as baseline %s: %s/%s\n", s.save_name.c_str(), s.save_dir.c_str(),
                   s.save_name.c_str());
    }
  }
  return any_error ? 1 : regressed ? 3 : 0;
}

}  // namespace

int run_lab(const LabSettings& s, std::FILE* out, std::FILE* err) {
  const std::string started = utc_now("%Y-%m-%dT%H:%M:%SZ");
  const MachineInfo machine = describe_machine();
  for (const auto& w : machine.warnings) std::fprintf(err, "zerolab lab: warning: %s\n", w.c_str());
  BaselineComparison comparison;
  if (s.baseline != nullptr) {
    comparison =
        begin_baseline_comparison(*s.baseline, machine, ids_of(s.experiments), s.fail_percent);
    for (const auto& w : comparison.warnings)
      std::fprintf(err, "zerolab lab: warning: %s\n", w.c_str());
  }

  std::vector<ExperimentOutcome> outcomes;
  for (const Experiment* e : s.experiments) {
    ExperimentOutcome o;
    o.experiment = e;
    o.claims.resize(e->claims.size());
    outcomes.push_back(std::move(o));
  }
  // What the claims' preconditions look at (the Go version once Go is found).
  MachineFacts facts = machine_facts("");
  // Facts first, before any benchmark has churned the heap.
  for (auto& o : outcomes) {
    for (std::size_t i = 0; i < o.experiment->claims.size(); ++i) {
      const Claim& c = o.experiment->claims[i];
      o.claims[i].claim = &c;
      if (c.kind != ClaimKind::kFact) continue;
      const std::optional<SideOutcome> unmet = unmet_precondition(c, ClaimSide::kCpp, facts);
      o.claims[i].cpp = unmet ? *unmet : judge_fact(c);
    }
  }

  Progress progress(s.progress, err);
  bool any_error = false;
  bool writes_failed = false;  // a result file or report could not be written
  GoToolchain go;
  if (s.go) {
    bool any_peer = false;
    for (const Experiment* e : s.experiments) any_peer = any_peer || !e->go_peer.empty();
    if (any_peer) go = find_go(s.go_command);
    facts.go_version = go.version;
    if (any_peer && go.path.empty()) {
      std::fprintf(
          err, "zerolab lab: warning: %s: the Go peers do not run (verdict (Go here): not run)\n",
          go.error.c_str());
    }
  }
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    ExperimentOutcome& o = outcomes[k];
    GoPeerState peer;
    if (!prepare_go_peer(s, go, o, peer, progress, k + 1, outcomes.size())) {
      progress.clear();
      std::fprintf(err, "zerolab lab: %s: %s\n", o.experiment->id.c_str(), o.go_not_run.c_str());
      any_error = true;
    }
    internal::profile::CpuProfiler cpu;
    internal::profile::MemProfiler mem;
    std::string profile_error;
    const std::string& id = o.experiment->id;
    if (!s.cpuprofile_dir.empty() &&
        !cpu.start(s.cpuprofile_dir + "/" + id + ".cpu.prof", s.cpuprofile_rate, profile_error)) {
      std::fprintf(err, "zerolab lab: --cpuprofile: %s\n", profile_error.c_str());
      any_error = true;
    }
    if (!s.memprofile_dir.empty() &&
        !mem.start(s.memprofile_dir + "/" + id + ".mem.prof", s.memprofile_rate, profile_error)) {
      std::fprintf(err, "zerolab lab: --memprofile: %s\n", profile_error.c_str());
      any_error = true;
    }
    run_benchmarks(s, o, peer, progress, k + 1, outcomes.size());
    if (cpu.running() && !cpu.stop(profile_error)) {
      std::fprintf(err, "zerolab lab: --cpuprofile: %s\n", profile_error.c_str());
      any_error = true;
    }
    if (mem.running() && !mem.stop(profile_error)) {
      std::fprintf(err, "zerolab lab: --memprofile: %s\n", profile_error.c_str());
      any_error = true;
    }
    for (std::size_t i = 0; i < o.experiment->claims.size(); ++i) {
      const Claim& c = o.experiment->claims[i];
      if (c.kind != ClaimKind::kFact) {
        const std::optional<SideOutcome> unmet = unmet_precondition(c, ClaimSide::kCpp, facts);
        o.claims[i].cpp = unmet ? *unmet : judge_measured(c, o, s.alpha);
      }
      // A Go side that does not run stays "not run"; one that runs is checked.
      const SideOutcome go_side = judge_go(c, o, s.alpha, peer.runnable ? &peer.binary : nullptr);
      const std::optional<SideOutcome> go_unmet =
          go_side.verdict == Verdict::kNotRun || go_side.verdict == Verdict::kNotComparable
              ? std::nullopt
              : unmet_precondition(c, ClaimSide::kGo, facts);
      o.claims[i].go = go_unmet ? *go_unmet : go_side;
    }
    progress.clear();
    std::string error;
    if (!internal::write_file_atomically(s.out_dir + "/" + o.experiment->id + ".txt",
                                         raw_results_text(o, machine), error)) {
      std::fprintf(err, "zerolab lab: %s\n", error.c_str());
      any_error = writes_failed = true;
    }
    const std::string go_file = s.out_dir + "/" + o.experiment->id + ".go.txt";
    if (peer.runnable && !internal::write_file_atomically(go_file, go_results_text(o, go), error)) {
      std::fprintf(err, "zerolab lab: %s\n", error.c_str());
      any_error = writes_failed = true;
    }
    // A Go peer that did not run leaves no earlier run's results behind
    // (--save and --baseline read <id>.go.txt as this run's).
    if (!peer.runnable && ::unlink(go_file.c_str()) != 0 && errno != ENOENT) {
      std::fprintf(err, "zerolab lab: cannot remove the stale %s: %s\n", go_file.c_str(),
                   std::strerror(errno));
      any_error = writes_failed = true;
    }
    std::fputs((claims_table_text(o) + "\n").c_str(), out);
    std::fflush(out);
    any_error = any_error || !o.failures.empty() || !o.go_failures.empty();
  }

  if (s.count_instructions) {
    progress.show(outcomes.size(), outcomes.size(), "counts",
                  "the counted benchmarks under callgrind", 1, 1);
    const bool counted = count_experiments(outcomes, err);
    progress.clear();
    if (!counted) any_error = true;
    for (const auto& o : outcomes) {
      const std::vector<std::string> lines = counts_lines(o);
      if (lines.empty()) continue;
      std::fprintf(out, "%s: counts (callgrind), beside the time verdicts:\n",
                   o.experiment->id.c_str());
      for (const auto& line : lines) std::fprintf(out, "  - %s\n", line.c_str());
    }
    std::fflush(out);
  }
  const Tally t = tally(outcomes);
  any_error = any_error || t.errors() > 0;
  ReportContext context;
  context.started = started;
  context.command = s.command;
  context.provisional = s.count < kMinRunsForTest;
  context.count = s.count;
  context.benchtime = s.benchtime_text;
  if (s.baseline != nullptr) {
    const std::size_t known = comparison.warnings.size();
    compare_with_baseline(*s.baseline, s.out_dir, ids_of(s.experiments), s.alpha, comparison);
    // A baseline written into the staging directory (--baseline NAME from
    // the store), this run's files and the warnings naming them are shown
    // where they will be once the run is in place.
    if (!s.final_dir.empty()) {
      comparison.path = placed_path(comparison.path, s.out_dir, s.final_dir);
      for (BaselineComparison::Part& part : comparison.parts) {
        part.run_file = placed_path(part.run_file, s.out_dir, s.final_dir);
      }
      for (std::size_t i = known; i < comparison.warnings.size(); ++i) {
        comparison.warnings[i] = placed_in_text(comparison.warnings[i], s.out_dir, s.final_dir);
      }
    }
    for (std::size_t i = known; i < comparison.warnings.size(); ++i) {
      std::fprintf(err, "zerolab lab: warning: %s\n", comparison.warnings[i].c_str());
    }
    context.baseline = &comparison;
  }
  std::string error;
  if (!internal::write_file_atomically(s.out_dir + "/report.md",
                                       report_markdown(outcomes, machine, context), error)) {
    std::fprintf(err, "zerolab lab: %s\n", error.c_str());
    any_error = writes_failed = true;
  }
  if (!internal::write_file_atomically(s.out_dir + "/report.html",
                                       report_html(outcomes, machine, context), error)) {
    std::fprintf(err, "zerolab lab: %s\n", error.c_str());
    any_error = writes_failed = true;
  }
  // A staged run goes in place of final_dir whole, or not at all.
  LabSettings placed = s;
  if (!s.final_dir.empty()) {
    if (writes_failed) {
      std::fprintf(err,
                   "zerolab lab: %s left as it was: this run's files are incomplete (what was "
                   "written is in %s)\n",
                   s.final_dir.c_str(), s.out_dir.c_str());
    } else if (!install_directory(s.out_dir, s.final_dir, error)) {
      std::fprintf(err, "zerolab lab: %s left as it was: %s (this run is in %s)\n",
                   s.final_dir.c_str(), error.c_str(), s.out_dir.c_str());
      any_error = true;
    } else {
      placed.out_dir = s.final_dir;
    }
  }
  std::string skipped;
  for (const auto& o : outcomes) {
    if (o.go_not_run.rfind("not run within the budget", 0) == 0) {
      skipped += (skipped.empty() ? "" : ", ") + o.experiment->id + " (Go peer, about " +
                 std::to_string(o.experiment->go_full_seconds) + " s)";
    }
  }
  if (!skipped.empty()) {
    skipped =
        "\nskipped within the default budget: " + skipped + "; `zerolab lab --full` runs them";
  }
  std::fprintf(out, "%s%s%s\nresults: %s\n", summary_line(t).c_str(),
               context.provisional ? " (provisional)" : "", skipped.c_str(),
               placed.out_dir.c_str());
  if (s.on_finished && !s.on_finished(outcomes, machine, placed.out_dir)) any_error = true;
  return finish_baseline(placed, s.baseline != nullptr ? &comparison : nullptr, any_error, started,
                         out, err);
}

std::string utc_now(const char* strftime_format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  if (std::strftime(text, sizeof text, strftime_format, &tm) == 0) return "";
  return text;
}

bool progress_line_wanted(int fd) {
  const char* term = std::getenv("TERM");
  return ::isatty(fd) == 1 && term != nullptr && *term != '\0' && std::strcmp(term, "dumb") != 0;
}

}  // namespace zerolab::lab
