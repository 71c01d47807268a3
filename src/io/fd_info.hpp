// src/io/fd_info.hpp — what copy_fd needs to know about one descriptor:
// its kind (regular file, pipe, socket, ...), and only when asked (each is
// one more system call) a socket's type, its open flags, and for a source
// that is a regular file whether it lives on a pseudo filesystem whose
// st_size lies (procfs, sysfs). Private to zerolab::io.
//
// Thread-safety: pure functions of the descriptor.
//
// Example:
//   FdInfo info;
//   if (int err = inspect_fd(fd, info, /*source=*/true); err != 0) { ... }
//   if (info.kind == FdKind::kRegular && !info.pseudo_fs) { ... }
//   if (info.kind == FdKind::kSocket) load_socket_type(fd, info);  // kStreamSocket, ...
//   if (int err = load_flags(fd, info); err != 0) { ... }
//   if (!info.readable()) { ... }
#ifndef ZEROLAB_SRC_IO_FD_INFO_HPP_
#define ZEROLAB_SRC_IO_FD_INFO_HPP_

#include <sys/stat.h>

namespace zerolab::io {

enum class FdKind {
  kRegular,       // S_ISREG
  kDirectory,     // S_ISDIR
  kPipe,          // S_ISFIFO: pipes and named FIFOs
  kSocket,        // S_ISSOCK, its type not asked yet (load_socket_type)
  kStreamSocket,  // S_ISSOCK with SOCK_STREAM
  kOtherSocket,   // datagram and seqpacket sockets
  kBlock,         // S_ISBLK
  kOther,         // character devices (ttys, /dev/zero), anything else
};

struct FdInfo {
  FdKind kind = FdKind::kOther;
  struct stat st {};         // st_mode, st_size, st_dev and st_ino only
  int flags = 0;             // fcntl(F_GETFL), once load_flags ran
  bool flags_known = false;  // load_flags ran
  bool pseudo_fs = false;    // a source's regular file on procfs, sysfs, debugfs, ...

  bool seekable() const noexcept { return kind == FdKind::kRegular || kind == FdKind::kBlock; }
  bool socket() const noexcept {
    return kind == FdKind::kSocket || kind == FdKind::kStreamSocket || kind == FdKind::kOtherSocket;
  }
  // Whether `other` names the same file (device and inode).
  bool same_file(const FdInfo& other) const noexcept {
    return st.st_dev == other.st.st_dev && st.st_ino == other.st.st_ino;
  }
  // The flag tests. REQUIRES: flags_known.
  bool append() const noexcept;
  bool readable() const noexcept;
  bool writable() const noexcept;
};

// Fills `info` for `fd` but its flags and a socket's type: statx, and for
// a `source` that is a regular file of size 0 or 4096, fstatfs. Returns 0
// or the errno of fstat.
int inspect_fd(int fd, FdInfo& info, bool source) noexcept;
// Turns kSocket into kStreamSocket or kOtherSocket (getsockopt SO_TYPE; a
// socket whose type cannot be read is kOtherSocket).
void load_socket_type(int fd, FdInfo& info) noexcept;
// True for a descriptor on a filesystem whose regular files report a size
// unrelated to what a read returns (procfs 0, sysfs 4096, debugfs, ...):
// one fstatfs.
bool on_pseudo_fs(int fd) noexcept;
// True for a descriptor on a filesystem whose copy_file_range is the
// kernel's generic splice through a default-size (64 KiB) pipe: no reflink,
// no offload (ext2/3/4 and tmpfs; others are not assumed): one fstatfs.
bool copy_file_range_is_splice(int fd) noexcept;
// Fills info.flags with fcntl(F_GETFL); returns 0 or its errno.
int load_flags(int fd, FdInfo& info) noexcept;

// Where the socket `fd`'s peer is: kUnix for AF_UNIX; kThisHost for an
// IPv4/IPv6 peer address that is loopback (one system call) or equal to the
// socket's own (two); kElsewhere otherwise, or when the addresses cannot be
// read.
enum class SocketPeer { kUnix, kThisHost, kElsewhere };
SocketPeer socket_peer(int fd) noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_FD_INFO_HPP_
