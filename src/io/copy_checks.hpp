// src/io/copy_checks.hpp — the checks copy_fd makes before a byte moves,
// and the SIGPIPE guard around writes into pipes and sockets (copy.hpp).
// Each check returns a CopyResult whose error names the descriptor and the
// reason, or an empty one.
//
// Thread-safety: pure functions of the descriptors; SigpipeGuard changes
// the calling thread's signal mask only.
//
// Example:
//   if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) return bad;
//   SigpipeGuard guard(di.kind == FdKind::kPipe);
#ifndef ZEROLAB_SRC_IO_COPY_CHECKS_HPP_
#define ZEROLAB_SRC_IO_COPY_CHECKS_HPP_

#include <string>

#include "io/copier.hpp"
#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

// "source fd 3".
std::string fd_name(const char* role, int fd);
CopyResult bad_input(int err, std::string message);
CopyResult bad_fd(const char* role, int fd, int err);

// Blocks SIGPIPE in the calling thread for the copy (unless it already
// was), so sendfile/splice/write into a closed pipe or socket fails with
// EPIPE instead of killing the process; a SIGPIPE the copy raised is
// consumed before the signal is unblocked.
class SigpipeGuard {
 public:
  explicit SigpipeGuard(bool needed) noexcept;
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;
  ~SigpipeGuard() { finish(false); }
  void finish(bool had_epipe) noexcept;

 private:
  bool active_ = false;
};

// The checks on the open flags that reject a pair before anything is
// written. REQUIRES: both flags known.
CopyResult check_flags(int src, int dst, const FdInfo& si, const FdInfo& di, const CopyOptions& o);
// Reads the flags not yet known, then check_flags.
CopyResult load_and_check_flags(int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& o);
// The checks on the kinds and positions that reject a pair before anything
// is written. Sets c.remaining to the overlap-free length for a copy within
// one file. REQUIRES: the flags known if si.same_file(di).
CopyResult check_pair(int src, int dst, const FdInfo& si, const FdInfo& di, const CopyOptions& o,
                      Copier& c);

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_CHECKS_HPP_
