// Golden tests of the zerolab CLI's compare and table commands: each case
// directory holds the inputs, ARGS (the arguments: one per line, or on one
// line separated by spaces), expected.stdout, expected.stderr and
// optionally EXIT (the exit code; 0 when absent). For tests/data/benchstat
// and tests/data/stat the expected output is what benchstat v2 printed.
//
// Example:
//   ctest -R stat_golden   # or: ./stat_golden_test --gtest_filter='*ties*'
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string command;  // "compare" or "table"
  fs::path dir;
};

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.command << " " << c.dir.string();
}

using zerolab::test::read_file;

std::vector<std::string> read_args(const fs::path& p) {
  const std::string text = read_file(p);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.size() != 1) return lines;
  std::vector<std::string> words;
  std::istringstream w(lines[0]);
  for (std::string word; w >> word;) words.push_back(word);
  return words;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::vector<GoldenCase> list_cases() {
  std::vector<GoldenCase> cases;
  const fs::path root = ZEROLAB_STAT_TEST_DATA;
  for (const char* sub : {"benchstat", "stat", "compare", "table"}) {
    const fs::path dir = root / sub;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory() && fs::exists(e.path() / "ARGS")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs)
      cases.push_back({std::string(sub) == "table" ? "table" : "compare", d});
  }
  return cases;
}

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesExpectedOutput) {
  const GoldenCase& c = GetParam();
  std::string base = "zerolab_golden_";
  base.append(std::to_string(::getpid()));
  base.push_back('_');
  base.append(c.dir.filename().string());
  const std::string tmp = (fs::temp_directory_path() / base).string();
  const std::string out = tmp + ".out";
  const std::string err = tmp + ".err";
  std::string cmd = "cd ";
  cmd.append(shell_quote(c.dir.string()));
  cmd.append(" && ");
  cmd.append(shell_quote(ZEROLAB_CLI));
  cmd.push_back(' ');
  cmd.append(c.command);
  for (const std::string& a : read_args(c.dir / "ARGS")) {
    cmd.push_back(' ');
    cmd.append(shell_quote(a));
  }
  const fs::path stdin_file = c.dir / "STDIN";
  cmd.append(" < ");
  cmd.append(fs::exists(stdin_file) ? shell_quote(stdin_file.string()) : std::string("/dev/null"));
  cmd.append(" > ");
  cmd.append(shell_quote(out));
  cmd.append(" 2> ");
  cmd.append(shell_quote(err));
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << cmd;
  int want_exit = 0;
  if (fs::exists(c.dir / "EXIT")) want_exit = std::stoi(read_file(c.dir / "EXIT"));
  EXPECT_EQ(WEXITSTATUS(status), want_exit) << cmd;
  EXPECT_EQ(read_file(out), read_file(c.dir / "expected.stdout")) << cmd;
  EXPECT_EQ(read_file(err), read_file(c.dir / "expected.stderr")) << cmd;
  fs::remove(out);
  fs::remove(err);
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& param_info) {
  std::string name = param_info.param.dir.parent_path().filename().string();
  name.push_back('_');
  name.append(param_info.param.dir.filename().string());
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenTest, ::testing::ValuesIn(list_cases()), case_name);

}  // namespace
