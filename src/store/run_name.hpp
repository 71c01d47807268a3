// store/run_name.hpp — the one rule for a run's name, wherever a name is
// given (`zerolab store name NAME RUN`, `zerolab lab --save NAME`,
// `--baseline NAME`, a baseline folder imported into the store): one path
// component of A-Z a-z 0-9 . _ -, at most 200 bytes, not "." or "..", and
// not something that reads as a run id (4 or more hex digits and '-' only:
// "store export beef" must not find a named run where a run id was meant).
// Header-only so the flag parser (and its fuzz target) checks names without
// linking the store.
//
// Thread-safety: pure function.
//
// Example:
//   run_name_problem("main");      // "": valid
//   run_name_problem("../x");      // "use only letters, digits, ..."
//   run_name_problem("3f2a9c41");  // "looks like a run id ..."
#ifndef ZEROLAB_SRC_STORE_RUN_NAME_HPP_
#define ZEROLAB_SRC_STORE_RUN_NAME_HPP_

#include <cstddef>
#include <string>

namespace zerolab::store {

constexpr std::size_t kMaxRunName = 200;

// What is wrong with ref as something that names a run ("" when nothing):
// the characters and length of the rule, a run id allowed (`--baseline
// 3f2a9c41` picks a run by id).
inline std::string run_reference_problem(const std::string& ref) {
  auto allowed = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  };
  if (ref.empty()) return "empty";
  if (ref == "." || ref == "..") return "not a name";
  if (ref.size() > kMaxRunName) return "longer than " + std::to_string(kMaxRunName) + " bytes";
  for (const char c : ref) {
    if (!allowed(c)) return "use only letters, digits, '.', '_' and '-' (one path component)";
  }
  return "";
}

// What is wrong with name as a new run name ("" when nothing): the whole rule.
inline std::string run_name_problem(const std::string& name) {
  std::string why = run_reference_problem(name);
  if (!why.empty()) return why;
  auto id_like = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-';
  };
  bool reads_as_id = name.size() >= 4;
  for (const char c : name) reads_as_id = reads_as_id && id_like(c);
  if (reads_as_id) return "looks like a run id (only hex digits and '-'); add a letter from g to z";
  return "";
}

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_RUN_NAME_HPP_
