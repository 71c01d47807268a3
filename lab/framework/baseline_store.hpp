// lab/baseline_store.hpp — where `zerolab lab --save NAME` keeps a run's
// raw results and where `--baseline NAME` finds them again. The store is
// this small interface (save_baseline, load_baseline); what a comparison
// does with a loaded baseline is in lab/baseline.hpp.
//
// A baseline directory:
//   manifest   "format: 1", name, date, command, runs, benchtime, one
//              "experiment: <id> <results>" line per experiment and one
//              "go: <id> <results>" line per experiment whose Go peer ran
//              (lab/baseline_manifest.hpp)
//   <id>.txt   the run's raw results (C++), byte for byte
//   <id>.go.txt  the Go peer's results (Go here), byte for byte, when the
//              run has them (a zerolab that predates them skips the lines)
// Saving writes everything into <dir>/NAME+tmp.<pid>/ and renames it into
// place (over an existing NAME by an atomic exchange, so a process that
// dies midway leaves either the old baseline or the new one under NAME,
// never a mix; no valid name contains '+').
//
// Thread-safety: pure functions apart from the files they read and write.
//
// Example:
//   BaselineRecord record{"2026-12-03T05:28:01Z", "zerolab lab --save main", 6, "1s"};
//   std::string error;
//   if (!save_baseline("zerolab-results", {"merge"}, "zerolab-results/baselines", "main", record,
//   error)) fail(error); Baseline b; if (!load_baseline("zerolab-results/baselines", "main",
//   {"merge"}, b, error)) {
//     fail(error);  // "baseline \"main\" not found: zerolab-results/baselines/main does not exist"
//   }
#ifndef ZEROLAB_LAB_BASELINE_STORE_HPP_
#define ZEROLAB_LAB_BASELINE_STORE_HPP_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "lab/framework/baseline_manifest.hpp"
#include "lab/framework/baseline_name.hpp"

namespace zerolab::lab {

// Where baselines live unless --baseline-dir or $ZEROLAB_BASELINE_DIR says.
inline constexpr const char* kDefaultBaselineDir = "zerolab-results/baselines";
inline constexpr const char* kBaselineDirEnv = "ZEROLAB_BASELINE_DIR";

// Copies <results_dir>/<id>.txt for each id, and <id>.go.txt where it
// exists, into <dir>/<name>/ with a manifest, atomically (see above). Each file is read back
// through the stat reader first: a syntax error stops the save. <dir> must exist. Returns false
// with `error` (one line naming the file) and nothing changed under <dir>/<name>.
bool save_baseline(const std::string& results_dir, const std::vector<std::string>& experiment_ids,
                   const std::string& dir, const std::string& name, const BaselineRecord& record,
                   std::string& error);

struct BaselineFile {
  std::string experiment_id;
  std::string path;         // <dir>/<name>/<id>.txt
  std::size_t results = 0;  // result lines read (and as the manifest says)
};

// A baseline loaded and checked by load_baseline.
struct Baseline {
  std::string name;
  std::string path;  // <dir>/<name>
  BaselineRecord record;
  std::vector<BaselineFile> files;     // experiments still known, in manifest order (C++)
  std::vector<BaselineFile> go_files;  // their Go peers' results (<id>.go.txt), where saved
  // The config lines of the first result of the first file (the machine
  // the baseline was recorded on).
  std::vector<std::pair<std::string, std::string>> config;
  // One line each: experiments of the baseline no longer known (skipped).
  std::vector<std::string> warnings;
};

// Reads <dir>/<name>/manifest and every file it lists (C++ and Go here)
// whose experiment is in known_ids, reading each through the stat reader. Returns false with
// `error`, one line naming the path (and line), when the baseline is
// missing, the manifest is malformed, a file is unreadable, has a syntax
// error, or holds a different number of results than the manifest says.
bool load_baseline(const std::string& dir, const std::string& name,
                   const std::vector<std::string>& known_ids, Baseline& out, std::string& error);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_STORE_HPP_
