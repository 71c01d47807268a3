// The lab's experiments: catalog() lists them in the order the lab runs
// them, each built by its make_*_experiment() in a file of its own here.
//
// Example:
//   for (const zerolab::lab::Experiment& e : zerolab::lab::catalog())
//     std::printf("%s: %s\n", e.id.c_str(), e.title.c_str());
#ifndef ZEROLAB_LAB_EXPERIMENTS_CATALOG_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_CATALOG_HPP_

#include <vector>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab {

// Every experiment, in the order the lab runs them.
const std::vector<Experiment>& catalog();

// The experiments of catalog() (one per file in this folder).
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
Experiment make_ctx_done_experiment();

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_EXPERIMENTS_CATALOG_HPP_
