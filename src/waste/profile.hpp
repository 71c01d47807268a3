// `zerolab waste --profile DIR`: one gzipped pprof profile per kind found,
// DIR/<kind>.pb.gz (e.g. temporary-allocations.pb.gz), each sample one
// recorded stack (the preload's frames cut) with its calls and bytes
// (fresh pages: pages too; oversized buffers: touched bytes too). Every
// location carries its resolved lines, so `go tool pprof -top DIR/x.pb.gz`
// shows function names with no binary at hand. Each module gets its own
// synthetic address range (profile/pprof_stacks.hpp's kModuleRanges).
//
// Example:
//   std::string error;
//   if (!write_profiles(dir, collected, symbols, run_seconds, error)) ...;
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_

#include <string>

#include "waste/collect.hpp"

namespace zerolab::waste {

// False with `error` (one line) if a file cannot be written.
bool write_profiles(const std::string& dir, const Collected& collected, const Symbolizer& symbols,
                    double wall_seconds, std::string& error);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROFILE_HPP_
