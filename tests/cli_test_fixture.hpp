// tests/cli_test_fixture.hpp — the base of the tests that run the real
// `zerolab` CLI and a real benchmark binary (tests/cli.cmake defines
// ZEROLAB_CLI, ZEROLAB_BENCH_FIXTURE and ZEROLAB_TEST_DATA for them): a fresh
// temporary directory holding old.txt and new.txt, the inputs of
// tests/data/compare/fail-on-regression, and both programs run in it.
//
// Example:
//   class Tables : public zerolab::test::CliTest {};
//   TEST_F(Tables, ReadsOld) { EXPECT_EQ(cli("table " + old_).code, 0); }
#ifndef ZEROLAB_TESTS_CLI_TEST_FIXTURE_HPP_
#define ZEROLAB_TESTS_CLI_TEST_FIXTURE_HPP_

#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace zerolab::test {

inline const std::string kCli = ZEROLAB_CLI;
inline const std::string kBenchFixture = ZEROLAB_BENCH_FIXTURE;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string data = std::string(ZEROLAB_TEST_DATA) + "/compare/fail-on-regression";
    dir_ = temp_dir("zerolab_cli_test");
    old_ = dir_ + "/old.txt";
    new_ = dir_ + "/new.txt";
    write_file(old_, read_file(data + "/old.txt"));
    write_file(new_, read_file(data + "/new.txt"));
  }
  // `zerolab ARGS` and `bench_fixture ARGS`, run in dir_.
  CommandResult cli(const std::string& args) const { return run(kCli + " " + args, dir_); }
  CommandResult bench(const std::string& args) const {
    return run(kBenchFixture + " " + args, dir_);
  }

  std::string dir_, old_, new_;
};

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_CLI_TEST_FIXTURE_HPP_
