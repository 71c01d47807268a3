// Keeping a `zerolab lab` run in the results store (src/store/) and taking
// its baselines from there.
//
// Storing: the raw result files the run wrote, C++ (<id>.txt) and Go here
// (<id>.go.txt), read back through the stat reader so the stored run
// exports to exactly what they hold; the machine, the command, --label
// pairs, and every claim with its Go-here and C++ verdicts and figures.
// --save NAME names the stored run NAME on its machine once the run has
// passed (no failure, no regression), as a baseline was saved before.
//
// Baselines: --baseline NAME is this machine's run named NAME (or a run's
// id, for any machine's run). It is written out under
// <out>/baseline/NAME/ in the layout lab/baseline_store.hpp reads (so the
// lab compares C++ and Go results as it does any baseline, and the files
// compared stay beside the run's), then loaded.
//
// Example:
//   LabStoreSettings st{url, {{"commit", "abc"}}, "main", "zerolab lab --quick",
//   "zerolab-results/x"}; store::Run base; if (!find_stored_baseline(st.url, "main",
//   this_machine(st.labels, machine), base, error, code, nullptr)) fail;
//   ... create the output directory ...
//   write_stored_baseline(base, "main", lab::catalog(), st.out_dir, baseline, error);
//   settings.on_finished = [&](const auto& outcomes, const auto& machine, const std::string&
//   results_dir) {
//     st.out_dir = results_dir;
//     return store_lab_run(st, outcomes, machine, stdout, stderr, &stored_id);
//   };
//   int code = run_lab(settings, stdout, stderr);
//   code = name_stored_run(st, stored_id, code, stdout, stderr);
#ifndef ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_

#include <cstdio>
#include <string>
#include <vector>

#include "lab/framework/baseline_store.hpp"
#include "lab/framework/experiment.hpp"
#include "lab/framework/machine_info.hpp"
#include "lab/framework/outcome.hpp"
#include "store/run.hpp"
#include "store/store_args.hpp"

namespace zerolab::cli {

struct LabStoreSettings {
  store::StoreUrl url;
  std::vector<store::KeyValue> labels;
  std::string save_name;  // --save NAME: the stored run's name on this machine
  std::string command;
  std::string out_dir;  // where the run's <id>.txt and <id>.go.txt files are
};

// The machine a run is stored under: its machine= label, else the cpu
// config line, else "unknown" (as store::set_labels decides).
std::string this_machine(const std::vector<store::KeyValue>& labels,
                         const lab::MachineInfo& machine);

// The run as the store keeps it (no name: see name_stored_run).
store::Run lab_run_record(const LabStoreSettings& settings,
                          const std::vector<lab::ExperimentOutcome>& outcomes,
                          const lab::MachineInfo& machine);

// Submits the run and sets *stored_id; prints "stored: run <id> in <store>"
// on out, or "zerolab lab: cannot store the run ...: <why>" on err and
// returns false.
bool store_lab_run(const LabStoreSettings& settings,
                   const std::vector<lab::ExperimentOutcome>& outcomes,
                   const lab::MachineInfo& machine, std::FILE* out, std::FILE* err,
                   std::string* stored_id);

// Before anything runs, for every run that will be stored: the store
// opens (created and migrated if need be) and takes writes. False with
// `error` ("<what>: <why>") and the exit `code` (1 unreachable or
// read-only, 2 a store this zerolab refuses).
bool check_store_writable(const store::StoreUrl& url, const std::string& what, std::string& error,
                          int& code);

// After the run, for --save: names the stored run when the run's exit code
// is 0 (prints "saved as NAME: run <id> in <store>"); otherwise says on err
// why it was not named. Returns the exit code (1 if naming failed).
int name_stored_run(const LabStoreSettings& settings, const std::string& stored_id, int code,
                    std::FILE* out, std::FILE* err);

// --baseline REF: this machine's run named REF, or the run whose id (or
// unique prefix) REF is. False with `error` and `code` (2: no such run, a
// name only other machines have, a refused store; 1: unreachable); with
// *absent set when the store has no such run or does not exist yet.
bool find_stored_baseline(const store::StoreUrl& url, const std::string& ref,
                          const std::string& machine, store::Run& run, std::string& error,
                          int& code, bool* absent);

// Writes `run` as baseline `name` under <out_dir>/baseline/ (each
// experiment's C++ and Go-here results as the lab wrote them) and loads it.
bool write_stored_baseline(const store::Run& run, const std::string& name,
                           const std::vector<lab::Experiment>& catalog, const std::string& out_dir,
                           lab::Baseline& baseline, std::string& error);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_LAB_STORE_HPP_
