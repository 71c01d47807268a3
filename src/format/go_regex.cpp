// Go regular expressions on RE2, errors in Go's words (go_regex.hpp).
#include "format/go_regex.hpp"

#include <re2/re2.h>

#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace zerolab::internal {

namespace {

// Go's regexp/syntax ErrorCode text for RE2's error code.
const char* go_error_text(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case RE2::ErrorPatternTooLarge:
      return "expression too large";
    case RE2::NoError:
    case RE2::ErrorInternal:
      break;
  }
  return "regexp/syntax: internal error";
}

std::string go_error(const char* what, std::string_view where) {
  return std::string(what) + ": `" + std::string(where) + "`";
}

// Where Go's utf8.DecodeRuneInString first fails in `s` (overlong forms,
// surrogates and values past U+10FFFF included), or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

// What RE2 does not check as Go does: the escapes `\C` (RE2's "any
// byte", which Go refuses) and `\8` (both refuse), in order, outside
// \Q...\E; and how deeply capturing groups nest.
struct Escapes {
  std::vector<std::size_t> any_byte;  // the backslash of each `\C`
  std::vector<std::size_t> any_or_8;  // ... of each `\C` or `\8`
  int capture_depth = 0;
  // The first {n}, {n,} or {n,m} with a count of 8 or more digits: Go
  // refuses it as a repeat count, RE2 reads it as literal text.
  std::string huge_repeat;
};

Escapes scan(std::string_view s) {
  Escapes e;
  int depth = 0;
  bool in_brackets = false;
  std::size_t bracket_start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      if (s[i + 1] == 'Q') {
        const std::size_t end = s.find("\\E", i + 2);
        if (end == std::string_view::npos) break;
        i = end + 1;
        continue;
      }
      if (s[i + 1] == 'C') e.any_byte.push_back(i);
      if (s[i + 1] == 'C' || s[i + 1] == '8') e.any_or_8.push_back(i);
      ++i;
      continue;
    }
    if (in_brackets) {
      // ']' right after '[' or '[^' is a literal; "[:name:]" is one item.
      if (c == ']' && i > bracket_start + 1 &&
          !(i == bracket_start + 2 && s[bracket_start + 1] == '^')) {
        in_brackets = false;
      } else if (c == '[' && i + 1 < s.size() && s[i + 1] == ':') {
        const std::size_t end = s.find(":]", i + 2);
        if (end != std::string_view::npos) i = end + 1;
      }
      continue;
    }
    if (c == '{' && e.huge_repeat.empty()) {
      std::size_t j = i + 1;
      std::size_t digits[2] = {0, 0};
      for (int part = 0; part < 2; ++part) {
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
          ++digits[part];
          ++j;
        }
        if (part == 0 && (digits[0] == 0 || j >= s.size() || s[j] != ',')) break;
        if (part == 0) ++j;
      }
      if (digits[0] > 0 && j < s.size() && s[j] == '}' && (digits[0] >= 8 || digits[1] >= 8)) {
        e.huge_repeat = std::string(s.substr(i, j + 1 - i));
      }
    }
    if (c == '[') {
      in_brackets = true;
      bracket_start = i;
    } else if (c == '(') {
      if (i + 1 < s.size() && s[i + 1] == '?' && !(s.substr(i, 4) == "(?P<")) {
        ++i;  // (?:...) and (?flags) make no node of their own in Go's tree
        continue;
      }
      ++depth;
      if (depth > e.capture_depth) e.capture_depth = depth;
    } else if (c == ')') {
      if (depth > 0) --depth;
    }
  }
  return e;
}

}  // namespace

GoRegex::GoRegex(std::unique_ptr<re2::RE2> re) : re_(std::move(re)) {}

GoRegex::~GoRegex() = default;

std::unique_ptr<GoRegex> GoRegex::compile(std::string_view expression, std::string* error) {
  // Go checks the whole expression's encoding before parsing it.
  if (const std::size_t bad = first_invalid_utf8(expression); bad != std::string_view::npos) {
    *error = go_error("invalid UTF-8", expression.substr(bad));
    return nullptr;
  }
  // RE2 reads `\C` as any byte; Go refuses it as an escape. `\8` is an
  // escape both refuse, so RE2 reports it in its place in parse order.
  const Escapes escapes = scan(expression);
  std::string pattern(expression);
  for (const std::size_t at : escapes.any_byte) pattern[at + 1] = '8';
  RE2::Options options;
  options.set_log_errors(false);
  std::unique_ptr<re2::RE2> re;
  try {
    // RE2's default budget first; a program over it (RE2 spells a Unicode
    // class out as UTF-8 byte ranges: `\pL` is 1,197 instructions, one in
    // Go) gets one more try with GoRegex::kLargeProgramBudget.
    re = std::make_unique<re2::RE2>(pattern, options);
    if (re->error_code() == RE2::ErrorPatternTooLarge) {
      re.reset();
      options.set_max_mem(kLargeProgramBudget);
      re = std::make_unique<re2::RE2>(pattern, options);
    }
  } catch (const std::bad_alloc&) {
    // Out of memory (a low ulimit -v) while compiling: too large here.
    *error = go_error("expression too large", expression);
    return nullptr;
  }
  if (!re->ok()) {
    std::string arg = re->error_arg();
    if (re->error_code() == RE2::ErrorBadEscape && arg == "\\8" && !escapes.any_or_8.empty()) {
      arg[1] = expression[escapes.any_or_8.front() + 1];  // the first one RE2 met
    }
    // Go names the whole expression where RE2 has no argument.
    if (re->error_code() == RE2::ErrorPatternTooLarge) arg = std::string(expression);
    *error = go_error(go_error_text(re->error_code()), arg);
    return nullptr;
  }
  if (!escapes.huge_repeat.empty()) {
    *error = go_error("invalid repeat count", escapes.huge_repeat);
    return nullptr;
  }
  if (escapes.capture_depth >= kMaxNesting) {
    *error = go_error("expression nests too deeply", expression);
    return nullptr;
  }
  return std::unique_ptr<GoRegex>(new GoRegex(std::move(re)));
}

bool GoRegex::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace zerolab::internal
