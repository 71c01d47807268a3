// The Experiment and PlotSpec constructors (experiment.hpp).
#include "lab/framework/experiment.hpp"

#include <utility>

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

}  // namespace zerolab::lab
