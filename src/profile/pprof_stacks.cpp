// Recorded stacks into pprof samples (pprof_stacks.hpp).
#include "profile/pprof_stacks.hpp"

#include "profile/profile_file.hpp"

namespace zerolab::internal::profile {

std::uint64_t PprofStacks::location(int id) {
  const ResolvedPc& pc = symbols_.get(id);
  const bool process = placement_ == Placement::kProcessMappings;
  const auto key = std::make_pair(pc.module, process ? pc.mapping.begin : 0);
  auto it = mappings_.find(key);
  if (it == mappings_.end()) {
    std::uint64_t mapping = 0;
    std::uint64_t base = 0;
    if (process) {
      mapping = builder_.mapping(pc.module, pc.mapping.begin, pc.mapping.end, pc.mapping.offset);
    } else {
      base = (mappings_.size() + 1) << 40;
      mapping = builder_.mapping(pc.module, base, base + (std::uint64_t{1} << 40), 0);
    }
    it = mappings_.emplace(key, std::make_pair(mapping, base)).first;
  }
  std::uint64_t address = process ? pc.pc : it->second.second + pc.vaddr;
  if (pc.kind == PcKind::kReturnAddress && address != 0) --address;
  std::vector<PprofLine> lines;
  for (const Frame& f : pc.frames) lines.push_back({f.function, f.file, f.line});
  return builder_.location(it->second.first, address, lines);
}

void PprofStacks::add_sample(const std::vector<int>& stack,
                             const std::vector<std::int64_t>& values) {
  std::vector<std::uint64_t> locations;
  locations.reserve(stack.size());
  for (const int id : stack) locations.push_back(location(id));
  builder_.add_sample(locations, values);
}

void add_process_stacks(PprofBuilder& builder, const std::vector<RecordedStack>& stacks,
                        PcKind leaf) {
  const std::vector<MapEntry> maps = parse_maps(read_memory_map());
  Symbolizer symbols;
  std::vector<std::vector<int>> ids(stacks.size());
  for (std::size_t s = 0; s < stacks.size(); ++s) {
    for (std::size_t f = 0; f < stacks[s].pcs.size(); ++f) {
      ids[s].push_back(symbols.add(maps, stacks[s].pcs[f], f == 0 ? leaf : PcKind::kReturnAddress));
    }
  }
  symbols.resolve(true);
  PprofStacks samples(builder, symbols, Placement::kProcessMappings);
  for (std::size_t s = 0; s < stacks.size(); ++s) samples.add_sample(ids[s], stacks[s].values);
}

}  // namespace zerolab::internal::profile
