// libFuzzer target: the Go benchmark format reader (zerolab::stat::GoReader)
// and everything downstream of it (fuzz_common.hpp).
//
// Example:
//   ./stat_go_reader_fuzz -dict=fuzz/stat_go_reader.dict fuzz/corpus/stat_go_reader_fuzz
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  zerolab::stat::StringSource source(input);
  zerolab::stat::UnitMetadataMap units;
  zerolab::stat::GoReader reader(source, "fuzz.txt", {{".file", "fuzz.txt", false}}, &units);
  zerolab_fuzz::run_pipeline(reader, units);
  return 0;
}
