// The lab's experiments in run order, and the Claim constructors
// (experiment.hpp).
#include <utility>

#include "lab/experiment.hpp"

namespace zerolab::lab {

Claim Claim::ratio(std::string statement, std::string seed_figure, std::string slower,
                   std::string faster, double at_least, std::string unit) {
  Claim c;
  c.kind = ClaimKind::kRatio;
  c.statement = std::move(statement);
  c.seed_figure = std::move(seed_figure);
  c.slower = std::move(slower);
  c.faster = std::move(faster);
  c.at_least = at_least;
  c.unit = std::move(unit);
  return c;
}

Claim Claim::bound(std::string statement, std::string seed_figure, std::string benchmark,
                   std::string unit, double lo, double hi, double scale, std::string bound_unit) {
  Claim c;
  c.kind = ClaimKind::kBound;
  c.statement = std::move(statement);
  c.seed_figure = std::move(seed_figure);
  c.benchmark = std::move(benchmark);
  c.unit = std::move(unit);
  c.lo = lo;
  c.hi = hi;
  c.scale = scale;
  c.bound_unit = bound_unit.empty() ? c.unit : std::move(bound_unit);
  return c;
}

Claim Claim::fact(std::string statement, std::string seed_figure,
                  std::function<FactResult()> check) {
  Claim c;
  c.kind = ClaimKind::kFact;
  c.statement = std::move(statement);
  c.seed_figure = std::move(seed_figure);
  c.check = std::move(check);
  return c;
}

PlotSpec PlotSpec::sweep(std::string title, std::string prefix, std::string x_key,
                         std::string x_label, std::string unit, std::string y_label) {
  PlotSpec p;
  p.kind = Kind::kSweep;
  p.title = std::move(title);
  p.prefix = std::move(prefix);
  p.x_key = std::move(x_key);
  p.x_label = std::move(x_label);
  p.unit = std::move(unit);
  p.y_label = std::move(y_label);
  return p;
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
