// src/io/copy_plan.hpp — the CopyEnd of an inspected descriptor, for
// plan_copy's rule (copy.hpp). Private to zerolab::io.
//
// Thread-safety: pure functions of the descriptor.
//
// Example:
//   const CopyEnd s = source_end(src, src_info);
//   const CopyPlan plan = plan_copy(s, destination_end(dst, dst_info, s));
#ifndef ZEROLAB_SRC_IO_COPY_PLAN_HPP_
#define ZEROLAB_SRC_IO_COPY_PLAN_HPP_

#include <cstdint>

#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

// A copy that moves at most this many bytes from a regular file into a
// stream socket takes sendfile whatever the peer (copy.hpp): one call,
// and the peer (getpeername) need not be asked.
constexpr std::uint64_t kSmallIntoSocket = std::uint64_t{128} << 10;

// The table copies file → file with copy_file_range at every size. A
// machine profile whose file → file line says splice (`zerolab calibrate`
// races the two at 1 MiB) sends copies expected to move at least this many
// bytes (a known count: min(max_bytes, the source's size)) through the
// per-thread pipe (up to 1 MiB) instead, where copy_file_range is itself
// the kernel's splice through a 64 KiB pipe (ext2/3/4, tmpfs). The table
// does not splice there on its own: on ext4 splice's median for 1 GiB
// matched copy_file_range's but its tail was up to 2.5x longer, and cp,
// which uses copy_file_range, was faster (docs/copy_fd.md).
constexpr std::uint64_t kSpliceFileFrom = std::uint64_t{1} << 20;

// Whether a file → file copy of `expected` bytes between `si` and `di`
// (both regular) splices rather than copy_file_range: the machine profile
// says splice for file → file, two files (not one), at least
// kSpliceFileFrom known bytes, and both on a filesystem where
// copy_file_range is the generic splice (one fstatfs, two when the files
// are on different devices; none without such a profile).
bool splice_file_to_file(int src, int dst, const FdInfo& si, const FdInfo& di,
                         std::uint64_t expected) noexcept;

// True when a copy of at most `count` bytes from `si` into `di` is a small
// copy from a file into a socket (kSmallIntoSocket).
bool small_into_socket(const FdInfo& si, const FdInfo& di, std::uint64_t count) noexcept;
// The path of a small copy into the socket `fd` (small_into_socket):
// sendfile into a stream socket, read/write into any other (asks its type).
CopyPath small_into_socket_path(int fd, FdInfo& info) noexcept;

// The kind of an inspected source descriptor (asks a socket's type).
CopyEnd source_end(int fd, FdInfo& info) noexcept;
// The kind of an inspected destination (asks a socket's type); asks where
// a socket's peer is only when `src` is a file (one system call, two for a
// non-loopback address). An O_APPEND file is kOther once its flags are
// known.
CopyEnd destination_end(int fd, FdInfo& info, CopyEnd src) noexcept;

// A regular file's st_size as a count (0 if negative).
std::uint64_t file_size(const FdInfo& info) noexcept;
// How many bytes a copy from `si` will move at most, as far as is known
// now: max_bytes, and for a regular source `size_hint` (its st_size, or
// kNoLimit for a prepared pair).
std::uint64_t expected_bytes(const FdInfo& si, std::uint64_t max_bytes,
                             std::uint64_t size_hint) noexcept;

// Inspects both descriptors (statx, a socket's type and peer, a regular
// destination's open flags) into `si` and `di` and returns the pair's plan;
// path kNone with the error and the reason when a descriptor cannot be
// inspected or is a directory. `any_size_pseudo_fs`: ask the filesystem
// of a regular source whatever its size (a prepared pair's source can have
// any size later), not only for the sizes pseudo filesystems report.
CopyPlan inspect_pair(int src, int dst, FdInfo& si, FdInfo& di,
                      bool any_size_pseudo_fs = false) noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_PLAN_HPP_
