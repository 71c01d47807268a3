// tests/lab_test_experiment.hpp — an Experiment for a lab test to fill in:
// its id, title and seed reference set (by default the seed reference of an
// experiment that stands for no seed: none.txt, section "none"), nothing else.
//
// Example:
//   Experiment e = lab_test_util::experiment("exact", "a benchmark that allocates");
//   e.benchmarks = {{"BenchmarkAllocates", &allocates}};
#ifndef ZEROLAB_TESTS_LAB_TEST_EXPERIMENT_HPP_
#define ZEROLAB_TESTS_LAB_TEST_EXPERIMENT_HPP_

#include <string>
#include <utility>

#include "lab/framework/experiment.hpp"

namespace lab_test_util {

inline zerolab::lab::Experiment experiment(std::string id, std::string title,
                                           std::string seed_file = "none.txt",
                                           std::string seed_section = "none") {
  zerolab::lab::Experiment e;
  e.id = std::move(id);
  e.title = std::move(title);
  e.seed_file = std::move(seed_file);
  e.seed_section = std::move(seed_section);
  return e;
}

}  // namespace lab_test_util

#endif  // ZEROLAB_TESTS_LAB_TEST_EXPERIMENT_HPP_
