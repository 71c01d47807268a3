// libFuzzer target for the counting run's reader of callgrind dump headers
// (src/bench/callgrind_dump.hpp): any input parses or fails with a message;
// never crashes.
//
// Example:
//   ./callgrind_dump_fuzz fuzz/corpus/callgrind_dump_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/callgrind_dump.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  zerolab::internal::CallgrindDump dump;
  std::string error;
  if (zerolab::internal::parse_callgrind_dump(text, dump, error)) {
    if (dump.events.empty()) __builtin_trap();  // a parsed dump has its events
    (void)dump.event("Ir");
  } else if (error.empty()) {
    __builtin_trap();  // a failure must say why
  }
  return 0;
}
