// tests/lab_cli_util.hpp — what the lab's tests share for files and for
// running the zerolab CLI: reading a file whole, a fresh temporary
// directory, and a CLI run with its exit code, stdout and stderr.
//
// Example:
//   const std::string dir = lab_test_util::temp_dir("zerolab_lab_test");
//   const lab_test_util::Command c = lab_test_util::run_cli(ZEROLAB_CLI, "lab --list", dir);
//   EXPECT_EQ(c.code, 0);
#ifndef ZEROLAB_TESTS_LAB_CLI_UTIL_HPP_
#define ZEROLAB_TESTS_LAB_CLI_UTIL_HPP_

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace lab_test_util {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// A new directory /tmp/<prefix>.XXXXXX.
inline std::string temp_dir(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

struct Command {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `cli args` through the shell with `env` assignments before it
// ("ZEROLAB_BASELINE_DIR=/x"), its output captured in dir/cli.out and
// dir/cli.err.
inline Command run_cli(const std::string& cli, const std::string& args, const std::string& dir,
                       const std::string& env = "") {
  const std::string out = dir + "/cli.out";
  const std::string err = dir + "/cli.err";
  const std::string line = env + " " + cli + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(line.c_str());
  Command c;
  c.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  c.out = read_file(out);
  c.err = read_file(err);
  return c;
}

}  // namespace lab_test_util

#endif  // ZEROLAB_TESTS_LAB_CLI_UTIL_HPP_
