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
// Two departures are left: Go limits the parse tree's height (1000) where
// this counts nested capturing groups, and RE2's program budget (8 MB) is
// smaller than Go's for Unicode classes: `\pL{1000}`, which Go accepts, is
// "expression too large" here (RE2 spells \pL out as UTF-8 byte ranges).
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
