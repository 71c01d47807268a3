// The lab's experiments in run order, and the Experiment and PlotSpec
// constructors (experiment.hpp).
#include <utility>

#include "lab/experiment.hpp"

namespace zerolab::lab {

Experiment Experiment::from_seed(std::string id, std::string title, SeedSection seed,
                                 std::vector<std::string> differences, GoPeerSpec go) {
  Experiment e;
  e.id = std::move(id);
  e.title = std::move(title);
  e.seed_file = std::move(seed.file);
  e.seed_section = std::move(seed.section);
  e.differences = std::move(differences);
  e.go_peer = std::move(go.name);
  e.go_benchmarks = std::move(go.benchmarks);
  e.go_benchtime = std::move(go.benchtime);
  e.go_differences = std::move(go.differences);
  return e;
}

PlotSpec PlotSpec::strip(std::string title, std::string prefix, std::string unit,
                         std::string y_label) {
  PlotSpec p;
  p.kind = Kind::kStrip;
  p.title = std::move(title);
  p.prefix = std::move(prefix);
  p.unit = std::move(unit);
  p.y_label = std::move(y_label);
  return p;
}

PlotSpec PlotSpec::sweep(std::string title, std::string prefix, std::string x_key,
                         std::string x_label, std::string unit, std::string y_label) {
  PlotSpec p = strip(std::move(title), std::move(prefix), std::move(unit), std::move(y_label));
  p.kind = Kind::kSweep;
  p.x_key = std::move(x_key);
  p.x_label = std::move(x_label);
  return p;
}

const std::vector<Experiment>& catalog() {
  static const std::vector<Experiment> experiments = [] {
    std::vector<Experiment> all;
    all.push_back(make_merge_experiment());
    all.push_back(make_zero_cost_experiment());
    all.push_back(make_dirty_memory_experiment());
    all.push_back(make_memclr_threshold_experiment());
    all.push_back(make_chunked_zero_experiment());
    all.push_back(make_make_reuse_clear_experiment());
    all.push_back(make_stack_zero_experiment());
    all.push_back(make_copy_vs_append_experiment());
    all.push_back(make_needzero_experiment());
    all.push_back(make_copy_experiment());
    all.push_back(make_arena_experiment());
    all.push_back(make_oid_experiment());
    all.push_back(make_append_int_experiment());
    all.push_back(make_reset_cost_experiment());
    all.push_back(make_udp_buffers_experiment());
    return all;
  }();
  return experiments;
}

}  // namespace zerolab::lab
