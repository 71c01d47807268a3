// Go regular expressions, run by RE2: `-bench` and `-list` patterns in the
// harness, `/regexp/` terms in `zerolab compare -filter`, `-row`, `-col`,
// and the lab's experiment names.
//
// Go's regexp package is RE2's syntax and semantics, so the expression is
// handed to RE2 unchanged with Go's defaults (UTF-8, leftmost-first rather
// than POSIX longest match, Perl classes and \b, `^`/`$` at the text's ends,
// `.` not matching '\n'). Matching takes linear time whatever the pattern.
//
// Compile errors are worded as Go's regexp/syntax words them: RE2's error
// code and argument mapped to Go's message ("missing closing ): `(a`"),
// plus the three checks RE2 does not make as Go does: invalid UTF-8 names
// the rest of the expression from the bad byte, `\C` (any byte) is refused,
// and more than 1000 nested groups are "expression nests too deeply".
// Two departures are left:
//  - Go limits the parse tree's height (1000) where this counts nested
//    capturing groups;
//  - RE2 spells a Unicode class out as UTF-8 byte ranges (`\pL` is 1,197
//    instructions, one in Go), so repeated Unicode classes outgrow RE2's
//    program budget long before Go's. A pattern over RE2's default budget
//    (8 MB) is compiled once more with kLargeProgramBudget (24 MB: RE2
//    allows 2/3 of it / 32 bytes = 524,000 instructions before it shares
//    UTF-8 suffixes out, ~3x more after). That takes any one class repeated
//    1000 times — the most Go's repeat limit allows — as far as measured:
//    `\pL{1000}` (1.19 M instructions, ~0.9 s and 155 MB at peak to
//    compile), `[\pL\pM\pN\pS\pP]{1000}`, `(?i)\pL{1000}`; the largest peak
//    measured under this budget was 185 MB. Beyond it — several such terms,
//    `\pL{1000}\p{Ll}{1000}`, `\pL{1000}|\pM{1000}`, which Go accepts — the
//    pattern is "expression too large" here; so is any pattern whose
//    compile runs out of memory.
//
// Example:
//   std::string error;
//   auto re = zerolab::internal::GoRegex::compile(R"(^Copy/size=\d+k$)", &error);
//   if (re && re->search("Copy/size=4k")) { ... }
//   // GoRegex::compile("(a", &error) == nullptr, error == "missing closing ): `(a`"
#ifndef ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_
#define ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace zerolab::internal {

class GoRegex {
 public:
  // Go's limit on nested groups (regexp/syntax maxHeight).
  static constexpr int kMaxNesting = 1000;
  // RE2's memory budget for a pattern too large for its default (8 MB).
  static constexpr long long kLargeProgramBudget = 24LL << 20;

  // Compiles a Go regular expression; null and *error ("<what>: `<where>`",
  // Go's regexp/syntax wording, without its "error parsing regexp: ") when
  // it is invalid.
  static std::unique_ptr<GoRegex> compile(std::string_view expression, std::string* error);

  ~GoRegex();
  GoRegex(const GoRegex&) = delete;
  GoRegex& operator=(const GoRegex&) = delete;

  // Whether the expression matches anywhere in `text` (Go's MatchString).
  bool search(std::string_view text) const;

 private:
  explicit GoRegex(std::unique_ptr<re2::RE2> re);
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_
