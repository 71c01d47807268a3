// See lab_store.hpp.
#include "lab_store.hpp"

#include <chrono>

#include "lab/verdict.hpp"
#include "store/store.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::cli {

store::Run lab_run_record(const LabStoreSettings& settings, const std::vector<lab::ExperimentOutcome>& outcomes,
                          const lab::MachineInfo& machine) {
  store::RunBuilder builder;
  std::vector<std::string> paths;
  for (const lab::ExperimentOutcome& o : outcomes) paths.push_back(settings.out_dir + "/" + o.experiment->id + ".txt");
  for (const std::string& path : paths) {
    const std::vector<std::string> one = {path};
    stat::InputFiles files(stat::parse_inputs(one, false, false));
    while (files.next()) {
      if (files.kind() == stat::RecordKind::kResult) builder.add(files.result());
      if (files.kind() == stat::RecordKind::kUnitMetadata) builder.add(files.unit_metadata());
    }
    // A file the lab could not write was reported already; the rest is kept.
  }
  store::Run run = builder.finish();
  if (run.configs.empty()) run.configs.emplace_back(machine.config.begin(), machine.config.end());
  run.id = store::random_uuid();
  run.kind = "lab";
  run.unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  run.command = settings.command;
  run.source = settings.out_dir;
  run.name = settings.save_name;
  for (const lab::ExperimentOutcome& o : outcomes) {
    for (const lab::ClaimOutcome& c : o.claims) {
      if (c.claim == nullptr) continue;
      store::StoredClaim sc;
      sc.experiment = o.experiment->id;
      sc.statement = c.claim->statement;
      sc.seed_figure = c.claim->seed_figure;
      sc.verdict = std::string(lab::to_string(c.cpp.verdict));
      sc.cpp_verdict = sc.verdict;
      sc.go_verdict = std::string(lab::to_string(c.go.verdict));
      sc.figure = c.cpp.here;
      sc.detail = c.cpp.detail;
      sc.provisional = c.cpp.provisional;
      sc.go_figure = c.go.here;
      sc.go_detail = c.go.detail;
      run.claims.push_back(std::move(sc));
    }
  }
  store::set_labels(run, settings.labels);
  return run;
}

bool store_lab_run(const LabStoreSettings& settings, const std::vector<lab::ExperimentOutcome>& outcomes,
                   const lab::MachineInfo& machine, std::FILE* out, std::FILE* err) {
  try {
    const store::Run run = lab_run_record(settings, outcomes, machine);
    store::Store s = store::Store::open(settings.url, store::OpenMode::kWrite);
    s.submit(run);
    std::fprintf(out, "stored: run %s in %s%s\n", run.id.c_str(), s.display().c_str(),
                 run.name.empty() ? "" : (" as " + run.name).c_str());
    std::fflush(out);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(err, "zerolab lab: cannot store the run (the result files are written): %s\n", e.what());
    return false;
  }
}

}  // namespace zerolab::cli
