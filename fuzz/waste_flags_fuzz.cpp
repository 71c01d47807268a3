// libFuzzer target for `zerolab waste`'s flag parser and its --fail-on and
// byte-count parsers: argv is the input split at NUL bytes; every argument
// is also read as a KIND=BYTES threshold and as a byte count. Any input must
// parse or fail with a one-line error; parsed rates are >= 1, a parsed
// program is never empty, and a threshold's kind prints back to the text
// it came from; never crash.
//
// Example:
//   ./waste_flags_fuzz -max_total_time=600 -dict=fuzz/waste_flags.dict fuzz/corpus/waste_flags_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_args.hpp"
#include "text/byte_size.hpp"
#include "waste/flags.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args = zerolab_fuzz::split_at_nul(data, size);
  std::vector<char*> argv = zerolab_fuzz::argv_of(args);
  zerolab::waste::WasteFlags flags;
  std::string error;
  if (zerolab::waste::parse_waste_flags(argv, flags, error)) {
    if (flags.check_rate < 1 || flags.sample_rate < 1) __builtin_trap();
    if (flags.program.empty() && !flags.help) __builtin_trap();
  } else if (error.empty() || error.find('\n') != std::string::npos) {
    __builtin_trap();
  }
  for (const std::string& a : args) {
    zerolab::waste::FailOn f;
    std::string why;
    if (zerolab::waste::parse_fail_on(a, f, why)) {
      const std::string kind = f.kind ? std::string(zerolab::waste::kind_name(*f.kind)) : "any";
      if (a.compare(0, kind.size() + 1, kind + "=") != 0) __builtin_trap();
    } else if (why.empty() || why.find('\n') != std::string::npos) {
      __builtin_trap();
    }
    std::uint64_t bytes = 0;
    const bool digits_only = !a.empty() && a.find_first_not_of("0123456789") == std::string::npos;
    if (zerolab::internal::parse_byte_size(a, bytes) && digits_only &&
        !zerolab_fuzz::same_digits(a, bytes)) {
      __builtin_trap();
    }
  }
  return 0;
}
