// tests/test_util.hpp — what subprocess tests share: a file read whole, a
// fresh temporary directory, and a command run through the shell with its
// exit code, stdout and stderr (the command line may redirect or close
// streams itself: ">/dev/full", ">&-"); and how often a needle occurs in a
// text (overlapping occurrences count: "aaa" holds "aa" twice).
//
// Example:
//   const std::string dir = zerolab::test::temp_dir("zerolab_output_test");
//   const zerolab::test::CommandResult r = zerolab::test::run(std::string(ZEROLAB_CLI) + "
//   version", dir); EXPECT_EQ(r.code, 0);
#ifndef ZEROLAB_TESTS_TEST_UTIL_HPP_
#define ZEROLAB_TESTS_TEST_UTIL_HPP_

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zerolab::test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A new directory /tmp/<prefix>.XXXXXX.
inline std::string temp_dir(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

inline int count_occurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

struct CommandResult {
  int code = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
  // The first line of stderr, without its newline.
  std::string first_err_line() const { return err.substr(0, err.find('\n')); }
};

// Runs `command` through sh, its stdout and stderr captured in
// dir/run.out and dir/run.err unless the command redirects them itself
// (redirections in `command` come after these, so they win).
inline CommandResult run(const std::string& command, const std::string& dir) {
  const std::string out = dir + "/run.out";
  const std::string err = dir + "/run.err";
  const std::string line = "exec >" + out + " 2>" + err + "; " + command;
  const int status = std::system(line.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_TEST_UTIL_HPP_
