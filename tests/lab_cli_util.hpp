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

#include "test_util.hpp"

namespace lab_test_util {

using zerolab::test::read_file;
using zerolab::test::temp_dir;

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

using Command = zerolab::test::CommandResult;

// Runs `cli args` through the shell with `env` assignments before it
// ("ZEROLAB_BASELINE_DIR=/x"), its output captured in files of dir.
inline Command run_cli(const std::string& cli, const std::string& args, const std::string& dir,
                       const std::string& env = "") {
  return zerolab::test::run(env + " " + cli + " " + args, dir);
}

}  // namespace lab_test_util

#endif  // ZEROLAB_TESTS_LAB_CLI_UTIL_HPP_
