// Go's benchmark-name matching and naming rules (testing/match.go).
//
// Expressions are Go's regular expressions run by RE2 itself
// (format/go_regex.hpp), so they match in linear time. A -bench pattern is split at top-level '/'
// into one regular expression per name level ("BenchmarkX/size=1"), and at top-level '|' into
// alternatives. A name matches when every level it has matches its expression (a search, not
// anchored); it matches partially when the pattern has more levels than the name, so only its
// sub-benchmarks can match fully. Sub-benchmark names have spaces replaced by '_' and are made
// unique with "#01", "#02", ...
//
// Thread-safety: not thread-safe; the runner uses it from one thread.
//
// Example:
//   NameMatcher m;  m.set_pattern("Foo/small");
//   auto r = m.full_name("BenchmarkFoo", "small", 1);  // "BenchmarkFoo/small", ok
#ifndef ZEROLAB_SRC_BENCH_NAME_MATCHER_HPP_
#define ZEROLAB_SRC_BENCH_NAME_MATCHER_HPP_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/go_regex.hpp"

namespace zerolab::internal {

class NameMatcher {
 public:
  struct Match {
    std::string name;
    bool ok = false;
    bool partial = false;
  };

  static constexpr std::size_t kMaxPatternLength = 1000;

  // Checks that every level of `pattern` compiles; sets `error` if not.
  static bool validate(const std::string& pattern, std::string& error);

  // REQUIRES: validate(pattern) succeeded.
  void set_pattern(const std::string& pattern);

  // The full name of `subname` under `parent` (depth 0: top level, name
  // kept as is; deeper: rewritten and made unique) and whether it matches.
  Match full_name(const std::string& parent, std::string_view subname, int depth);

  // Whether a complete name (levels separated by '/') matches fully or
  // partially; used by -list.
  bool matches(const std::string& name) const;

 private:
  using Regex = std::unique_ptr<GoRegex>;
  using Levels = std::vector<Regex>;
  // Compiles one level; on failure returns null and sets `error`.
  static Regex compile(const std::string& expression, std::string& error);
  static std::vector<std::vector<std::string>> split(const std::string& pattern);
  bool matches(const std::vector<std::string>& levels, bool& partial) const;
  std::string unique(const std::string& parent, const std::string& subname);

  std::vector<Levels> alternatives_;
  std::map<std::string, int> sub_names_;
};

// Go's rewrite: spaces become '_', other unprintable bytes are escaped.
std::string rewrite_name(std::string_view s);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_NAME_MATCHER_HPP_
