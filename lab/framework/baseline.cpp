// A run compared with a baseline (lab/baseline.hpp): the warnings known
// before the run and each experiment's comparison through stat::compare,
// of the C++ results and of the Go peer's (Go here).
#include "lab/framework/baseline.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/compare_html.hpp"
#include "zerolab/stat_compare.hpp"

namespace zerolab::lab {
namespace {

// The config keys that describe the machine: ignored when building tables
// (a new kernel must not split them), and the first seven compared to say
// whether the baseline comes from another machine.
constexpr const char* kMachineKeys[] = {"cpu",   "cpus",     "caches",  "kernel",
                                        "glibc", "compiler", "cxxflags"};
constexpr const char* kIgnoredKeys =
    "goos,goarch,cpu,cpus,caches,kernel,thp,governor,glibc,compiler,cxxflags,seed";

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string shown(const std::string& value) {
  return value.empty() ? "(none)" : value;
}

std::string config_value(const std::vector<std::pair<std::string, std::string>>& config,
                         const std::string& key) {
  for (const auto& [k, v] : config) {
    if (k == key) return v;
  }
  return "";
}

// Compares two files as `zerolab compare base=<baseline_file>
// this-run=<run_file>` with the machine keys ignored. False with `warning`
// when nothing could be compared.
bool compare_files(const std::string& base_label, const std::string& baseline_file,
                   const std::string& run_file, double alpha, double gate_percent,
                   BaselineComparison::Part& part, std::vector<std::string>& warnings) {
  std::vector<stat::InputSpec> inputs(2);
  inputs[0].path = baseline_file;
  inputs[0].label = base_label;
  inputs[0].labeled = true;
  inputs[1].path = run_file;
  inputs[1].label = kThisRunLabel;
  inputs[1].labeled = true;
  stat::CompareOptions options;
  options.ignore = kIgnoredKeys;
  options.alpha = alpha;
  options.regression_percent = gate_percent;
  stat::ComparisonResult result = stat::compare(std::move(inputs), options);
  for (std::string& line : result.syntax_errors) warnings.push_back(std::move(line));
  if (result.error_kind == stat::ComparisonResult::ErrorKind::kOptions) {
    warnings.push_back("cannot compare " + run_file + " with " + baseline_file + ": " +
                       result.error);
    return false;
  }
  if (!result.error.empty()) {
    warnings.push_back("cannot compare with baseline " + base_label + ": " + result.error);
    return false;
  }
  if (result.results_per_input[1] == 0) {
    warnings.push_back(run_file + ": this run has no results to compare with baseline " +
                       base_label);
  }
  if (result.results_compared == 0) return false;

  part.text = stat::render_text(result.tables);
  part.markdown = stat::render_markdown(result.tables);
  part.html = report::compare_sections_html(result.tables);
  for (std::string& line : result.nan_skips) warnings.push_back(std::move(line));
  part.regressions = std::move(result.regressions);
  return true;
}

// The column label of the baseline: its name, unless that is this run's.
std::string base_label(const std::string& name) {
  return name == kThisRunLabel ? name + " (baseline)" : name;
}

}  // namespace

std::size_t BaselineComparison::regression_count() const {
  std::size_t n = 0;
  for (const Part& p : parts) n += p.regressions.size();
  return n;
}

BaselineComparison begin_baseline_comparison(const Baseline& baseline, const MachineInfo& machine,
                                             const std::vector<std::string>& run_ids,
                                             double gate_percent) {
  BaselineComparison c;
  c.name = baseline.name;
  c.path = baseline.path;
  c.record = baseline.record;
  c.gate = gate_percent >= 0;
  c.gate_percent = c.gate ? gate_percent : 0;
  c.warnings = baseline.warnings;
  if (!baseline.config.empty()) {
    std::string differences;
    for (const char* key : kMachineKeys) {
      const std::string was = config_value(baseline.config, key);
      const std::string now = config_value(machine.config, key);
      if (was == now) continue;
      differences += (differences.empty() ? "" : "; ") + std::string(key) + " " + shown(was) +
                     " vs " + shown(now);
    }
    if (!differences.empty()) {
      c.warnings.push_back("baseline " + baseline.name + " was recorded on a different machine: " +
                           differences + " (compared anyway)");
    }
  }
  for (const std::string& id : run_ids) {
    const bool saved = std::any_of(baseline.files.begin(), baseline.files.end(),
                                   [&](const BaselineFile& f) { return f.experiment_id == id; });
    if (!saved) {
      c.warnings.push_back("experiment \"" + id + "\" is not in baseline " + baseline.name +
                           "; nothing to compare it with");
    }
  }
  for (const BaselineFile& f : baseline.files) {
    if (!contains(run_ids, f.experiment_id)) c.not_run.push_back(f.experiment_id);
  }
  return c;
}

void compare_with_baseline(const Baseline& baseline, const std::string& results_dir,
                           const std::vector<std::string>& run_ids, double alpha,
                           BaselineComparison& comparison) {
  const auto saved = [](const std::vector<BaselineFile>& files, const std::string& id) {
    return std::find_if(files.begin(), files.end(),
                        [&](const BaselineFile& b) { return b.experiment_id == id; });
  };
  const auto compare = [&](const std::string& label, const std::string& baseline_file,
                           const std::string& run_file, bool go_here) {
    BaselineComparison::Part part;
    part.experiment_id = label;
    part.go_here = go_here;
    part.baseline_file = baseline_file;
    part.run_file = run_file;
    if (compare_files(base_label(baseline.name), part.baseline_file, part.run_file, alpha,
                      comparison.gate_percent, part, comparison.warnings)) {
      comparison.parts.push_back(std::move(part));
    }
  };
  for (const std::string& id : run_ids) {
    const auto f = saved(baseline.files, id);
    if (f == baseline.files.end()) continue;
    compare(id, f->path, results_dir + "/" + id + ".txt", false);
    // The Go peer's results (<id>.go.txt), where both sides have them.
    const auto g = saved(baseline.go_files, id);
    const std::string run_go = results_dir + "/" + id + ".go.txt";
    const bool run_has_go = ::access(run_go.c_str(), F_OK) == 0;
    if (g != baseline.go_files.end() && run_has_go) {
      compare(id + " (Go here)", g->path, run_go, true);
    } else if (g != baseline.go_files.end()) {
      comparison.warnings.push_back("experiment \"" + id + "\": baseline " + baseline.name +
                                    " has Go-here results, this run has none (--go=off, no go, "
                                    "or the peer did not build)");
    } else if (run_has_go) {
      comparison.warnings.push_back("experiment \"" + id +
                                    "\": this run's Go-here results are "
                                    "not in baseline " +
                                    baseline.name + "; nothing to compare them with");
    }
  }
}

}  // namespace zerolab::lab
