// libFuzzer target for the machine profile reader
// (src/machine/machine_profile.hpp): the input is a profile file's text.
// A text the parser accepts must format back to a text that parses to the
// same profile (nothing is read that could not be written), its bands must
// be ascending and at most 16, and a refused text must come with a reason.
//
// Example:
//   ./machine_profile_fuzz -max_total_time=60 fuzz/corpus/machine_profile_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "machine/machine_profile.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto profile = zerolab::machine::parse_profile(text, error);
  if (!profile) {
    check(!error.empty());
    return 0;
  }
  check(error.empty());
  check(profile->zero_bands.size() <= zerolab::machine::kMaxZeroBands);
  for (std::size_t i = 1; i < profile->zero_bands.size(); ++i) {
    check(profile->zero_bands[i - 1].from < profile->zero_bands[i].from);
  }
  const std::string again = zerolab::machine::format_profile(*profile);
  std::string error2;
  const auto reparsed = zerolab::machine::parse_profile(again, error2);
  check(reparsed.has_value() && *reparsed == *profile);
  return 0;
}
