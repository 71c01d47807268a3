// src/io/fd_info.hpp — what copy_fd needs to know about one descriptor:
// its kind (regular file, pipe, stream socket, ...), its open flags, and
// for regular files whether they live on a pseudo filesystem whose st_size
// lies (procfs, sysfs). Private to zerolab::io.
//
// Thread-safety: pure functions of the descriptor.
//
// Example:
//   FdInfo info;
//   if (int err = inspect_fd(fd, info); err != 0) { ... }
//   if (info.kind == FdKind::kRegular && !info.pseudo_fs) { ... }
#ifndef ZEROLAB_SRC_IO_FD_INFO_HPP_
#define ZEROLAB_SRC_IO_FD_INFO_HPP_

#include <sys/stat.h>

namespace zerolab::io {

enum class FdKind {
  kRegular,       // S_ISREG
  kDirectory,     // S_ISDIR
  kPipe,          // S_ISFIFO: pipes and named FIFOs
  kStreamSocket,  // S_ISSOCK with SOCK_STREAM
  kOtherSocket,   // datagram and seqpacket sockets
  kBlock,         // S_ISBLK
  kOther,         // character devices (ttys, /dev/zero), anything else
};

struct FdInfo {
  FdKind kind = FdKind::kOther;
  struct stat st {};
  int flags = 0;           // fcntl(F_GETFL)
  bool pseudo_fs = false;  // regular file on procfs, sysfs, debugfs, ...

  bool seekable() const noexcept { return kind == FdKind::kRegular || kind == FdKind::kBlock; }
  // May return EAGAIN: a pipe, a socket or a character device opened O_NONBLOCK.
  bool may_block() const noexcept;
  bool append() const noexcept;
  bool readable() const noexcept;
  bool writable() const noexcept;
};

// Fills `info` for `fd`; returns 0 or the errno of fstat/fcntl.
int inspect_fd(int fd, FdInfo& info) noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_FD_INFO_HPP_
