// libFuzzer target for seed 001's OID parsers (lab/experiments/oid.hpp):
// the input is one OID string. Both parsers must agree exactly (value and
// message); a failure carries a message and value 0; a success is in
// [0, kMax] and every formatter's string for it parses back to it.
//
// Example:
//   ./oid_parse_fuzz -max_total_time=60 fuzz/corpus/oid_parse_fuzz
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "lab/experiments/oid.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_round_trip(const std::string& formatted, std::int64_t value) {
  namespace oid = zerolab::lab::oid;
  const oid::Parsed a = oid::parse_naive(formatted);
  const oid::Parsed b = oid::parse_no_alloc(formatted);
  check(a.error == nullptr && a.value == value);
  check(b.error == nullptr && b.value == value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace oid = zerolab::lab::oid;
  if (size > 256) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const oid::Parsed a = oid::parse_naive(input);
  const oid::Parsed b = oid::parse_no_alloc(input);
  check((a.error == nullptr) == (b.error == nullptr));
  check(a.value == b.value);
  if (a.error != nullptr) {
    check(a.value == 0);
    check(a.error[0] != '\0' && b.error[0] != '\0');  // a failure says why
    check(std::strcmp(a.error, b.error) == 0);
    return 0;
  }
  check(a.value >= 0 && a.value <= oid::kMax);
  const std::string canonical = oid::format_table(a.value);
  check(canonical.size() <= oid::kMaxLen);
  check_round_trip(canonical, a.value);
  check(oid::format_foolish(a.value) == canonical);
  check(oid::format_naive(a.value) == canonical);
  check(oid::format_builder(a.value) == canonical);
  check(oid::format_append_int(a.value) == canonical);
  zerolab::Interner<std::int64_t> cache(8);
  check(oid::format_memoized(cache, a.value) == canonical);
  return 0;
}
