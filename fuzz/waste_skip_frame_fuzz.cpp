// libFuzzer target for `zerolab waste --skip-frame REGEX` (src/waste/
// frame_filter.hpp): the input split at NUL bytes; every piece but the last
// is a pattern, the last a function name. The patterns must compile or fail
// with a one-line error that names --skip-frame; a filter is then asked
// about the name and about each pattern as a name; never crash.
//
// Example:
//   ./waste_skip_frame_fuzz -max_total_time=600 -dict=fuzz/waste_skip_frame.dict
//   fuzz/corpus/waste_skip_frame_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_args.hpp"
#include "waste/frame_filter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> pieces = zerolab_fuzz::split_at_nul(data, size);
  if (pieces.empty()) return 0;
  const std::string name = pieces.back();
  pieces.pop_back();
  zerolab::waste::FrameFilter filter;
  std::string error;
  if (!zerolab::waste::FrameFilter::parse(pieces, filter, error)) {
    if (error.rfind("--skip-frame", 0) != 0 || error.find('\n') != std::string::npos)
      __builtin_trap();
    return 0;
  }
  if (filter.patterns() != pieces) __builtin_trap();
  filter.skipped(name);
  for (const std::string& p : pieces) filter.skipped(p);
  // The built-in list never depends on the user's patterns.
  if (!filter.skipped("xmalloc")) __builtin_trap();
  return 0;
}
