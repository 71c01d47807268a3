// libFuzzer target for `zerolab lab`'s flag parser and the ZEROLAB_ZERO_*
// size parser: argv is the input split at NUL bytes; every argument is also
// read as a size. Any input must parse or fail with an error message, and a
// parsed plain number must print back to the same digits; a parsed baseline
// name must be valid and --fail-on-regression must come with --baseline;
// never crash.
//
// Example:
//   ./lab_flags_fuzz -max_total_time=600 -dict=fuzz/lab_flags.dict fuzz/corpus/lab_flags_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_args.hpp"
#include "lab/framework/baseline_name.hpp"
#include "lab_flags.hpp"
#include "text/byte_size.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args = zerolab_fuzz::split_at_nul(data, size);
  std::vector<char*> argv = zerolab_fuzz::argv_of(args);
  zerolab::cli::LabFlags flags;
  std::string error;
  if (zerolab::cli::parse_lab_flags(argv, flags, error)) {
    // --help anywhere: usage is printed and nothing runs, so the other
    // flags' cross-checks (e.g. --fail-on-regression needs --baseline) are
    // not made; the values each flag parsed are still checked.
    if (flags.count < 1 || flags.count > 100000) __builtin_trap();
    if (flags.cpuprofile_rate < 1 || flags.cpuprofile_rate > 10000) __builtin_trap();
    if (flags.memprofile_rate < 1) __builtin_trap();
    // Baseline names are one safe path component (--baseline may also be a
    // run id, --save may not); the gate needs a baseline.
    std::string why;
    if (!flags.help && !flags.save_name.empty() &&
        !zerolab::lab::check_baseline_name(flags.save_name, why)) {
      __builtin_trap();
    }
    if (!flags.help && !flags.baseline_name.empty() &&
        !zerolab::lab::check_baseline_reference(flags.baseline_name, why)) {
      __builtin_trap();
    }
    if (!flags.help && flags.fail_on_regression && flags.baseline_name.empty()) __builtin_trap();
    if (!(flags.fail_percent >= 0)) __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap();  // a failure must say why
  }
  for (const auto& a : args) {
    // A parsed plain number must come back the same (leading zeros aside).
    std::uint64_t n = 0;
    const bool digits_only = !a.empty() && a.find_first_not_of("0123456789") == std::string::npos;
    const bool parsed = zerolab::internal::parse_byte_size(a, n);
    if (parsed && digits_only && !zerolab_fuzz::same_digits(a, n)) __builtin_trap();
    // What the one formatter writes reads back as the same size.
    std::uint64_t back = 0;
    if (parsed &&
        (!zerolab::internal::parse_byte_size(zerolab::internal::format_byte_size(n), back) ||
         back != n)) {
      __builtin_trap();
    }
  }
  return 0;
}
