// copy_fd's environment settings with values it does not know:
// copy_environment_errors() names each variable and value (read at the
// call), and the zerolab CLI warns with them once on stderr, then runs the
// command as usual.
//
// Example: build/release/tests/copy_env_test
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

// Sets (or with nullptr unsets) `name` for the test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(CopyEnvironment, KnownValuesAreNoErrors) {
  for (const char* profile : {static_cast<const char*>(nullptr), "0", "1"}) {
    for (const char* small : {static_cast<const char*>(nullptr), "copy_file_range", "read_write"}) {
      const ScopedEnv a("ZEROLAB_COPY_PROFILE", profile);
      const ScopedEnv b("ZEROLAB_COPY_SMALL_FILE", small);
      EXPECT_EQ(copy_environment_errors(), "");
    }
  }
}

TEST(CopyEnvironment, UnknownValuesAreNamed) {
  {
    const ScopedEnv a("ZEROLAB_COPY_PROFILE", "no");
    const ScopedEnv b("ZEROLAB_COPY_SMALL_FILE", nullptr);
    EXPECT_EQ(copy_environment_errors(), "ZEROLAB_COPY_PROFILE=no: not 0 or 1");
  }
  {
    const ScopedEnv a("ZEROLAB_COPY_PROFILE", "");
    const ScopedEnv b("ZEROLAB_COPY_SMALL_FILE", "readwrite");
    EXPECT_EQ(copy_environment_errors(),
              "ZEROLAB_COPY_PROFILE=: not 0 or 1; "
              "ZEROLAB_COPY_SMALL_FILE=readwrite: not copy_file_range or read_write");
  }
}

// The CLI: one warning line naming both, then the command's own output.
TEST(CopyEnvironment, TheCliWarnsOnce) {
  const std::string line = std::string(
                               "env -u ZEROLAB_ZERO_ISA -u ZEROLAB_ZERO_STOSB -u ZEROLAB_ZERO_NT "
                               "-u ZEROLAB_ZERO_PROFILE ZEROLAB_COPY_PROFILE=false "
                               "ZEROLAB_COPY_SMALL_FILE=fast ") +
                           ZEROLAB_CLI + " version 2>&1 >/dev/null";
  FILE* p = popen(line.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string err;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) err.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(err,
            "zerolab: warning: ignored ZEROLAB_COPY_PROFILE=false: not 0 or 1; "
            "ZEROLAB_COPY_SMALL_FILE=fast: not copy_file_range or read_write\n");
}

}  // namespace
}  // namespace zerolab
