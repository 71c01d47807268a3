// `zerolab waste`'s pprof profiles (cmd_waste_profile.hpp).
#include "waste/profile.hpp"

#include <chrono>
#include <cmath>

#include "format/atomic_file.hpp"
#include "profile/pprof_stacks.hpp"

namespace zerolab::waste {

namespace pp = zerolab::internal::profile;

bool write_profiles(const std::string& dir, const Collected& collected, const Symbolizer& symbols,
                    double wall_seconds, std::string& error) {
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (int k = 0; k < kWasteKinds; ++k) {
    const auto kind = static_cast<WasteKind>(k);
    const KindTotals& t = collected.totals[k];
    if (std::llround(t.bytes) == 0 && std::llround(t.calls) == 0) continue;
    const bool has_extra =
        kind == WasteKind::kZeroedFreshPages || kind == WasteKind::kOversizedBuffers;
    std::vector<std::pair<std::string, std::string>> types;
    if (kind == WasteKind::kZeroedFreshPages) types.emplace_back("pages", "count");
    if (kind == WasteKind::kOversizedBuffers) types.emplace_back("touched", "bytes");
    types.emplace_back("calls", "count");
    types.emplace_back("bytes", "bytes");  // last: pprof's default
    pp::PprofBuilder b(types);
    b.set_time(static_cast<std::int64_t>(now) - static_cast<std::int64_t>(wall_seconds * 1e9),
               static_cast<std::int64_t>(wall_seconds * 1e9));
    b.add_comment("zerolab waste: " + std::string(kind_name(kind)));
    pp::PprofStacks stacks(b, symbols, pp::Placement::kModuleRanges);
    for (const SiteRecord& s : collected.sites) {
      if (s.kind != kind) continue;
      std::vector<std::int64_t> values;
      if (has_extra) values.push_back(std::llround(s.extra));
      values.push_back(std::llround(s.calls));
      values.push_back(std::llround(s.bytes));
      stacks.add_sample(s.stack, values);
    }
    const std::string path = dir + "/" + std::string(kind_name(kind)) + ".pb.gz";
    if (!internal::write_file_atomically(path, pp::gzip_stored(b.serialize()), error)) {
      error = "--profile: " + error;
      return false;
    }
  }
  return true;
}

}  // namespace zerolab::waste
