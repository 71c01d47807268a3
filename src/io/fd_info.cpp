// What copy_fd needs to know about a descriptor (fd_info.hpp).
#include "io/fd_info.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

namespace zerolab::io {

bool on_pseudo_fs(int fd) noexcept {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

bool copy_file_range_is_splice(int fd) noexcept {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // ext2 and ext3 share it
    case TMPFS_MAGIC:
      return true;
    default:
      return false;
  }
}

namespace {

// The four fields copy_fd reads (type, size, device, inode), from statx
// with only those in the mask; the rest of `st` is zero. fstat asks the
// kernel for everything: for the timestamps the filesystem then records
// that they were read, and the next write into the file pays for that
// (multigrain timestamps, Linux 6.13+). A 16 KiB file-to-file read+write
// here costs 1.04 µs alone, 1.74 µs after two fstat calls, 1.44 µs after
// two such statx calls.
int stat_fd(int fd, struct stat& st) noexcept {
  struct statx x {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE | STATX_INO, &x) != 0) {
    // A kernel before 4.11, or a seccomp filter that refuses statx.
    if (errno != ENOSYS && errno != EPERM) return -1;
    return fstat(fd, &st);
  }
  st = {};
  st.st_mode = x.stx_mode;
  st.st_size = static_cast<off_t>(x.stx_size);
  st.st_ino = x.stx_ino;
  st.st_dev = makedev(x.stx_dev_major, x.stx_dev_minor);
  return 0;
}

bool is_loopback(const sockaddr_storage& a) noexcept {
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    return (ntohl(in.sin_addr.s_addr) >> 24) == 127;
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    if (IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr) && in6.sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

bool same_host_address(const sockaddr_storage& a, const sockaddr_storage& b) noexcept {
  if (a.ss_family != b.ss_family) return false;
  if (a.ss_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in&>(a).sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in&>(b).sin_addr.s_addr;
  }
  if (a.ss_family == AF_INET6) {
    return std::memcmp(&reinterpret_cast<const sockaddr_in6&>(a).sin6_addr,
                       &reinterpret_cast<const sockaddr_in6&>(b).sin6_addr, sizeof(in6_addr)) == 0;
  }
  return false;
}

}  // namespace

SocketPeer socket_peer(int fd) noexcept {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return SocketPeer::kElsewhere;
  if (peer.ss_family == AF_UNIX) return SocketPeer::kUnix;
  if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6) return SocketPeer::kElsewhere;
  if (is_loopback(peer)) return SocketPeer::kThisHost;
  // A peer at the socket's own address is this host too (a connection to
  // one of its interface addresses runs over loopback).
  sockaddr_storage self{};
  len = sizeof self;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) != 0) return SocketPeer::kElsewhere;
  return same_host_address(self, peer) ? SocketPeer::kThisHost : SocketPeer::kElsewhere;
}

bool FdInfo::append() const noexcept {
  return (flags & O_APPEND) != 0;
}
bool FdInfo::readable() const noexcept {
  const int mode = flags & O_ACCMODE;
  return (flags & O_PATH) == 0 && (mode == O_RDONLY || mode == O_RDWR);
}
bool FdInfo::writable() const noexcept {
  const int mode = flags & O_ACCMODE;
  return (flags & O_PATH) == 0 && (mode == O_WRONLY || mode == O_RDWR);
}

int load_flags(int fd, FdInfo& info) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  info.flags = flags;
  info.flags_known = true;
  return 0;
}

int inspect_fd(int fd, FdInfo& info, bool source) noexcept {
  if (fd < 0) return EBADF;
  if (stat_fd(fd, info.st) != 0) return errno;
  info.flags = 0;
  info.flags_known = false;
  const mode_t mode = info.st.st_mode;
  info.pseudo_fs = false;
  if (S_ISREG(mode)) {
    info.kind = FdKind::kRegular;
    // Only a source's size matters, and only sizes pseudo filesystems
    // report are worth a statfs call.
    if (source && (info.st.st_size == 0 || info.st.st_size == 4096))
      info.pseudo_fs = on_pseudo_fs(fd);
  } else if (S_ISDIR(mode)) {
    info.kind = FdKind::kDirectory;
  } else if (S_ISFIFO(mode)) {
    info.kind = FdKind::kPipe;
  } else if (S_ISSOCK(mode)) {
    info.kind = FdKind::kSocket;
  } else if (S_ISBLK(mode)) {
    info.kind = FdKind::kBlock;
  } else {
    info.kind = FdKind::kOther;
  }
  return 0;
}

void load_socket_type(int fd, FdInfo& info) noexcept {
  if (info.kind != FdKind::kSocket) return;
  int type = 0;
  socklen_t len = sizeof type;
  const bool stream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
  info.kind = stream ? FdKind::kStreamSocket : FdKind::kOtherSocket;
}

}  // namespace zerolab::io
