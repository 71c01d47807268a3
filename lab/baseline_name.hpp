// lab/baseline_name.hpp — the rule for a baseline's name (`zerolab lab
// --save NAME`, `--baseline NAME`): one path component of A-Z a-z 0-9 . _ -,
// at most 200 bytes, not "." or "..". Header-only so the flag parser (and
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

#include "format/quote.hpp"

namespace zerolab::lab {

constexpr std::size_t kMaxBaselineName = 200;

// What is wrong with name as a baseline name ("" when nothing): "empty",
// "not a name", "longer than 200 bytes" or the rule above.
inline std::string baseline_name_problem(const std::string& name) {
  auto allowed = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  };
  if (name.empty()) return "empty";
  if (name == "." || name == "..") return "not a name";
  if (name.size() > kMaxBaselineName)
    return "longer than " + std::to_string(kMaxBaselineName) + " bytes";
  for (const char c : name) {
    if (!allowed(c)) return "use only letters, digits, '.', '_' and '-' (one path component)";
  }
  return "";
}

// Returns false with `error` ("invalid baseline name \"a/b\": ...", the name
// quoted by format/quote.hpp) when name breaks the rule above.
inline bool check_baseline_name(const std::string& name, std::string& error) {
  const std::string why = baseline_name_problem(name);
  if (why.empty()) return true;
  error = "invalid baseline name " + internal::quote_text(name) + ": " + why;
  return false;
}

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_NAME_HPP_
