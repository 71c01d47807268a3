// Byte sizes as zerolab reads and writes them, one grammar everywhere
// (flags such as -memprofilerate and --bytes, the ZEROLAB_ZERO_*
// environment variables, benchmark and report names):
//
//   size   = digits [ unit ]
//   unit   = ( "K" | "M" | "G" ) [ "iB" | "B" ]  |  "B"     (K, M, G in either case)
//
// K, M and G are binary (1024, 1024², 1024³) with or without "iB" or "B":
// "4096", "64K", "32M", "1g", "512KiB", "1GiB" and "16KB" all parse, and
// "100B" is 100. format_byte_size writes the exact form that reads back the
// same: the largest of GiB, MiB, KiB that divides the size, else "<n>B".
//
// Header-only (mem, which depends on nothing, uses it too).
// Thread-safety: pure functions.
//
// Example:
//   std::uint64_t n = 0;
//   zerolab::internal::parse_byte_size("512KiB", n);   // true, n == 524288
//   zerolab::internal::parse_byte_size("32M", n);      // true, n == 33554432
//   zerolab::internal::format_byte_size(33554432);     // "32MiB"
#ifndef ZEROLAB_SRC_FORMAT_BYTE_SIZE_HPP_
#define ZEROLAB_SRC_FORMAT_BYTE_SIZE_HPP_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace zerolab::internal {

// False on an empty string, anything outside the grammar, or a size that
// overflows 64 bits; out is set only on success.
inline bool parse_byte_size(std::string_view text, std::uint64_t& out) {
  std::size_t digits = 0;
  std::uint64_t v = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    const auto d = static_cast<std::uint64_t>(text[digits] - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
    ++digits;
  }
  if (digits == 0) return false;
  std::string_view unit = text.substr(digits);
  unsigned shift = 0;
  if (!unit.empty() && unit != "B") {
    const char c = unit[0];
    if (c == 'K' || c == 'k') {
      shift = 10;
    } else if (c == 'M' || c == 'm') {
      shift = 20;
    } else if (c == 'G' || c == 'g') {
      shift = 30;
    } else {
      return false;
    }
    unit.remove_prefix(1);
    if (!unit.empty() && unit != "iB" && unit != "B") return false;
  }
  if (shift > 0 && v > (std::numeric_limits<std::uint64_t>::max() >> shift)) return false;
  out = v << shift;
  return true;
}

inline std::string format_byte_size(std::uint64_t bytes) {
  if (bytes != 0) {
    for (const auto& [shift, unit] :
         {std::pair<unsigned, const char*>{30, "GiB"}, {20, "MiB"}, {10, "KiB"}}) {
      if (bytes % (std::uint64_t{1} << shift) == 0) return std::to_string(bytes >> shift) + unit;
    }
  }
  return std::to_string(bytes) + "B";
}

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_BYTE_SIZE_HPP_
