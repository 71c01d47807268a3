// libFuzzer target for the Go regular expressions of `-bench`, `-list` and
// `zerolab compare -filter` (src/format/go_regex.hpp, RE2 underneath).
// Input: one byte choosing how to grow the rest, then a pattern and, after
// a NUL, a subject. Modes 1-4 build what mutation alone rarely reaches:
// the pattern nested in thousands of capturing or non-capturing groups,
// repeated thousands of times, or under stacked counted repeats. Each
// compile must succeed or fail with Go's "<what>: `<where>`" wording; a
// compiled expression must match the subject (at most 512 bytes, a name's
// size) the same way twice.
//
// Example (the Makefile's smoke run uses -max_len=20000):
//   ./go_regex_fuzz -max_len=20000 -max_total_time=600 build/fuzz/work/re fuzz/corpus/go_regex_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/go_regex.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Go's regexp/syntax error codes, as go_regex.cpp prints them.
bool is_go_error(const std::string& error) {
  static constexpr std::string_view kCodes[] = {"invalid escape sequence: `",
                                                "invalid character class: `",
                                                "invalid character class range: `",
                                                "missing closing ]: `",
                                                "missing closing ): `",
                                                "unexpected ): `",
                                                "trailing backslash at end of expression: `",
                                                "missing argument to repetition operator: `",
                                                "invalid repeat count: `",
                                                "invalid nested repetition operator: `",
                                                "invalid or unsupported Perl syntax: `",
                                                "invalid UTF-8: `",
                                                "invalid named capture: `",
                                                "expression too large: `",
                                                "expression nests too deeply: `"};
  if (error.empty() || error.back() != '`') return false;
  for (std::string_view code : kCodes) {
    if (error.compare(0, code.size(), code) == 0) return true;
  }
  return false;
}

std::string grow(unsigned mode, std::size_t count, const std::string& p) {
  std::string out;
  switch (mode) {
    case 1:  // capturing groups, Go's limit at 1000
      for (std::size_t i = 0; i < count; ++i) out += '(';
      out += p;
      for (std::size_t i = 0; i < count; ++i) out += ')';
      return out;
    case 2:  // non-capturing groups: no limit in Go
      for (std::size_t i = 0; i < count; ++i) out += "(?:";
      out += p;
      for (std::size_t i = 0; i < count; ++i) out += ')';
      return out;
    case 3:  // a long chain: p p p ... (e.g. "a+" becomes a+a+a+...)
      for (std::size_t i = 0; i < count && out.size() < 20000; ++i) out += p;
      return out;
    case 4:  // stacked repeats: ((p){n}){n}...
      out = p;
      for (std::size_t i = 0; i < count % 8; ++i)
        out = "(" + out + "){" + std::to_string(count % 1002) + "}";
      return out;
    default:
      return p;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const unsigned mode = data[0] % 5;
  const std::size_t count = (static_cast<std::size_t>(data[1]) << 8 | data[2]) % 6000;
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  const std::size_t nul = rest.find('\0');
  const std::string pattern = grow(mode, count, std::string(rest.substr(0, nul)));
  // Matching costs pattern size times subject length once RE2's DFA runs
  // out of budget (as in Go): subjects stay name-sized.
  const std::string subject(nul == std::string_view::npos ? rest.substr(0, 512)
                                                          : rest.substr(nul + 1, 512));

  std::string error;
  const auto re = zerolab::internal::GoRegex::compile(pattern, &error);
  if (re == nullptr) {
    check(is_go_error(error));
    return 0;
  }
  const bool first = re->search(subject);
  check(re->search(subject) == first);
  return 0;
}
