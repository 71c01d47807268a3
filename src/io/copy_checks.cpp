// The checks copy_fd makes before a byte moves, and the SIGPIPE guard
// (copy_checks.hpp).
#include "io/copy_checks.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace zerolab::io {

std::string fd_name(const char* role, int fd) {
  return std::string(role) + " fd " + std::to_string(fd);
}

CopyResult bad_input(int err, std::string message) {
  CopyResult r;
  r.error = std::error_code(err, std::system_category());
  r.message = std::move(message);
  return r;
}

CopyResult bad_fd(const char* role, int fd, int err) {
  return bad_input(err, fd_name(role, fd) + ": " + std::system_category().message(err));
}

SigpipeGuard::SigpipeGuard(bool needed) noexcept {
  if (!needed) return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  sigset_t old;
  if (pthread_sigmask(SIG_BLOCK, &set, &old) == 0) active_ = sigismember(&old, SIGPIPE) == 0;
}

void SigpipeGuard::finish(bool had_epipe) noexcept {
  if (!active_) return;
  active_ = false;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  if (had_epipe) {
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{};
      while (sigtimedwait(&set, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
  }
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// The checks on the open flags that reject a pair before anything is
// written. REQUIRES: both flags known.
CopyResult check_flags(int src, int dst, const FdInfo& si, const FdInfo& di, const CopyOptions& o) {
  if (!si.readable()) return bad_input(EBADF, fd_name("source", src) + " is not open for reading");
  if (!di.writable()) {
    return bad_input(EBADF, fd_name("destination", dst) + " is not open for writing");
  }
  if (o.dst_offset >= 0 && di.append()) {
    return bad_input(EINVAL, fd_name("destination", dst) +
                                 " is O_APPEND: writes ignore dst_offset, so it cannot be given");
  }
  return {};
}

CopyResult load_and_check_flags(int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& o) {
  if (int e = si.flags_known ? 0 : io::load_flags(src, si); e != 0) return bad_fd("source", src, e);
  if (int e = di.flags_known ? 0 : io::load_flags(dst, di); e != 0) {
    return bad_fd("destination", dst, e);
  }
  return check_flags(src, dst, si, di, o);
}

// The checks on the kinds and positions that reject a pair before anything
// is written. Sets c.remaining to the overlap-free length for a copy within
// one file. REQUIRES: the flags known if si.same_file(di).
CopyResult check_pair(int src, int dst, const FdInfo& si, const FdInfo& di, const CopyOptions& o,
                      Copier& c) {
  if (si.kind == FdKind::kDirectory)
    return bad_input(EISDIR, fd_name("source", src) + " is a directory");
  if (di.kind == FdKind::kDirectory) {
    return bad_input(EISDIR, fd_name("destination", dst) + " is a directory");
  }
  if (o.src_offset >= 0 && !si.seekable()) {
    return bad_input(ESPIPE, fd_name("source", src) + " is not seekable, but src_offset was given");
  }
  if (o.dst_offset >= 0 && !di.seekable()) {
    return bad_input(ESPIPE,
                     fd_name("destination", dst) + " is not seekable, but dst_offset was given");
  }
  if (!si.same_file(di)) return {};
  if (si.kind == FdKind::kPipe) {
    return bad_input(EINVAL, fd_name("source", src) + " and " + fd_name("destination", dst) +
                                 " are the same pipe");
  }
  if (si.kind != FdKind::kRegular) return {};
  // One regular file: the byte ranges must not overlap, and the copy stops
  // at the size the file has now (it would otherwise read its own output).
  const loff_t size = si.st.st_size;
  const loff_t s = o.src_offset >= 0 ? o.src_offset : lseek(src, 0, SEEK_CUR);
  const loff_t d = di.append() ? size : o.dst_offset >= 0 ? o.dst_offset : lseek(dst, 0, SEEK_CUR);
  const std::uint64_t len =
      s < size ? std::min<std::uint64_t>(c.remaining, static_cast<std::uint64_t>(size - s)) : 0;
  const auto ilen = static_cast<loff_t>(len);
  if (len > 0 && s < d + ilen && d < s + ilen) {
    return bad_input(EINVAL, fd_name("source", src) + " and " + fd_name("destination", dst) +
                                 " are the same file and the byte ranges overlap");
  }
  c.remaining = len;
  return {};
}

}  // namespace zerolab::io
