// Shared by the counting-mode tests: why a run under callgrind cannot
// happen in this build or on this machine.
//
// Example:
//   const std::string why = zerolab::test::why_no_callgrind();
//   if (!why.empty()) GTEST_SKIP() << why;
#ifndef ZEROLAB_TESTS_COUNTING_TEST_UTIL_HPP_
#define ZEROLAB_TESTS_COUNTING_TEST_UTIL_HPP_

#include <cstdlib>
#include <string>

#include "bench/counting.hpp"

namespace zerolab::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// "" when valgrind can run this build's binaries, else the reason.
inline std::string why_no_callgrind() {
  if (kSanitizedBuild) return "valgrind cannot run sanitizer builds";
  if (!zerolab::internal::counting::built_with_callgrind())
    return "built without valgrind/callgrind.h";
  if (std::system("command -v valgrind >/dev/null 2>&1") != 0) return "valgrind is not installed";
  return "";
}

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_COUNTING_TEST_UTIL_HPP_
