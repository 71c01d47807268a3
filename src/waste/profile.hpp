// `zerolab waste --profile DIR`: one gzipped pprof profile per finding of
// the report, DIR/<kind>.pb.gz (e.g. temporary-allocations.pb.gz), holding
// exactly what the report counts: each sample one recorded stack of the
// finding's sites (the preload's frames cut) with its calls and bytes (fresh
// pages: pages too; oversized buffers: touched bytes too), scaled as the
// report's sites are, plus one sample with no stack for what the total has
// and no site does (sampled sites, a full site table), so each profile's
// total is the finding's. Kinds the report leaves out (copies copy_fd has no
// kernel path for, in-frame blocks whose site frame had returned) are left
// out here too. Every location carries its resolved lines, so
// `go tool pprof -top DIR/x.pb.gz` shows function names with no binary at
// hand. Each module gets its own synthetic address range
// (profile/pprof_stacks.hpp's kModuleRanges).
//
// Example:
//   std::string error;
//   if (!write_profiles(dir, report, collected, symbols, error)) ...;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_

#include <string>

#include "waste/collect.hpp"
#include "waste/report.hpp"

namespace zerolab::waste {

// False with `error` (one line) if a file cannot be written.
bool write_profiles(const std::string& dir, const Report& report, const Collected& collected,
                    const Symbolizer& symbols, std::string& error);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_
