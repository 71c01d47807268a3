// libFuzzer target: the Google Benchmark JSON reader
// (zerolab::stat::GbJsonReader) and everything downstream of it
// (fuzz_common.hpp).
//
// Example:
//   ./stat_gb_json_fuzz -dict=fuzz/stat_gb_json.dict fuzz/corpus/stat_gb_json_fuzz
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  zerolab::stat::StringSource source(input);
  zerolab::stat::UnitMetadataMap units;
  zerolab::stat::GbJsonReader reader(source, "fuzz.json", {{".file", "fuzz.json", false}});
  zerolab_fuzz::run_pipeline(reader, units);
  return 0;
}
