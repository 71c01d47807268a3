// GoRegex (src/format/go_regex.hpp) against Go's own regexp package: every
// pattern in tests/data/go_regex/patterns.txt either fails in both with
// Go's message, or matches exactly the same subjects (expected.txt, which
// tests/data/go_regex/generate.go wrote with Go 1.19). Among them every
// pattern the former POSIX translation refused (\pL, \Q...\E, (?i:...),
// flags after the start, negated classes in brackets, non-ASCII ranges,
// the UUID shape and long chains of `+`).
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/go_regex.hpp"

namespace {

using zerolab::internal::GoRegex;

// The subjects, in the order of the 0/1 columns (as Go printed them).
const std::vector<std::string> kSubjects = {"",
                                            "abc",
                                            "ABC",
                                            "aaa",
                                            "ab",
                                            "a{2}",
                                            "a{",
                                            "x]y",
                                            "x-y",
                                            "a^b",
                                            "a$b",
                                            "[",
                                            "\\",
                                            "{}",
                                            "tab\there",
                                            "Copy/size=4k",
                                            "size=64k",
                                            "Zero_nt-4",
                                            "BenchmarkFoo",
                                            "foo bar",
                                            "a.b",
                                            "a+b",
                                            "12345",
                                            "_x_",
                                            "\xc3\xa9",
                                            "A\xc3\xa9",
                                            "(x)",
                                            "a|b",
                                            "?*",
                                            std::string("a\0b", 3),
                                            "a\nb",
                                            "\xce\xb1\xce\xb2",
                                            "C",
                                            "a\\Cb",
                                            "\\Q.\\E"};

// Go's %q quoting undone (the escapes %q produces for these patterns).
// The error GoRegex::compile gives for pattern, or "(compiled)" when it
// compiles.
std::string compile_error(const std::string& pattern) {
  std::string error;
  return GoRegex::compile(pattern, &error) == nullptr ? error : "(compiled)";
}

std::string unquote(const std::string& q) {
  std::string out;
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    if (q[i] != '\\') {
      out += q[i];
      continue;
    }
    const char c = q[++i];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'x':
        out += static_cast<char>(std::stoi(q.substr(i + 1, 2), nullptr, 16));
        i += 2;
        break;
      default:
        out += c;
        break;
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

TEST(GoRegex, AgreesWithGo) {
  const std::vector<Case> cases = load();
  ASSERT_GE(cases.size(), 160u);
  for (const Case& c : cases) {
    SCOPED_TRACE("pattern `" + c.pattern + "`");
    std::string error;
    const auto re = GoRegex::compile(c.pattern, &error);
    if (!c.ok) {
      ASSERT_EQ(re, nullptr) << "Go refuses it: " << c.detail;
      EXPECT_EQ(error, c.detail);
      continue;
    }
    ASSERT_NE(re, nullptr) << error;
    std::string got;
    for (const std::string& s : kSubjects) got += re->search(s) ? '1' : '0';
    EXPECT_EQ(got, c.detail);
  }
}

// Go 1.19's messages for what RE2 does not check as Go does, and for
// patterns too long for patterns.txt.
TEST(GoRegex, ErrorsGoChecksAndRe2DoesNot) {
  std::string error;
  // 1000 nested groups: Go's parse tree is 1001 high.
  const std::string deep = std::string(1000, '(') + "a" + std::string(1000, ')');
  EXPECT_EQ(compile_error(deep), "expression nests too deeply: `" + deep + "`");
  const std::string ok_deep = std::string(999, '(') + "a" + std::string(999, ')');
  EXPECT_NE(GoRegex::compile(ok_deep, &error), nullptr) << error;
  // Non-capturing groups make no node: Go accepts any number.
  std::string non_capturing;
  for (int i = 0; i < 5000; ++i) non_capturing += "(?:";
  non_capturing += "a" + std::string(5000, ')');
  const auto nc = GoRegex::compile(non_capturing, &error);
  ASSERT_NE(nc, nullptr) << error;
  EXPECT_TRUE(nc->search("xay"));
  // The first bad escape is named, `\C` or `\8` alike.
  EXPECT_EQ(compile_error("a\\8\\C"), "invalid escape sequence: `\\8`");
  EXPECT_EQ(compile_error("a\\C\\8"), "invalid escape sequence: `\\C`");
  // An escaped backslash before C is no escape of C.
  const auto literal = GoRegex::compile("\\\\C+", &error);
  ASSERT_NE(literal, nullptr) << error;
  EXPECT_TRUE(literal->search("a\\CC"));
  // Invalid UTF-8: Go names the rest of the expression from the bad byte.
  EXPECT_EQ(compile_error("ab\xe9"
                          "cd"),
            "invalid UTF-8: `\xe9"
            "cd`");
}

// Go compiles \pL as one instruction, RE2 as 1,197 (UTF-8 byte ranges):
// a class repeated 1000 times is over RE2's default budget and compiles
// with GoRegex::kLargeProgramBudget, as Go 1.19 accepts it
// (tests/data/go_regex has Go's matches on the short subjects).
TEST(GoRegex, LargeUnicodeRepeatsCompileAsInGo) {
  std::string error;
  const auto letters = GoRegex::compile("^\\pL{1000}$", &error);
  ASSERT_NE(letters, nullptr) << error;
  std::string word;
  for (int i = 0; i < 999; ++i) word += "\u00e9";
  EXPECT_FALSE(letters->search(word));
  EXPECT_TRUE(letters->search(word + "\u03b1"));
  EXPECT_FALSE(letters->search(word + "1"));
  // The documented departure (go_regex.hpp): two such terms, which Go
  // 1.19 accepts, are over the larger budget too.
  EXPECT_EQ(compile_error("\\pL{1000}\\p{Ll}{1000}"),
            "expression too large: `\\pL{1000}\\p{Ll}{1000}`");
}

// Go accepts these; the POSIX translation refused them as too large
// and so refused ordinary -bench and -filter patterns.
TEST(GoRegex, LongRepetitionChainsAreOrdinary) {
  std::string error;
  const auto uuid =
      GoRegex::compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", &error);
  ASSERT_NE(uuid, nullptr) << error;
  EXPECT_TRUE(uuid->search("Get/id=123e4567-e89b-12d3-a456-426614174000"));
  EXPECT_FALSE(uuid->search("Get/id=123e4567-e89b-12d3-a456-42661417400"));
  std::string chain;
  for (char c = 'a'; c <= 'z'; ++c) chain += std::string(1, c) + "+";
  const auto letters = GoRegex::compile(chain, &error);
  ASSERT_NE(letters, nullptr) << error;
  EXPECT_TRUE(letters->search("abcdefghijklmnopqrstuvwxyz"));
  // Really exponential nesting is still refused, with Go's message.
  EXPECT_EQ(compile_error("((a{100}){100}){100}"), "invalid repeat count: `{100}`");
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

}  // namespace
