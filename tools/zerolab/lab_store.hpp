// Keeping a `zerolab lab` run in the results store (src/store/): the raw
// result files the run wrote (read back through the stat reader, so the
// stored run exports to exactly what they hold), the machine, the command,
// --label pairs, and every claim with its Go-here and C++ verdicts and
// figures. --save NAME also names the stored run NAME.
//
// Example:
//   LabStoreSettings st{url, {{"commit", "abc"}}, "main", "zerolab lab --quick", "zerolab-results/x"};
//   settings.on_finished = [&](const auto& outcomes, const auto& machine) {
//     return store_lab_run(st, outcomes, machine, stdout, stderr);
//   };
#ifndef ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_

#include <cstdio>
#include <string>
#include <vector>

#include "lab/machine_info.hpp"
#include "lab/outcome.hpp"
#include "store/run.hpp"
#include "store/store_args.hpp"

namespace zerolab::cli {

struct LabStoreSettings {
  store::StoreUrl url;
  std::vector<store::KeyValue> labels;
  std::string save_name;  // --save NAME: the stored run's name too
  std::string command;
  std::string out_dir;    // where the run's <id>.txt files are
};

// The run as the store keeps it.
store::Run lab_run_record(const LabStoreSettings& settings, const std::vector<lab::ExperimentOutcome>& outcomes,
                          const lab::MachineInfo& machine);

// Submits the run; prints "stored: run <id> in <store>" on out, or
// "zerolab lab: cannot store the run: <why>" on err and returns false.
bool store_lab_run(const LabStoreSettings& settings, const std::vector<lab::ExperimentOutcome>& outcomes,
                   const lab::MachineInfo& machine, std::FILE* out, std::FILE* err);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_
