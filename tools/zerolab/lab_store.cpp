// See lab_store.hpp.
#include "lab_store.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "files/atomic_file.hpp"
#include "lab/framework/verdict.hpp"
#include "store/store.hpp"
#include "zerolab/stat_reader.hpp"

namespace zerolab::cli {
namespace {

// The "pkg" lines the lab writes above an experiment's results.
std::string cpp_package(const lab::Experiment& e) {
  return "zerolab/lab/" + e.id;
}
std::string go_package(const lab::Experiment& e) {
  return "zerolab/peers/go/" + e.go_peer;
}

// Adds a results file's records to the run being built.
void add_file(store::RunBuilder& builder, const std::string& path) {
  const std::vector<std::string> one = {path};
  stat::InputFiles files(stat::parse_inputs(one, false, false));
  while (files.next()) {
    if (files.kind() == stat::RecordKind::kResult) builder.add(files.result());
    if (files.kind() == stat::RecordKind::kUnitMetadata) builder.add(files.unit_metadata());
  }
  // A file the lab could not write was reported already; the rest is kept.
}

// The results of `run` under the "pkg: <package>" line.
store::Run package_part(const store::Run& run, const std::string& package) {
  return store::select_results(run, [&](const std::vector<store::KeyValue>& config) {
    return std::any_of(config.begin(), config.end(), [&](const store::KeyValue& kv) {
      return kv.first == "pkg" && kv.second == package;
    });
  });
}

// The most results one benchmark has in `run`: the runs (--count) it was made with.
int runs_per_benchmark(const store::Run& run) {
  std::map<std::string, int> seen;
  int most = 1;
  for (const store::StoredResult& r : run.results) most = std::max(most, ++seen[r.name]);
  return most;
}

}  // namespace

std::string this_machine(const std::vector<store::KeyValue>& labels,
                         const lab::MachineInfo& machine) {
  store::Run probe;
  probe.configs.emplace_back(machine.config.begin(), machine.config.end());
  store::set_labels(probe, labels);
  return probe.machine;
}

store::Run lab_run_record(const LabStoreSettings& settings,
                          const std::vector<lab::ExperimentOutcome>& outcomes,
                          const lab::MachineInfo& machine) {
  store::RunBuilder builder;
  for (const lab::ExperimentOutcome& o : outcomes) {
    const std::string base = settings.out_dir + "/" + o.experiment->id;
    add_file(builder, base + ".txt");
    if (::access((base + ".go.txt").c_str(), F_OK) == 0) add_file(builder, base + ".go.txt");
  }
  store::Run run = builder.finish();
  if (run.configs.empty()) run.configs.emplace_back(machine.config.begin(), machine.config.end());
  run.id = store::random_uuid();
  run.kind = "lab";
  run.unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  run.command = settings.command;
  run.source = settings.out_dir;
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
  // The machine of a run is this machine even when no file could be read.
  if (run.machine == "unknown") run.machine = this_machine(settings.labels, machine);
  return run;
}

bool store_lab_run(const LabStoreSettings& settings,
                   const std::vector<lab::ExperimentOutcome>& outcomes,
                   const lab::MachineInfo& machine, std::FILE* out, std::FILE* err,
                   std::string* stored_id) {
  try {
    const store::Run run = lab_run_record(settings, outcomes, machine);
    store::Store s = store::Store::open(settings.url, store::OpenMode::kWrite);
    s.submit(run);
    if (stored_id != nullptr) *stored_id = run.id;
    std::fprintf(out, "stored: run %s in %s\n", run.id.c_str(), s.display().c_str());
    std::fflush(out);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(err, "zerolab lab: cannot store the run (the result files are written): %s\n",
                 e.what());
    return false;
  }
}

bool check_store_writable(const store::StoreUrl& url, const std::string& what, std::string& error,
                          int& code) {
  try {
    store::Store s = store::Store::open(url, store::OpenMode::kWrite);
    s.check_writable();
    return true;
  } catch (const store::StoreError& e) {
    error = what + ": " + e.what();
    code = e.exit_code();
    return false;
  }
}

int name_stored_run(const LabStoreSettings& settings, const std::string& stored_id, int code,
                    std::FILE* out, std::FILE* err) {
  const char* name = settings.save_name.c_str();
  if (stored_id.empty()) {
    std::fprintf(err, "zerolab lab: baseline %s not saved: the run is not in the store\n", name);
    return code == 0 ? 1 : code;
  }
  if (code != 0) {
    std::fprintf(err, "zerolab lab: baseline %s not saved: this run %s (it is stored as run %s)\n",
                 name,
                 code == 3 ? "regressed against its baseline"
                           : "had failed benchmarks, errored claims or failed writes",
                 stored_id.c_str());
    return code;
  }
  try {
    store::Store s = store::Store::open(settings.url, store::OpenMode::kWrite);
    s.set_name(settings.save_name, stored_id);
    std::fprintf(out, "saved as baseline %s: run %s in %s\n", name, stored_id.c_str(),
                 s.display().c_str());
    std::fflush(out);
    return 0;
  } catch (const store::StoreError& e) {
    std::fprintf(err, "zerolab lab: cannot save baseline %s: %s\n", name, e.what());
    return 1;
  }
}

bool find_stored_baseline(const store::StoreUrl& url, const std::string& ref,
                          const std::string& machine, store::Run& run, std::string& error,
                          int& code, bool* absent) {
  if (absent != nullptr) *absent = false;
  try {
    if (url.engine == store::Engine::kSqlite && ::access(url.target.c_str(), F_OK) != 0 &&
        errno == ENOENT) {
      if (absent != nullptr) *absent = true;
    }
    store::Store s = store::Store::open(url, store::OpenMode::kRead);
    std::string id;
    const std::vector<store::NamedRun> named = s.named_runs(ref);
    for (const store::NamedRun& n : named) {
      if (n.machine == machine) id = n.id;
    }
    if (id.empty() && !named.empty()) {
      std::string others;
      for (const store::NamedRun& n : named)
        others += (others.empty() ? "" : ", ") + n.machine + " (run " + n.id + ")";
      error = "baseline \"" + ref + "\" in " + s.display() + " has no run from this machine (" +
              machine + "), only from " + others +
              "; give --baseline a run id to compare with another machine's run";
      code = 2;
      return false;
    }
    if (id.empty()) {
      try {
        id = s.resolve(ref);
      } catch (const store::StoreError&) {
        if (absent != nullptr) *absent = true;
        error = "baseline \"" + ref + "\" not found: no run is named " + ref + " in " +
                s.display() + " (zerolab lab --save " + ref +
                " names one; zerolab store list shows the runs)";
        code = 2;
        return false;
      }
    }
    run = s.load_run(id);
    if (run.kind != "lab") {
      error = "baseline \"" + ref + "\" is run " + id + " in " + s.display() +
              ", which is not a lab run (" + run.source + ")";
      code = 2;
      return false;
    }
    return true;
  } catch (const store::StoreError& e) {
    error = (absent != nullptr && *absent ? "baseline \"" + ref + "\" not found: "
                                          : std::string("--baseline: ")) +
            e.what();
    code = e.exit_code();
    return false;
  }
}

bool write_stored_baseline(const store::Run& run, const std::string& name,
                           const std::vector<lab::Experiment>& catalog, const std::string& out_dir,
                           lab::Baseline& baseline, std::string& error) {
  const std::string dir = out_dir + "/baseline";
  const std::string files =
      dir + "/" + name + "+files";  // no name has '+': never read as a baseline
  std::error_code ec;
  std::filesystem::remove_all(files, ec);
  std::filesystem::create_directories(files, ec);
  if (ec) {
    error = "cannot create " + files + ": " + ec.message();
    return false;
  }
  std::vector<std::string> ids;
  std::vector<std::string> known;
  int runs = 1;
  bool ok = true;
  for (const lab::Experiment& e : catalog) {
    known.push_back(e.id);
    const store::Run cpp = package_part(run, cpp_package(e));
    if (cpp.results.empty()) continue;
    ids.push_back(e.id);
    runs = std::max(runs, runs_per_benchmark(cpp));
    ok = ok && internal::write_file_atomically(files + "/" + e.id + ".txt",
                                               store::to_go_format(cpp), error);
    const store::Run go = e.go_peer.empty() ? store::Run{} : package_part(run, go_package(e));
    if (!go.results.empty()) {
      ok = ok && internal::write_file_atomically(files + "/" + e.id + ".go.txt",
                                                 store::to_go_format(go), error);
    }
  }
  const lab::BaselineRecord record{store::format_time_ms(run.unix_ms), run.command, runs, ""};
  ok = ok && lab::save_baseline(files, ids, dir, name, record, error) &&
       lab::load_baseline(dir, name, known, baseline, error);
  std::filesystem::remove_all(files, ec);
  return ok;
}

}  // namespace zerolab::cli
