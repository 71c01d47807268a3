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

namespace zerolab::lab {

constexpr std::size_t kMaxBaselineName = 200;

// Returns false with `error` ("invalid baseline name \"a/b\": ...") when
// name breaks the rule above.
inline bool check_baseline_name(const std::string& name, std::string& error) {
  auto allowed = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  };
  std::string why;
  if (name.empty()) {
    why = "empty";
  } else if (name == "." || name == "..") {
    why = "not a name";
  } else if (name.size() > kMaxBaselineName) {
    why = "longer than " + std::to_string(kMaxBaselineName) + " bytes";
  } else {
    for (const char c : name) {
      if (!allowed(c)) {
        why = "use only letters, digits, '.', '_' and '-' (one path component)";
        break;
      }
    }
  }
  if (why.empty()) return true;
  std::string shown;
  for (const char c : name.substr(0, 64)) {
    shown += (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\' || c == 0x7f) ? '?' : c;
  }
  error = "invalid baseline name \"" + shown + (name.size() > 64 ? "...\": " : "\": ") + why;
  return false;
}

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_BASELINE_NAME_HPP_
