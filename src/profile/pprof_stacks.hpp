// Recorded stacks into a pprof profile: the one path from addresses to
// PprofBuilder samples (pprof_writer.hpp) that the harness's CPU and memory
// profiles and `zerolab waste --profile` share.
//
// Every location carries the frames the Symbolizer resolved (symbolizer.hpp;
// innermost, inlined first), so `go tool pprof -top FILE` shows function,
// file and line with no binary at hand. Its address is the instruction's: a
// return address minus one (inside the call, as pprof's readers of the
// legacy formats make it), a CPU sample's interrupted pc as it is.
// Mappings, by where the stacks come from:
//   kProcessMappings  one process, this one (the harness): each module's
//                     mapping as /proc/self/maps has it and the addresses as
//                     the process saw them, as Go's runtime writes them.
//   kModuleRanges     many processes (waste's records): module n gets the
//                     synthetic range from (n+1) << 40, and an address is
//                     that base plus the ELF virtual address.
//
// Thread-safety: one PprofStacks per thread.
//
// Example (what CpuProfiler::stop does):
//   PprofBuilder b({{"samples", "count"}, {"cpu", "nanoseconds"}});
//   add_process_stacks(b, {{{pc, return_address}, {3, 30000000}}}, PcKind::kInstruction);
//   file.append(gzip_stored(b.serialize()));
#ifndef ZEROLAB_SRC_PROFILE_PPROF_STACKS_HPP_
#define ZEROLAB_SRC_PROFILE_PPROF_STACKS_HPP_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profile/pprof_writer.hpp"
#include "profile/symbolizer.hpp"

namespace zerolab::internal::profile {

// One stack a profiler recorded in this process, addresses leaf first, and
// its values (one per sample type).
struct RecordedStack {
  std::vector<std::uintptr_t> pcs;
  std::vector<std::int64_t> values;
};

// Resolves every address of `stacks` in this process's modules (libc's and
// the other runtime libraries' files and lines included) and adds the
// samples to `builder` with kProcessMappings. `leaf` says what each stack's
// first address is; the others are return addresses.
void add_process_stacks(PprofBuilder& builder, const std::vector<RecordedStack>& stacks,
                        PcKind leaf);

// Where the stacks come from (above): this process, or many.
enum class Placement { kProcessMappings, kModuleRanges };

class PprofStacks {
 public:
  // `symbols` must be resolved before add_sample is called.
  PprofStacks(PprofBuilder& builder, const Symbolizer& symbols, Placement placement)
      : builder_(builder), symbols_(symbols), placement_(placement) {}

  // One sample: `stack` holds Symbolizer ids, leaf first; one value per
  // sample type of the builder.
  void add_sample(const std::vector<int>& stack, const std::vector<std::int64_t>& values);

 private:
  std::uint64_t location(int id);

  PprofBuilder& builder_;
  const Symbolizer& symbols_;
  Placement placement_;
  // kProcessMappings: (path, start); kModuleRanges: (path, 0). To (mapping id, base).
  std::map<std::pair<std::string, std::uint64_t>, std::pair<std::uint64_t, std::uint64_t>>
      mappings_;
};

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_PPROF_STACKS_HPP_
