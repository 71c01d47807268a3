// libFuzzer target for the harness's flag parser: argv is the input split at
// NUL bytes. Any input must parse or fail with an error message; never crash.
//
// Example:
//   ./bench_flags_fuzz -max_total_time=600 fuzz/corpus/bench_flags
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/name_matcher.hpp"
#include "bench/options.hpp"
#include "fuzz_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args{"fuzz"};
  for (auto& a : zerolab_fuzz::split_at_nul(data, size)) args.push_back(std::move(a));
  std::vector<char*> argv = zerolab_fuzz::argv_of(args);
  zerolab::internal::Options options;
  std::string error;
  if (zerolab::internal::parse_options(static_cast<int>(argv.size()), argv.data(), options,
                                       error)) {
    zerolab::internal::NameMatcher matcher;
    matcher.set_pattern(options.bench);
    (void)matcher.full_name("", "BenchmarkFuzz", 0);
    (void)matcher.full_name("BenchmarkFuzz", "sub name", 1);
  } else if (error.empty()) {
    __builtin_trap();  // a failure must say why
  }
  return 0;
}
