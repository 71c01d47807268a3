// libFuzzer target for the sysfs cache size parser (src/mem/cpu_features.hpp):
// the input is one size file's text. A size is accepted only as decimal
// digits with an optional K, M or G and one optional trailing newline, and
// then equals what a checked re-computation gives; anything else is 0.
//
// Example:
//   ./cache_size_fuzz -max_total_time=60 fuzz/corpus/cache_size_fuzz
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mem/cpu_features.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t got = zerolab::internal::parse_cache_size(text);
  std::string_view body = text;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  unsigned shift = 0;
  if (!body.empty() && (body.back() == 'K' || body.back() == 'M' || body.back() == 'G')) {
    shift = body.back() == 'K' ? 10 : body.back() == 'M' ? 20 : 30;
    body.remove_suffix(1);
  }
  bool digits = !body.empty();
  unsigned __int128 value = 0;
  for (const char ch : body) {
    if (ch < '0' || ch > '9') {
      digits = false;
      break;
    }
    value = value * 10 + static_cast<unsigned>(ch - '0');
    if (value > ~std::uint64_t{0}) break;  // too big for any suffix
  }
  if (digits) value <<= shift;
  const bool fits = digits && value <= ~std::uint64_t{0};
  check(got == (fits ? static_cast<std::size_t>(value) : 0));
  return 0;
}
