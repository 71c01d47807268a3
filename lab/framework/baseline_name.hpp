// lab/baseline_name.hpp — the rule for a baseline's name (`zerolab lab
// --save NAME`, `--baseline NAME`): a run's name (store/run_name.hpp: one
// path component of A-Z a-z 0-9 . _ -, at most 200 bytes, not "." or "..",
// not read as a run id). Header-only so the flag parser (and
// its fuzz target) checks names without linking the lab. No valid name
// contains '+', which is what keeps save_baseline's temporary directories
// ("NAME+tmp.<pid>") from ever being read as a baseline.
//
// Thread-safety: pure function.
//
// Example:
//   std::string error;
//   if (!check_baseline_name("main", error)) { ... }  // valid
//   check_baseline_name("../x", error);  // false: error names the rule
#ifndef ZEROLAB_LAB_BASELINE_NAME_HPP_
#define ZEROLAB_LAB_BASELINE_NAME_HPP_

#include <string>

#include "store/run_name.hpp"
#include "text/quote.hpp"

namespace zerolab::lab {

constexpr std::size_t kMaxBaselineName = store::kMaxRunName;

// What is wrong with name as a baseline name ("" when nothing): a baseline
// is a named run, so the rule is store/run_name.hpp's.
inline std::string baseline_name_problem(const std::string& name) {
  return store::run_name_problem(name);
}
// The same for a baseline to compare with, which may also be a run's id.
inline std::string baseline_reference_problem(const std::string& ref) {
  return store::run_reference_problem(ref);
}

// Returns false with `error` ("invalid baseline name \"a/b\": ...", the name
// quoted by text/quote.hpp) when name breaks the rule above.
inline bool check_baseline_name(const std::string& name, std::string& error) {
  const std::string why = baseline_name_problem(name);
  if (why.empty()) return true;
  error = "invalid baseline name " + internal::quote_text(name) + ": " + why;
  return false;
}

// The same for a name that is read, not given to a run (a baseline folder
// to load, an experiment id): the rule without the run-id check.
inline bool check_baseline_reference(const std::string& name, std::string& error) {
  const std::string why = baseline_reference_problem(name);
  if (why.empty()) return true;
  error = "invalid baseline name " + internal::quote_text(name) + ": " + why;
  return false;
}

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_NAME_HPP_
