// zerolab/copy.hpp — copies bytes from one file descriptor to another on the
// cheapest path the kernel offers for that pair of descriptor types, with no
// heap allocation per call once a thread has warmed up.
//
// copy_fd looks at both descriptors (fstat, the socket type, the open flags)
// and picks, per pair:
//   - regular file → regular file: FICLONE when asked (CopyOptions::reflink),
//     then copy_file_range, then sendfile, then read/write — falling back
//     only while nothing has been copied yet;
//   - regular file → socket or pipe: sendfile;
//   - socket or pipe → regular file, socket or pipe: splice (through a pipe
//     kept in a small per-thread cache when neither end is a pipe);
//   - anything else (ttys, /proc and /sys files, character devices):
//     read/write through a per-thread buffer.
// Sources are read until end of file (or CopyOptions::max_bytes), never up
// to st_size, so files whose size lies (procfs: 0, sysfs: 4096) or grows are
// copied whole. One shortcut: copy_file_range and sendfile stop once they
// have moved st_size bytes from offset 0 (or reached st_size with
// src_offset) of a regular file that is not on procfs/sysfs, without the
// call that would return 0 — a file growing at that very moment is copied
// as it was an instant earlier.
//
// Small copies: no separate path. The fixed cost of a copy is its system
// calls (about 1.2-2.5 µs each on the 2-vCPU VM this was measured on,
// examples/copy_probe small), so copy_fd makes as few as it can: one fstat
// per descriptor (SO_TYPE for sockets; fstatfs only for a source of size 0
// or 4096; F_GETFL only with offsets, reflink, sparse, one file on both
// sides, a source that is not a regular file, or after an EBADF, to name
// the descriptor), then the kernel path. A 16 KiB file → file copy is 3
// calls (2 fstat, 1 copy_file_range) against read/write's 3 (read, write,
// the read that returns 0); copy_file_range alone costs less than that
// read/write loop, so switching small regular → regular copies to
// read/write would add a call and a user-space copy, not save one.
// File → socket adds SO_TYPE and a SIGPIPE block/unblock pair around
// sendfile (6 calls in all). EINTR is retried, partial writes are looped, EAGAIN on
// non-blocking descriptors waits with poll (up to CopyOptions::timeout).
// SIGPIPE never kills the caller: socket writes use MSG_NOSIGNAL, and around
// sendfile/splice/write into a pipe or socket SIGPIPE is blocked in the
// calling thread and a SIGPIPE raised by the copy is consumed before the
// mask is restored; the copy then fails with EPIPE.
// When a copy stops early (ENOSPC, EDQUOT, EIO, EPIPE, a timeout...),
// CopyResult::bytes is exactly the number of bytes the destination received,
// and a seekable source's file position is left just after them (bytes read
// from a stream source but not written are lost; there is nowhere to put
// them back).
//
// Thread-safety: copy_fd and copy_file may be called from any number of
// threads at once (each thread has its own pipe cache and buffer). Two
// copies must not share a descriptor whose file position they use. Not
// async-signal-safe.
//
// Example:
//   #include <zerolab/copy.hpp>
//
//   int in = open("input.bin", O_RDONLY | O_CLOEXEC);
//   int out = open("output.bin", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
//   zerolab::CopyResult r = zerolab::copy_fd(in, out);
//   if (r.error) {
//     std::fprintf(stderr, "copy: %s (after %llu bytes)\n", r.message.c_str(),
//                  static_cast<unsigned long long>(r.bytes));
//   }
//   // r.path says how: zerolab::to_string(r.path) == "copy_file_range" on ext4.
#ifndef ZEROLAB_COPY_HPP_
#define ZEROLAB_COPY_HPP_

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace zerolab {

// The kernel path a copy took (the last one tried, if it fell back).
enum class CopyPath {
  kNone,           // nothing was attempted (bad input)
  kClone,          // ioctl FICLONE: the destination shares the source's extents
  kCopyFileRange,  // copy_file_range(2)
  kSendfile,       // sendfile(2)
  kSplice,         // splice(2), directly or through a pipe
  kReadWrite,      // read(2)/write(2) through a per-thread buffer
};

// "none", "clone", "copy_file_range", "sendfile", "splice", "read_write".
std::string_view to_string(CopyPath path) noexcept;

struct CopyOptions {
  static constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

  // Copy at most this many bytes (Go's io.LimitedReader); kNoLimit: to EOF.
  std::uint64_t max_bytes = kNoLimit;
  // >= 0: read the source from this offset with pread-style calls, leaving
  // its file position alone; < 0: read from (and advance) the file position.
  // REQUIRES: >= 0 only for seekable sources.
  std::int64_t src_offset = -1;
  // The same for the destination. REQUIRES: not with an O_APPEND destination.
  std::int64_t dst_offset = -1;
  // How long to wait for a non-blocking descriptor to become ready, each
  // time it would block; < 0: no limit. On expiry the copy stops with
  // std::errc::timed_out.
  std::chrono::milliseconds timeout{-1};
  // Try FICLONE first (regular → regular, whole file into an empty
  // destination at offset 0): the copy shares storage on btrfs/XFS.
  bool reflink = false;
  // Regular → regular: skip the source's holes (SEEK_DATA/SEEK_HOLE) so
  // they stay holes in the destination. REQUIRES: the destination range
  // reads as zeros already (an empty or freshly truncated file).
  bool sparse = false;
};

struct CopyResult {
  std::uint64_t bytes = 0;        // bytes the destination received
  CopyPath path = CopyPath::kNone;
  std::error_code error;          // empty on success
  std::string message;            // empty on success; else names the descriptor and the reason

  explicit operator bool() const noexcept { return !error; }
};

// Copies from `src` to `dst` until end of file, options.max_bytes, or an
// error. Allocates nothing on the heap on success once the calling thread
// has made one copy of the same kind.
CopyResult copy_fd(int src, int dst, const CopyOptions& options = {});

// Copies the regular file `from` to `to` as `cp` would: creates or truncates
// `to`, copies the contents with copy_fd (options.reflink and
// options.sparse apply; the offsets are ignored, max_bytes is honoured),
// then gives `to` the permission bits of `from`. A destination created by
// this call is removed again if the copy fails.
// REQUIRES: `from` names a regular file.
CopyResult copy_file(const char* from, const char* to, const CopyOptions& options = {});
CopyResult copy_file(const std::string& from, const std::string& to,
                     const CopyOptions& options = {});

}  // namespace zerolab

#endif  // ZEROLAB_COPY_HPP_
