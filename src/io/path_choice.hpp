// src/io/path_choice.hpp — which path a copy takes when the table allows
// more than one: the machine profile's choice for the pair kind (`zerolab
// calibrate` measured it), or the table's. Nothing here times a copy: two
// copies of the same kind and size take the same path in every process
// that reads the same profile.
//
//   - A copy expected to move at least kProfileFrom bytes between ends of a
//     kind the profile has a "copy" line for takes that line's path, when
//     the pair allows it; every other copy takes the table's path.
//   - Small file → file copies (at most kSmallFileCopy known bytes) take
//     ZEROLAB_COPY_SMALL_FILE's path (copy_file_range or read_write) when
//     set, else the profile's "copy-small-file" path, else copy_file_range.
//   - ZEROLAB_COPY_PROFILE=0 leaves the profile unread: the table everywhere.
//
// Thread-safety: read-only after the first call (function-local statics).
// Allocates nothing after the first call of the process.
//
// Example:
//   const CopyPath path = path_for(plan, expected_bytes);      // profile or table
//   if (small_file_path() == CopyPath::kReadWrite) { ... }
#ifndef ZEROLAB_SRC_IO_PATH_CHOICE_HPP_
#define ZEROLAB_SRC_IO_PATH_CHOICE_HPP_

#include <cstdint>

#include "zerolab/copy.hpp"

namespace zerolab::io {

// The profile's choice applies from this many expected bytes (a pipe or
// socket source counts as unbounded): calibrate measures copies of 1 MiB.
constexpr std::uint64_t kProfileFrom = std::uint64_t{256} << 10;
constexpr std::uint64_t kSmallFileCopy = std::uint64_t{128} << 10;

// The path for a copy between ends of plan.src and plan.dst expected to
// move `expected` bytes (CopyOptions::kNoLimit when not known).
CopyPath path_for(const CopyPlan& plan, std::uint64_t expected) noexcept;

// The machine profile's path for the pair kind, or kNone (no profile, no
// line for the kind, a path the pair does not allow, or profile off).
CopyPath profile_path_for(CopyEnd src, CopyEnd dst, unsigned allowed) noexcept;

// The path of small file → file copies: copy_file_range or read_write.
CopyPath small_file_path() noexcept;

// Where small_file_path() came from: "ZEROLAB_COPY_SMALL_FILE", "profile"
// or "table".
const char* small_file_source() noexcept;

// Whether the profile is read (ZEROLAB_COPY_PROFILE is not "0").
bool profile_enabled() noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_PATH_CHOICE_HPP_
