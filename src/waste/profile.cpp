// `zerolab waste`'s pprof profiles (cmd_waste_profile.hpp).
#include "waste/profile.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "files/atomic_file.hpp"
#include "profile/pprof_stacks.hpp"

namespace zerolab::waste {

namespace pp = zerolab::internal::profile;

bool write_profiles(const std::string& dir, const Report& report, const Collected& collected,
                    const Symbolizer& symbols, std::string& error) {
  const double wall_seconds = report.run.wall_seconds;
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (const Finding& f : report.findings) {
    const WasteKind kind = f.kind;
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
    std::int64_t extra = 0;
    std::int64_t calls = 0;
    std::int64_t bytes = 0;
    for (const std::size_t i : f.records) {
      const SiteRecord& s = collected.sites[i];
      std::vector<std::int64_t> values;
      if (has_extra) values.push_back(std::llround(s.extra));
      values.push_back(std::llround(s.calls * f.record_call_scale));
      values.push_back(std::llround(s.bytes * f.record_byte_scale));
      if (has_extra) extra += values[0];
      calls += values[values.size() - 2];
      bytes += values.back();
      stacks.add_sample(s.stack, values);
    }
    // What the total has and no recorded stack does.
    std::vector<std::int64_t> rest;
    if (has_extra) rest.push_back(std::max<std::int64_t>(0, std::llround(f.extra) - extra));
    rest.push_back(std::max<std::int64_t>(0, std::llround(f.calls) - calls));
    rest.push_back(std::max<std::int64_t>(0, std::llround(f.bytes) - bytes));
    if (std::any_of(rest.begin(), rest.end(), [](std::int64_t v) { return v > 0; })) {
      stacks.add_sample({}, rest);
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
