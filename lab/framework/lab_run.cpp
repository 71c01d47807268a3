// The lab driver (lab_run.hpp).
#include "lab/framework/lab_run.hpp"

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
#include "lab/framework/baseline.hpp"
#include "lab/framework/counts.hpp"
#include "lab/framework/directory_swap.hpp"
#include "lab/framework/judge.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/report.hpp"
#include "lab/framework/report_html.hpp"
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

// The lab's one error sink: every step of a run says what went wrong
// through it, as one line "zerolab lab: <message>" on err, and it
// remembers what that means for the run: failed (exit 1), and for a
// result file or report that could not be written, files incomplete (a
// staged run is then not put in place).
class RunErrors {
 public:
  explicit RunErrors(std::FILE* err) : err_(err) {}

  // "zerolab lab: warning: <message>": the run goes on and can still pass.
  void warn(const std::string& message) const { say("warning: " + message); }
  // "zerolab lab: <message>": the run has failed.
  void fail(const std::string& message) {
    say(message);
    failed_ = true;
  }
  // A file of the run could not be written (or a stale one removed).
  void write_failed(const std::string& message) {
    fail(message);
    writes_failed_ = true;
  }
  // "zerolab lab: <message>", the run's state unchanged: a consequence of
  // a failure already counted (a baseline not saved), or a finding the
  // exit code reports (a regression).
  void say(const std::string& message) const {
    std::fprintf(err_, "zerolab lab: %s\n", message.c_str());
  }
  // Failed without a line of its own: a benchmark that failed or a claim
  // that errored, shown in the claims tables and the summary.
  void mark_failed() { failed_ = true; }

  bool failed() const { return failed_; }
  bool writes_failed() const { return writes_failed_; }

 private:
  std::FILE* err_;
  bool failed_ = false;
  bool writes_failed_ = false;
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

std::string budget_text(const Experiment& e, int seconds) {
  return "not run within the budget: needs about " + std::to_string(seconds) +
         " s; run `zerolab lab --full` or name the experiment (`zerolab lab " + e.id + "`)";
}

std::string budget_text(const Experiment& e) {
  return budget_text(e, e.go_full_seconds);
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
  for (const auto& spec : e.benchmarks) {
    if (spec.full_seconds > 0 && !s.full && !s.named) {
      o.cpp_not_run[spec.name] = budget_text(e, spec.full_seconds);
    }
  }
  for (int run = 1; run <= s.count; ++run) {
    for (const auto& spec : e.benchmarks) {
      if (failed.count(spec.name) != 0 || o.cpp_not_run.count(spec.name) != 0) continue;
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
  ids.reserve(experiments.size());
  for (const Experiment* e : experiments) ids.push_back(e->id);
  return ids;
}

// The machine's warnings, and with --baseline the comparison begun (the
// baseline checked against this machine and the experiments chosen).
void begin_run(const LabSettings& s, const MachineInfo& machine, BaselineComparison& comparison,
               const RunErrors& errors) {
  for (const auto& w : machine.warnings) errors.warn(w);
  if (s.baseline != nullptr) {
    comparison =
        begin_baseline_comparison(*s.baseline, machine, ids_of(s.experiments), s.fail_percent);
    for (const auto& w : comparison.warnings) errors.warn(w);
  }
}

// One outcome per experiment, its fact claims judged: facts first, before
// any benchmark has churned the heap.
std::vector<ExperimentOutcome> judge_facts_first(const LabSettings& s, const MachineFacts& facts) {
  std::vector<ExperimentOutcome> outcomes;
  for (const Experiment* e : s.experiments) {
    ExperimentOutcome o;
    o.experiment = e;
    o.claims.resize(e->claims.size());
    outcomes.push_back(std::move(o));
  }
  for (auto& o : outcomes) {
    for (std::size_t i = 0; i < o.experiment->claims.size(); ++i) {
      const Claim& c = o.experiment->claims[i];
      o.claims[i].claim = &c;
      if (c.kind != ClaimKind::kFact) continue;
      const std::optional<SideOutcome> unmet = unmet_precondition(c, ClaimSide::kCpp, facts);
      o.claims[i].cpp = unmet ? *unmet : judge_fact(c);
    }
  }
  return outcomes;
}

// The Go toolchain, when Go runs and an experiment has a peer; its version
// joins the facts the preconditions look at. Without it the run goes on.
GoToolchain find_go_for_run(const LabSettings& s, MachineFacts& facts, const RunErrors& errors) {
  GoToolchain go;
  if (!s.go) return go;
  bool any_peer = false;
  for (const Experiment* e : s.experiments) any_peer = any_peer || !e->go_peer.empty();
  if (any_peer) go = find_go(s.go_command);
  facts.go_version = go.version;
  if (any_peer && go.path.empty()) {
    errors.warn(go.error + ": the Go peers do not run (verdict (Go here): not run)");
  }
  return go;
}

// --cpuprofile and --memprofile around one experiment's benchmarks.
class ExperimentProfiles {
 public:
  void start(const LabSettings& s, const std::string& id, RunErrors& errors) {
    std::string error;
    if (!s.cpuprofile_dir.empty() &&
        !cpu_.start(s.cpuprofile_dir + "/" + id + ".cpu.prof", s.cpuprofile_rate, error)) {
      errors.fail("--cpuprofile: " + error);
    }
    if (!s.memprofile_dir.empty() &&
        !mem_.start(s.memprofile_dir + "/" + id + ".mem.prof", s.memprofile_rate, error)) {
      errors.fail("--memprofile: " + error);
    }
  }

  void stop(RunErrors& errors) {
    std::string error;
    if (cpu_.running() && !cpu_.stop(error)) errors.fail("--cpuprofile: " + error);
    if (mem_.running() && !mem_.stop(error)) errors.fail("--memprofile: " + error);
  }

 private:
  internal::profile::CpuProfiler cpu_;
  internal::profile::MemProfiler mem_;
};

// The measured claims of one experiment judged on both sides. A Go side
// that does not run stays "not run"; one that runs is checked.
void judge_claims(const LabSettings& s, const MachineFacts& facts, const GoPeerState& peer,
                  ExperimentOutcome& o) {
  for (std::size_t i = 0; i < o.experiment->claims.size(); ++i) {
    const Claim& c = o.experiment->claims[i];
    if (c.kind != ClaimKind::kFact) {
      const std::optional<SideOutcome> unmet = unmet_precondition(c, ClaimSide::kCpp, facts);
      o.claims[i].cpp = unmet ? *unmet : judge_measured(c, o, s.alpha);
    }
    const SideOutcome go_side = judge_go(c, o, s.alpha, peer.runnable ? &peer.binary : nullptr);
    const std::optional<SideOutcome> go_unmet =
        go_side.verdict == Verdict::kNotRun || go_side.verdict == Verdict::kNotComparable
            ? std::nullopt
            : unmet_precondition(c, ClaimSide::kGo, facts);
    o.claims[i].go = go_unmet ? *go_unmet : go_side;
  }
}

// <id>.txt, and <id>.go.txt when the Go peer ran; a Go peer that did not
// run leaves no earlier run's results behind (--save and --baseline read
// <id>.go.txt as this run's).
void write_experiment_files(const LabSettings& s, const ExperimentOutcome& o,
                            const MachineInfo& machine, const GoToolchain& go,
                            const GoPeerState& peer, RunErrors& errors) {
  std::string error;
  if (!internal::write_file_atomically(s.out_dir + "/" + o.experiment->id + ".txt",
                                       raw_results_text(o, machine), error)) {
    errors.write_failed(error);
  }
  const std::string go_file = s.out_dir + "/" + o.experiment->id + ".go.txt";
  if (peer.runnable && !internal::write_file_atomically(go_file, go_results_text(o, go), error)) {
    errors.write_failed(error);
  }
  if (!peer.runnable && ::unlink(go_file.c_str()) != 0 && errno != ENOENT) {
    const int cause = errno;
    errors.write_failed("cannot remove the stale " + go_file + ": " + std::strerror(cause));
  }
}

// Where experiment k of n is while it runs, for the progress line.
struct Position {
  std::size_t k = 0;
  std::size_t n = 0;
};

// One experiment: its Go peer built, its benchmarks run (profiled when
// asked), its claims judged, its result files written and its claims
// table printed on out.
void run_experiment(const LabSettings& s, const GoToolchain& go, const MachineFacts& facts,
                    const MachineInfo& machine, Position at, ExperimentOutcome& o,
                    Progress& progress, std::FILE* out, RunErrors& errors) {
  GoPeerState peer;
  if (!prepare_go_peer(s, go, o, peer, progress, at.k, at.n)) {
    progress.clear();
    errors.fail(o.experiment->id + ": " + o.go_not_run);
  }
  ExperimentProfiles profiles;
  profiles.start(s, o.experiment->id, errors);
  run_benchmarks(s, o, peer, progress, at.k, at.n);
  profiles.stop(errors);
  judge_claims(s, facts, peer, o);
  progress.clear();
  write_experiment_files(s, o, machine, go, peer, errors);
  std::fputs((claims_table_text(o) + "\n").c_str(), out);
  std::fflush(out);
  if (!o.failures.empty() || !o.go_failures.empty()) errors.mark_failed();
}

// --measure=instructions: the counted benchmarks run again under
// callgrind, and each experiment's counts printed on out beside its time
// verdicts (count_experiments says on err what could not be counted).
void count_instructions(std::vector<ExperimentOutcome>& outcomes, Progress& progress,
                        std::FILE* out, std::FILE* err, RunErrors& errors) {
  progress.show(outcomes.size(), outcomes.size(), "counts",
                "the counted benchmarks under callgrind", 1, 1);
  const bool counted = count_experiments(outcomes, err);
  progress.clear();
  if (!counted) errors.mark_failed();
  for (const auto& o : outcomes) {
    const std::vector<std::string> lines = counts_lines(o);
    if (lines.empty()) continue;
    std::fprintf(out, "%s: counts (callgrind), beside the time verdicts:\n",
                 o.experiment->id.c_str());
    for (const auto& line : lines) std::fprintf(out, "  - %s\n", line.c_str());
  }
  std::fflush(out);
}

// This run's results compared with the baseline's; a baseline written into
// the staging directory (--baseline NAME from the store), this run's files
// and the warnings naming them are shown where they will be once the run
// is in place.
void compare_run_with_baseline(const LabSettings& s, BaselineComparison& comparison,
                               const RunErrors& errors) {
  const std::size_t known = comparison.warnings.size();
  compare_with_baseline(*s.baseline, s.out_dir, ids_of(s.experiments), s.alpha, comparison);
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
    errors.warn(comparison.warnings[i]);
  }
}

// report.md and report.html.
void write_reports(const LabSettings& s, const std::vector<ExperimentOutcome>& outcomes,
                   const MachineInfo& machine, const ReportContext& context, RunErrors& errors) {
  std::string error;
  if (!internal::write_file_atomically(s.out_dir + "/report.md",
                                       report_markdown(outcomes, machine, context), error)) {
    errors.write_failed(error);
  }
  if (!internal::write_file_atomically(s.out_dir + "/report.html",
                                       report_html(outcomes, machine, context), error)) {
    errors.write_failed(error);
  }
}

// A staged run goes in place of final_dir whole, or not at all. Returns
// the directory the run's files are in.
std::string install_run(const LabSettings& s, RunErrors& errors) {
  if (s.final_dir.empty()) return s.out_dir;
  if (errors.writes_failed()) {
    errors.say(s.final_dir +
               " left as it was: this run's files are incomplete (what was written is in " +
               s.out_dir + ")");
    return s.out_dir;
  }
  std::string error;
  if (!install_directory(s.out_dir, s.final_dir, error)) {
    errors.fail(s.final_dir + " left as it was: " + error + " (this run is in " + s.out_dir + ")");
    return s.out_dir;
  }
  return s.final_dir;
}

// The summary line, the Go peers skipped within the default budget, and
// where the results are.
void print_summary(const std::vector<ExperimentOutcome>& outcomes, const Tally& t,
                   const ReportContext& context, const std::string& results_dir, std::FILE* out) {
  std::string skipped;
  for (const auto& o : outcomes) {
    if (o.go_not_run.rfind("not run within the budget", 0) == 0) {
      skipped += (skipped.empty() ? "" : ", ") + o.experiment->id + " (Go peer, about " +
                 std::to_string(o.experiment->go_full_seconds) + " s)";
    }
    if (!o.cpp_not_run.empty()) {
      int seconds = 0;
      for (const auto& spec : o.experiment->benchmarks) {
        if (o.cpp_not_run.count(spec.name) != 0) seconds += spec.full_seconds;
      }
      skipped += (skipped.empty() ? "" : ", ") + o.experiment->id + " (" +
                 std::to_string(o.cpp_not_run.size()) + " C++ benchmarks, about " +
                 std::to_string(seconds) + " s)";
    }
  }
  if (!skipped.empty()) {
    skipped =
        "\nskipped within the default budget: " + skipped + "; `zerolab lab --full` runs them";
  }
  std::fprintf(out, "%s%s%s\nresults: %s\n", summary_line(t).c_str(),
               context.provisional ? " (provisional)" : "", skipped.c_str(), results_dir.c_str());
}

// After the summary: the comparison's tables, the gate's regressions, and
// --save. Returns the exit code (see run_lab).
int finish_baseline(const LabSettings& s, const BaselineComparison* comparison,
                    const std::string& started, std::FILE* out, RunErrors& errors) {
  bool regressed = false;
  if (comparison != nullptr) {
    std::fputs(baseline_text(*comparison).c_str(), out);
    std::fflush(out);
    regressed = comparison->gate && comparison->regression_count() > 0;
    if (comparison->gate) {
      for (const auto& p : comparison->parts) {
        for (const auto& r : p.regressions) {
          errors.say("regression: " + regression_line(p.experiment_id, r));
        }
      }
    }
  }
  // A gate that compared nothing cannot pass: the run could not be judged.
  if (comparison != nullptr && comparison->gate && comparison->parts.empty()) {
    errors.fail("--fail-on-regression: nothing was compared with baseline " + comparison->name +
                ", so the run could not be judged");
  }
  if (!s.save_name.empty()) {
    std::string error;
    if (errors.failed()) {
      errors.say("baseline " + s.save_name +
                 " not saved: this run had failed benchmarks, errored claims or failed writes");
    } else if (regressed) {
      errors.say("baseline " + s.save_name + " not saved: this run regressed against baseline " +
                 comparison->name);
    } else if (!save_baseline(s.out_dir, ids_of(s.experiments), s.save_dir, s.save_name,
                              {started, s.command, s.count, s.benchtime_text}, error)) {
      errors.fail("cannot save baseline " + s.save_name + ": " + error);
    } else {
      std::fprintf(out, "saved as baseline %s: %s/%s\n", s.save_name.c_str(), s.save_dir.c_str(),
                   s.save_name.c_str());
    }
  }
  return errors.failed() ? 1 : regressed ? 3 : 0;
}

}  // namespace

int run_lab(const LabSettings& s, std::FILE* out, std::FILE* err) {
  RunErrors errors(err);
  const std::string started = utc_now("%Y-%m-%dT%H:%M:%SZ");
  const MachineInfo machine = describe_machine();
  BaselineComparison comparison;
  begin_run(s, machine, comparison, errors);
  // What the claims' preconditions look at (the Go version once Go is found).
  MachineFacts facts = machine_facts("");
  std::vector<ExperimentOutcome> outcomes = judge_facts_first(s, facts);
  Progress progress(s.progress, err);
  const GoToolchain go = find_go_for_run(s, facts, errors);
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    run_experiment(s, go, facts, machine, {k + 1, outcomes.size()}, outcomes[k], progress, out,
                   errors);
  }
  if (s.count_instructions) count_instructions(outcomes, progress, out, err, errors);

  const Tally t = tally(outcomes);
  if (t.errors() > 0) errors.mark_failed();
  ReportContext context;
  context.started = started;
  context.command = s.command;
  context.provisional = s.count < kMinRunsForTest;
  context.count = s.count;
  context.benchtime = s.benchtime_text;
  if (s.baseline != nullptr) {
    compare_run_with_baseline(s, comparison, errors);
    context.baseline = &comparison;
  }
  write_reports(s, outcomes, machine, context, errors);
  LabSettings placed = s;
  placed.out_dir = install_run(s, errors);
  print_summary(outcomes, t, context, placed.out_dir, out);
  if (s.on_finished && !s.on_finished(outcomes, machine, placed.out_dir)) errors.mark_failed();
  return finish_baseline(placed, s.baseline != nullptr ? &comparison : nullptr, started, out,
                         errors);
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
