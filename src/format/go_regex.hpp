// Go (RE2) regular expressions for unanchored matching, run on glibc's
// POSIX ERE engine: `-bench` patterns in the harness and `/regexp/` terms
// in `zerolab compare -filter`.
//
// Why not std::regex: libstdc++'s engine backtracks, so a pattern such as
// `(a*)*b` takes exponential time and deep recursion (the stat_query_fuzz
// target found a filter that overflowed the stack). glibc's regexec has no
// backtracking for expressions without back-references, which RE2 syntax
// cannot express anyway.
//
// The translation covers what benchmark names need: Go's escapes \d \D \s
// \S \w \W (ASCII, as in Go) in and out of brackets, \b \B, \A \z, \n \t
// \r \f \v \a, \xHH and \x{H...}, escaped punctuation, [[:alpha:]]
// classes, (?:...) and named groups, a leading (?i) (also (?s), (?m), (?U),
// which cannot change whether a one-line name matches), non-greedy
// quantifiers (the same match/no-match as greedy ones) and literal braces
// where Go reads them as literal. It rejects, with Go's wording, what Go
// rejects (nested repetition, a missing argument, repeat counts over 1000,
// unclosed brackets and groups, a trailing backslash) and, with its own
// wording, the few RE2 features it does not translate (\pN, \Q...\E,
// (?i:...) groups, octal escapes). Nested counted repetition that would
// make glibc's compiled form explode is refused too.
//
// Matching is by bytes in the C locale: `.` matches one byte where Go
// matches one UTF-8 character, which changes only anchored patterns
// around non-ASCII names.
//
// Example:
//   std::string error;
//   auto re = zerolab::internal::GoRegex::compile(R"(^Copy/size=\d+k$)", &error);
//   if (re && re->search("Copy/size=4k")) { ... }
#ifndef ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_
#define ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_

#include <regex.h>

#include <memory>
#include <string>
#include <string_view>

namespace zerolab::internal {

class GoRegex {
 public:
  // Compiles a Go regular expression; null and *error ("<what>: `<where>`",
  // as Go's regexp/syntax words it) when it is invalid or unsupported.
  static std::unique_ptr<GoRegex> compile(std::string_view expression, std::string* error);

  ~GoRegex();
  GoRegex(const GoRegex&) = delete;
  GoRegex& operator=(const GoRegex&) = delete;

  // Whether the expression matches anywhere in `text`.
  bool search(std::string_view text) const;

  // The POSIX ERE the expression became (for tests and messages).
  const std::string& posix() const { return posix_; }

 private:
  GoRegex() = default;
  regex_t re_{};
  bool compiled_ = false;  // regfree only what regcomp built
  std::string posix_;
};

// The translation alone: true and the ERE in *ere (and *icase for a
// leading (?i)), or false and *error.
bool translate_go_regex(std::string_view expression, std::string* ere, bool* icase,
                        std::string* error);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_GO_REGEX_HPP_
