// libFuzzer target for the lab's readers of its probes' and Go peer tests'
// output (lab/experiments/facts004.hpp, merge_profile.hpp): heap_dirty's
// four lines, dirty_stack's two, strace's mmap lines and
// TestProfileShowsMemclr's memclr-share line. The first input byte picks
// the reader, the rest is the text. Each must return false (with an error)
// or a complete reading, and deciding on a reading must not fail.
//
// Example:
//   ./lab_probe_output_fuzz -max_total_time=60 fuzz/corpus/lab_probe_output_fuzz
#include <cstddef>
#include <cstdint>
#include <string>

#include "lab/experiments/facts004.hpp"
#include "lab/experiments/merge_profile.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace f = zerolab::lab::facts004;
  if (size < 1 || size > 8192) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string error;
  switch (data[0] % 4) {
    case 0: {
      f::HeapDirty h;
      if (f::parse_heap_dirty(text, h, error)) {
        check(error.empty());
        check(h.small_first.bytes_16_63.size() == 48);
        f::large_block_is_zero(h.large_first.block, "large");
      } else {
        check(!error.empty());
      }
      break;
    }
    case 1: {
      f::DirtyStack d;
      if (f::parse_dirty_stack(text, d, error)) {
        check(error.empty());
        check(d.first.size() == 64 && d.after.size() == 64);
        const zerolab::lab::FactResult r = f::unwritten_stack_is_zero(d);
        check(!r.observed.empty());
      } else {
        check(!error.empty());
      }
      break;
    }
    case 2: {
      const zerolab::lab::FactResult r = f::anonymous_mmap_seen(text, std::uint64_t{10} << 20);
      check(!r.observed.empty());
      check(!r.holds || text.find("MAP_PRIVATE|MAP_ANONYMOUS") != std::string::npos);
      break;
    }
    default: {
      zerolab::lab::MemclrProfile p;
      if (zerolab::lab::parse_memclr_profile(text, p, error)) {
        check(p.zero_percent >= 0 && p.zero_percent <= 100);
        check(p.nozero_percent >= 0 && p.nozero_percent <= 100);
        check(!zerolab::lab::judge_memclr_profile(p).observed.empty());
      } else {
        check(!error.empty());
      }
      break;
    }
  }
  return 0;
}
