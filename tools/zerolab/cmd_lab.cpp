// zerolab lab: the main job. Re-runs the measurable claims of the seed
// documents on this machine and says, with statistics, which replicate.
//
// Exit codes: 0 done, 1 a benchmark failed, a claim could not be judged, a
// file could not be written or the run could not be stored or named (the
// rest of the lab still ran), or the store the run goes to (--store, the
// default one, --save's) or --baseline's cannot be reached or written
// (checked first: nothing run), 2 bad usage or an unusable
// --baseline (nothing run, nothing written), 3 --fail-on-regression found a significant regression
// (and nothing gave 1: 1 takes precedence, since a failed run's comparison is incomplete; the
// regressions are listed on stderr either way).
//
// Example:
//   zerolab lab                      # every experiment, 10 runs each
//   zerolab lab --quick              # one short run each, provisional verdicts
//   zerolab lab merge zero-cost --count 20 -o results/today
//   zerolab lab --list
//   zerolab lab merge --cpuprofile prof --memprofile prof --memprofilerate 1
//   zerolab lab --save main                                # the stored run is named main
//   zerolab lab --baseline main --fail-on-regression=5     # exit 3 if >5% worse
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command.hpp"
#include "lab/experiments/catalog.hpp"
#include "lab/framework/baseline.hpp"
#include "lab/framework/directory_swap.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/lab_run.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/report.hpp"
#include "lab/framework/sources.hpp"
#include "lab_flags.hpp"
#include "lab_output_dir.hpp"
#include "lab_store.hpp"
#include "store/store_args.hpp"

namespace zerolab::cli {
namespace {

constexpr int kExitBadUsage = 2;

constexpr const char* kUsage =
    "Usage: zerolab lab [flags] [experiment...]\n"
    "\n"
    "lab re-runs the measurable claims of the seed documents on this machine and\n"
    "says, with statistics, which replicate: per experiment a table of claims\n"
    "with the seed's figure, the seed's Go code run here and the C++ port side by\n"
    "side, each with its verdict, then a summary.\n"
    "Raw results (Go benchmark format), report.md and report.html (the same tables\n"
    "with plots: one self-contained page) go to the output directory.\n"
    "\n"
    "  --list           list the experiments and exit\n"
    "  --quick          one short run of each benchmark (verdicts provisional)\n"
    "  --full           also run the Go peers and C++ benchmarks whose faithful regime\n"
    "                   exceeds the default budget (udp-buffers' peer at Go's own\n"
    "                   benchtime, arena's Iter rows at n=100000); naming an experiment\n"
    "                   runs its parts faithfully too\n"
    "  --measure=instructions\n"
    "                   also count the instructions and cycles per op, under valgrind's\n"
    "                   callgrind, of the C++ benchmarks of the claims about work done;\n"
    "                   shown beside the time verdicts (docs/counting.md)\n"
    "  --count N        runs of each benchmark, interleaved (default 10; >= 6 for tests)\n"
    "  --benchtime D    time per run, or Nx iterations (default 500ms; --quick 20ms)\n"
    "  -o DIR           output directory (default zerolab-results/<UTC time>): new, empty or a\n"
    "                   previous lab report, which the run replaces whole when it ends (written\n"
    "                   beside it in DIR+tmp.<pid> until then); any other directory is refused\n"
    "  --go=on|off      run each experiment's Go peer (the seed's own Go code, peers/go/<id>,\n"
    "                   built once with go test -c and cached) in the same rounds (default on;\n"
    "                   without go on PATH the Go column says so and the run goes on)\n"
    "  --cpuprofile DIR     a CPU profile of each experiment's timed code: DIR/<id>.cpu.prof\n"
    "  --cpuprofilerate HZ  CPU samples per second (default 100)\n"
    "  --memprofile DIR     an allocation profile of each experiment: DIR/<id>.mem.prof\n"
    "  --memprofilerate N   sample one allocation per N bytes on average (default 512KiB; 1: all)\n"
    "  --save NAME          name this run NAME in the results store (letters, digits, . _ -), one\n"
    "                       name per machine, moved from an older run of this machine; not when\n"
    "                       the run fails or the gate fails (the store is checked before anything "
    "runs)\n"
    "  --baseline NAME      compare this run with this machine's run named NAME in the store, or\n"
    "                       with the run whose id NAME is (checked before anything runs): tables\n"
    "                       as zerolab compare's after the summary and in report.md/.html; the\n"
    "                       compared files are written to <out>/baseline/NAME/\n"
    "  --baseline-dir DIR   deprecated, read only: take --baseline from a folder DIR/NAME of an\n"
    "                       older zerolab's --save (also $ZEROLAB_BASELINE_DIR; without either, a\n"
    "                       folder zerolab-results/baselines/NAME is read when the store has no "
    "NAME);\n"
    "                       import the folders once: zerolab store import-baselines --baseline-dir "
    "DIR\n"
    "  --store URL          keep the run in this results store (default\n"
    "                       sqlite:zerolab-results/zerolab.db; postgres://... for a shared one);\n"
    "                       `zerolab history` and `zerolab store matrix` read it; checked\n"
    "                       (reachable, writable, a zerolab store) before anything runs\n"
    "  --no-store           do not keep the run in a store (with --baseline, --store still\n"
    "                       names the store the baseline is read from)\n"
    "  --label K=V          a label of the stored run (commit=..., branch=...); repeatable\n"
    "  --fail-on-regression[=PCT]\n"
    "                       with --baseline: exit 3 if a statistically significant change is\n"
    "                       worse by more than PCT% (default 0), as zerolab compare's flag\n"
    "Read profiles with go tool pprof -top FILE (pprof's format, symbols resolved).\n"
    "\n"
    "Exit codes: 0 done; 1 a benchmark failed, a claim could not be judged, a file could\n"
    "not be written or the run could not be stored (the rest still ran), or the store\n"
    "the run goes to (or --baseline's) is unreachable or read-only (nothing run); 2 bad\n"
    "usage, a store that is not zerolab's, or a\n"
    "missing or corrupt baseline (nothing run, nothing written); 3 --fail-on-regression found a "
    "regression\n"
    "(only when nothing gave 1; regressions are listed on stderr either way).\n";

void fail(const std::string& message) {
  std::fprintf(stderr, "zerolab lab: %s\n", message.c_str());
}

enum class BaselineSource { kNone, kFolder, kStore, kFailed };

// --baseline NAME: this machine's run named NAME in the store; with
// --baseline-dir (or $ZEROLAB_BASELINE_DIR), deprecated, a folder of an
// older zerolab, also read when the store has no NAME but the default
// folder has. kStore leaves the run in `stored` (written out once the
// output directory exists); kFolder loads `baseline`.
BaselineSource choose_baseline(const LabFlags& flags, const LabStoreSettings& keep,
                               const std::vector<std::string>& known, lab::Baseline& baseline,
                               store::Run& stored, std::string& error, int& code) {
  if (flags.baseline_name.empty()) return BaselineSource::kNone;
  const char* env = std::getenv(lab::kBaselineDirEnv);
  std::string dir = !flags.baseline_dir.empty()      ? flags.baseline_dir
                    : env != nullptr && *env != '\0' ? env
                                                     : "";
  if (dir.empty()) {
    const lab::MachineInfo machine = lab::describe_machine();
    bool absent = false;
    if (find_stored_baseline(keep.url, flags.baseline_name, this_machine(keep.labels, machine),
                             stored, error, code, &absent)) {
      return BaselineSource::kStore;
    }
    struct stat st {};
    const std::string legacy =
        std::string(lab::kDefaultBaselineDir) + "/" + flags.baseline_name + "/manifest";
    if (!absent || ::stat(legacy.c_str(), &st) != 0) return BaselineSource::kFailed;
    dir = lab::kDefaultBaselineDir;
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!lab::load_baseline(dir, flags.baseline_name, known, baseline, error)) {
    code = kExitBadUsage;
    return BaselineSource::kFailed;
  }
  fail("warning: baseline folder " + dir + "/" + flags.baseline_name +
       " read; baseline folders are deprecated (baselines are named runs in the results store "
       "now): import "
       "them once with zerolab store import-baselines --baseline-dir " +
       dir);
  return BaselineSource::kFolder;
}

int run_lab_command(std::span<char* const> args) {
  LabFlags flags;
  std::string error;
  if (!parse_lab_flags(args, flags, error)) {
    fail(error);
    return kExitBadUsage;
  }
  if (flags.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  // The store is checked before anything runs, as the flags are.
  LabStoreSettings keep;
  if (!store::parse_store_url(
          flags.store_url.empty() ? std::string(store::kDefaultStoreUrl) : flags.store_url,
          keep.url, error)) {
    fail(error);
    return kExitBadUsage;
  }
  for (const std::string& l : flags.labels) {
    std::string k, v;
    if (!store::parse_label(l, k, v, error)) {
      fail(error);
      return kExitBadUsage;
    }
    keep.labels.emplace_back(k, v);
  }
  if (flags.no_store && !flags.save_name.empty()) {
    fail("--save NAME names the stored run; it cannot be used with --no-store");
    return kExitBadUsage;
  }
  const auto& all = lab::catalog();
  if (flags.list) {
    int width = 0;
    for (const auto& e : all) width = std::max(width, static_cast<int>(e.id.size()));
    for (const auto& e : all) {
      std::printf("%-*s  %s (source: %s)\n", width, e.id.c_str(), e.title.c_str(),
                  lab::source_name(e.seed_file).c_str());
      std::fputs(
          lab::differences_text(e, std::string(static_cast<std::size_t>(width) + 2, ' ')).c_str(),
          stdout);
    }
    return 0;
  }

  lab::LabSettings s;
  for (const auto& name : flags.experiments) {
    const lab::Experiment* found = nullptr;
    for (const auto& e : all) {
      if (e.id == name) found = &e;
    }
    if (found == nullptr) {
      std::string known;
      for (const auto& e : all) known += (known.empty() ? "" : ", ") + e.id;
      fail("unknown experiment \"" + name + "\" (known: " + known + ")");
      return kExitBadUsage;
    }
    if (std::find(s.experiments.begin(), s.experiments.end(), found) == s.experiments.end()) {
      s.experiments.push_back(found);
    }
  }
  s.named = !s.experiments.empty();
  s.full = flags.full;
  if (s.experiments.empty()) {
    for (const auto& e : all) s.experiments.push_back(&e);
  }

  // The baseline is found and checked before anything runs or is written.
  std::vector<std::string> known;
  known.reserve(all.size());
  for (const auto& e : all) known.push_back(e.id);
  lab::Baseline baseline;
  store::Run stored_baseline;
  int code = 0;
  switch (choose_baseline(flags, keep, known, baseline, stored_baseline, error, code)) {
    case BaselineSource::kNone:
      break;
    case BaselineSource::kFailed:
      fail(error);
      return code;
    case BaselineSource::kFolder:
    case BaselineSource::kStore:
      s.baseline = &baseline;
      s.fail_percent = flags.fail_on_regression ? flags.fail_percent : -1;
      break;
  }
  // Every run that will be stored (--save's, --store's, the default
  // store's) finds out now, not after the whole run, that its store cannot
  // be reached, written, or is not a zerolab store.
  if (!flags.no_store &&
      !check_store_writable(keep.url,
                            flags.save_name.empty()
                                ? "cannot store the run (nothing was run; --no-store runs "
                                  "without a store)"
                                : "--save",
                            error, code)) {
    fail(error);
    return code;
  }

  s.count = flags.count;
  s.go = flags.go;
  s.count_instructions = flags.count_instructions;
  s.benchtime = flags.benchtime;
  s.iterations = flags.iterations;
  s.benchtime_text = flags.benchtime_text;
  s.cpuprofile_rate = flags.cpuprofile_rate;
  s.memprofile_rate = flags.memprofile_rate;

  s.out_dir =
      flags.out_dir.empty() ? "zerolab-results/" + lab::utc_now("%Y%m%dT%H%M%SZ") : flags.out_dir;
  while (s.out_dir.size() > 1 && s.out_dir.back() == '/') s.out_dir.pop_back();
  // Checked before any is created; a problem names the flag that gave the
  // directory (-o's is the default's too). The run is staged and replaces
  // -o's directory whole at the end (lab_output_dir.hpp).
  LabOutput output;
  if (!prepare_lab_output(s.out_dir, flags.cpuprofile_dir, flags.memprofile_dir, output, error)) {
    fail(error);
    return kExitBadUsage;
  }
  s.out_dir = output.staging;
  s.final_dir = output.target;
  if (!stored_baseline.id.empty() && !write_stored_baseline(stored_baseline, flags.baseline_name,
                                                            all, s.out_dir, baseline, error)) {
    lab::remove_tree(output.staging);
    fail("--baseline " + flags.baseline_name + ": " + error);
    return 1;
  }
  s.cpuprofile_dir = output.cpuprofile_dir;
  s.memprofile_dir = output.memprofile_dir;

  s.command = "zerolab lab";
  for (char* a : args) s.command += " " + std::string(a);
  s.progress = lab::progress_line_wanted(STDERR_FILENO);
  std::string stored_id;
  if (!flags.no_store) {
    keep.save_name = flags.save_name;
    keep.command = s.command;
    s.on_finished = [&](const std::vector<lab::ExperimentOutcome>& outcomes,
                        const lab::MachineInfo& machine, const std::string& results_dir) {
      keep.out_dir = results_dir;
      return store_lab_run(keep, outcomes, machine, stdout, stderr, &stored_id);
    };
  }
  code = lab::run_lab(s, stdout, stderr);
  return keep.save_name.empty() ? code : name_stored_run(keep, stored_id, code, stdout, stderr);
}

const CommandRegistration kLab{"lab", "re-run the seeds' claims on this machine", &run_lab_command};

}  // namespace
}  // namespace zerolab::cli
