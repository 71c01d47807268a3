// GoRegex (src/format/go_regex.hpp) against Go's own regexp package: every
// pattern in tests/data/go_regex/expected.txt either fails in both with
// Go's message, or matches exactly the same subjects. The few documented
// departures (a translation zerolab refuses, `.` matching a byte rather
// than a UTF-8 character) are listed here by pattern.
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/go_regex.hpp"

namespace {

using zerolab::internal::GoRegex;

// The subjects, in the order of the 0/1 columns (as Go printed them).
const std::vector<std::string> kSubjects = {
    "", "abc", "ABC", "aaa", "ab", "a{2}", "a{", "x]y", "x-y", "a^b", "a$b", "[", "\\", "{}",
    "tab\there", "Copy/size=4k", "size=64k", "Zero_nt-4", "BenchmarkFoo", "foo bar", "a.b", "a+b",
    "12345", "_x_", "\xc3\xa9", "A\xc3\xa9", "(x)", "a|b", "?*"};

// Go's %q quoting undone (the escapes %q produces for these patterns).
std::string unquote(const std::string& q) {
  std::string out;
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    if (q[i] != '\\') {
      out += q[i];
      continue;
    }
    const char c = q[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'x': out += static_cast<char>(std::stoi(q.substr(i + 1, 2), nullptr, 16)); i += 2; break;
      default: out += c; break;
    }
  }
  return out;
}

struct Case {
  std::string pattern;
  bool ok = false;
  std::string detail;  // the 0/1 columns or Go's message
};

std::vector<Case> load() {
  std::ifstream in(std::string(ZEROLAB_STAT_TEST_DATA) + "/go_regex/expected.txt");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t');
    const auto t2 = line.find('\t', t1 + 1);
    Case c;
    c.pattern = unquote(line.substr(0, t1));
    c.ok = line.substr(t1 + 1, t2 - t1 - 1) == "ok";
    c.detail = line.substr(t2 + 1);
    cases.push_back(c);
  }
  return cases;
}

// Valid in Go, refused by the translation (said in go_regex.hpp).
const std::set<std::string> kRefused = {"\\pL", "\\Q.\\E", "(?i:abc)"};
// Refused by Go 1.19, accepted from Go 1.22 on (and here).
const std::set<std::string> kNewerGo = {"(?<n>ab)"};
// `.` takes one byte of "é" where Go takes the whole character.
const std::set<std::string> kByteDot = {"^.$", "A.$"};

TEST(GoRegex, AgreesWithGo) {
  const std::vector<Case> cases = load();
  ASSERT_GE(cases.size(), 100u);
  for (const Case& c : cases) {
    SCOPED_TRACE("pattern `" + c.pattern + "`");
    std::string error;
    const auto re = GoRegex::compile(c.pattern, &error);
    if (kRefused.count(c.pattern) != 0) {
      EXPECT_EQ(re, nullptr);
      EXPECT_NE(error.find("zerolab"), std::string::npos) << error;
      continue;
    }
    if (kNewerGo.count(c.pattern) != 0) {
      EXPECT_NE(re, nullptr) << error;
      continue;
    }
    if (!c.ok) {
      ASSERT_EQ(re, nullptr) << "Go refuses it: " << c.detail;
      EXPECT_EQ(error, c.detail);
      continue;
    }
    ASSERT_NE(re, nullptr) << error;
    std::string got;
    for (const std::string& s : kSubjects) got += re->search(s) ? '1' : '0';
    if (kByteDot.count(c.pattern) != 0) {
      // Only the non-ASCII subjects may differ.
      for (std::size_t i = 0; i < kSubjects.size(); ++i) {
        if (kSubjects[i].find('\xc3') == std::string::npos) {
          EXPECT_EQ(got[i], c.detail[i]) << kSubjects[i];
        }
      }
      continue;
    }
    EXPECT_EQ(got, c.detail) << "as POSIX: " << re->posix();
  }
}

TEST(GoRegex, ErrorsNameWhatAndWhere) {
  std::string error;
  EXPECT_EQ(GoRegex::compile("[ab", &error), nullptr);
  EXPECT_EQ(error, "missing closing ]: `[ab`");
  EXPECT_EQ(GoRegex::compile("a**", &error), nullptr);
  EXPECT_EQ(error, "invalid nested repetition operator: `**`");
  EXPECT_EQ(GoRegex::compile("(ab", &error), nullptr);
  EXPECT_EQ(error, "missing closing ): `(ab`");
  EXPECT_EQ(GoRegex::compile("a\\", &error), nullptr);
  EXPECT_EQ(error, "trailing backslash at end of expression: ``");
  // Go accepts 15 nested '+'; glibc would compile 2^15 copies of `a`.
  const std::string nested = "(((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+";
  EXPECT_EQ(GoRegex::compile(nested, &error), nullptr);
  EXPECT_EQ(error, "expression too large (zerolab: nested repetition): `" + nested + "`");
  EXPECT_EQ(GoRegex::compile(std::string("a\0b", 3), &error), nullptr);
}

// The patterns that made libstdc++'s backtracking engine take exponential
// time or overflow the stack finish at once here.
TEST(GoRegex, NoCatastrophicBacktracking) {
  std::string error;
  const auto re = GoRegex::compile("(a*)*b", &error);
  ASSERT_NE(re, nullptr) << error;
  EXPECT_FALSE(re->search(std::string(5000, 'a')));
  const auto stars = GoRegex::compile("i?()z*", &error);
  ASSERT_NE(stars, nullptr) << error;
  EXPECT_TRUE(stars->search(std::string(100000, 'z')));
}

TEST(GoRegex, TranslationsOfGoEscapes) {
  std::string ere;
  bool icase = false;
  std::string error;
  ASSERT_TRUE(zerolab::internal::translate_go_regex("(?i)\\d+\\.x{2}", &ere, &icase, &error));
  EXPECT_EQ(ere, "[0-9]+\\.x{2}");
  EXPECT_TRUE(icase);
  ASSERT_TRUE(zerolab::internal::translate_go_regex("[\\]\\-a]{", &ere, &icase, &error));
  EXPECT_EQ(ere, "[]a-]\\{");
  EXPECT_FALSE(icase);
}

}  // namespace
