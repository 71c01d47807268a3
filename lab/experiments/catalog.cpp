// The lab's experiments in run order (catalog.hpp).
#include "lab/experiments/catalog.hpp"

namespace zerolab::lab {

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
    all.push_back(make_ctx_done_experiment());
    return all;
  }();
  return experiments;
}

}  // namespace zerolab::lab
