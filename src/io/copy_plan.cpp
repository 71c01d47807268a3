// The rule by which copy_fd picks a path for a pair of descriptor kinds
// (copy.hpp's table), and the classification of a descriptor into a
// CopyEnd (copy_plan.hpp).
#include "io/copy_plan.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/fd_info.hpp"
#include "io/path_choice.hpp"

namespace zerolab {
namespace {

constexpr unsigned bit(CopyPath p) noexcept {
  return 1u << static_cast<unsigned>(p);
}

bool is_stream(CopyEnd e) noexcept {
  return e == CopyEnd::kPipe || e == CopyEnd::kUnixStream || e == CopyEnd::kLoopbackStream ||
         e == CopyEnd::kRemoteStream;
}

CopyPlan make(CopyPath path, unsigned allowed, const char* reason) noexcept {
  CopyPlan p;
  p.path = path;
  p.allowed = allowed;
  p.reason = reason;
  return p;
}

// copy.hpp's table.
CopyPlan rule(CopyEnd src, CopyEnd dst) noexcept {
  using P = CopyPath;
  const unsigned rw = bit(P::kReadWrite);
  if (src == CopyEnd::kFile && dst == CopyEnd::kFile) {
    return make(P::kCopyFileRange,
                bit(P::kClone) | bit(P::kCopyFileRange) | bit(P::kSendfile) | bit(P::kSplice) | rw,
                "file to file: copy_file_range keeps the copy in the kernel");
  }
  if (src == CopyEnd::kFile && is_stream(dst)) {
    const unsigned allowed = bit(P::kSendfile) | bit(P::kSplice) | rw;
    if (dst == CopyEnd::kLoopbackStream) {
      return make(P::kSplice, allowed,
                  "file to TCP on this host: splice beat read/write at 1 MiB and 1 GiB in every "
                  "run here");
    }
    if (dst == CopyEnd::kUnixStream) {
      return make(P::kSplice, allowed, "file to an AF_UNIX socket: splice measured fastest");
    }
    return make(P::kSendfile, allowed,
                "file to a pipe or socket: sendfile skips the user-space copy");
  }
  if (src != CopyEnd::kPipe && is_stream(src) && dst == CopyEnd::kFile) {
    return make(P::kReadWrite, bit(P::kSplice) | rw,
                "from a socket into a file: read/write (copy_bench Race: splice through a pipe "
                "took 1.13-1.74x its time at 1 GiB, and lost to it at 1 MiB on two VMs)");
  }
  if (is_stream(src) && (dst == CopyEnd::kFile || is_stream(dst))) {
    return make(P::kSplice, bit(P::kSplice) | rw, "from a pipe or socket: splice saves one copy");
  }
  return make(P::kReadWrite, rw, "read/write is the only path for this pair");
}

}  // namespace

CopyPlan plan_copy(CopyEnd src, CopyEnd dst) noexcept {
  CopyPlan plan = rule(src, dst);
  plan.src = src;
  plan.dst = dst;
  return plan;
}

namespace io {

bool splice_file_to_file(int src, int dst, const FdInfo& si, const FdInfo& di,
                         std::uint64_t expected) noexcept {
  if (expected < kSpliceFileFrom || expected == CopyOptions::kNoLimit || si.same_file(di))
    return false;
  // Only the machine profile's file → file line splices.
  constexpr unsigned kSpliceOnly = 1u << static_cast<unsigned>(CopyPath::kSplice);
  if (profile_path_for(CopyEnd::kFile, CopyEnd::kFile, kSpliceOnly) != CopyPath::kSplice) {
    return false;
  }
  if (!copy_file_range_is_splice(src)) return false;
  return si.st.st_dev == di.st.st_dev || copy_file_range_is_splice(dst);
}

bool small_into_socket(const FdInfo& si, const FdInfo& di, std::uint64_t count) noexcept {
  return si.kind == FdKind::kRegular && !si.pseudo_fs && di.socket() && count <= kSmallIntoSocket;
}

CopyPath small_into_socket_path(int fd, FdInfo& info) noexcept {
  load_socket_type(fd, info);
  return info.kind == FdKind::kStreamSocket ? CopyPath::kSendfile : CopyPath::kReadWrite;
}

CopyEnd source_end(int fd, FdInfo& info) noexcept {
  load_socket_type(fd, info);
  switch (info.kind) {
    case FdKind::kRegular:
      return info.pseudo_fs ? CopyEnd::kOther : CopyEnd::kFile;
    case FdKind::kPipe:
      return CopyEnd::kPipe;
    case FdKind::kStreamSocket:
      return CopyEnd::kRemoteStream;  // a source's peer does not matter
    default:
      return CopyEnd::kOther;
  }
}

CopyEnd destination_end(int fd, FdInfo& info, CopyEnd src) noexcept {
  switch (info.kind) {
    case FdKind::kRegular:
      return info.flags_known && info.append() ? CopyEnd::kOther : CopyEnd::kFile;
    case FdKind::kPipe:
      return CopyEnd::kPipe;
    case FdKind::kSocket:
    case FdKind::kStreamSocket:
    case FdKind::kOtherSocket:
      break;
    default:
      return CopyEnd::kOther;
  }
  load_socket_type(fd, info);
  if (info.kind != FdKind::kStreamSocket) return CopyEnd::kOther;
  // Where the peer is matters only for a file source (sendfile or splice).
  if (src != CopyEnd::kFile) return CopyEnd::kRemoteStream;
  switch (socket_peer(fd)) {
    case SocketPeer::kUnix:
      return CopyEnd::kUnixStream;
    case SocketPeer::kThisHost:
      return CopyEnd::kLoopbackStream;
    case SocketPeer::kElsewhere:
      break;
  }
  return CopyEnd::kRemoteStream;
}

}  // namespace io

namespace io {

std::uint64_t file_size(const FdInfo& info) noexcept {
  return info.st.st_size > 0 ? static_cast<std::uint64_t>(info.st.st_size) : 0;
}

std::uint64_t expected_bytes(const FdInfo& si, std::uint64_t max_bytes,
                             std::uint64_t size_hint) noexcept {
  return si.kind == FdKind::kRegular ? std::min(max_bytes, size_hint) : max_bytes;
}

CopyPlan inspect_pair(int src, int dst, FdInfo& si, FdInfo& di, bool any_size_pseudo_fs) noexcept {
  CopyPlan refused;
  if (int e = inspect_fd(src, si, /*source=*/true); e != 0) {
    refused.reason = "the source descriptor cannot be inspected";
    refused.error = std::error_code(e, std::system_category());
    return refused;
  }
  if (any_size_pseudo_fs && si.kind == FdKind::kRegular && !si.pseudo_fs) {
    si.pseudo_fs = on_pseudo_fs(src);
  }
  if (int e = inspect_fd(dst, di, /*source=*/false); e != 0) {
    refused.reason = "the destination descriptor cannot be inspected";
    refused.error = std::error_code(e, std::system_category());
    return refused;
  }
  if (si.kind == FdKind::kDirectory || di.kind == FdKind::kDirectory) {
    refused.reason = "a directory is neither a source nor a destination";
    refused.error = std::error_code(EISDIR, std::system_category());
    return refused;
  }
  if (di.kind == FdKind::kRegular) load_flags(dst, di);  // O_APPEND rules out the file paths
  const CopyEnd s = source_end(src, si);
  return plan_copy(s, destination_end(dst, di, s));
}

}  // namespace io

CopyPlan plan_copy(int src, int dst, const CopyOptions& options) {
  io::FdInfo si;
  io::FdInfo di;
  CopyPlan plan = io::inspect_pair(src, dst, si, di);
  if (plan.error) return plan;
  const std::uint64_t expected = io::expected_bytes(si, options.max_bytes, io::file_size(si));
  const bool file_to_file = plan.src == CopyEnd::kFile && plan.dst == CopyEnd::kFile;
  if (options.path != CopyPath::kAuto) {
    if (!plan.allows(options.path)) {
      plan.reason = "CopyOptions::path is not a path this pair allows";
      plan.error = std::error_code(EINVAL, std::system_category());
      plan.path = CopyPath::kNone;
      return plan;
    }
    plan.path = options.path;
    plan.reason = "forced by CopyOptions::path";
  } else if (options.reflink && plan.allows(CopyPath::kClone)) {
    plan.path = CopyPath::kClone;
    plan.reason = "CopyOptions::reflink: FICLONE first";
  } else if (file_to_file && !options.sparse &&
             io::splice_file_to_file(src, dst, si, di, expected)) {
    plan.path = CopyPath::kSplice;
    plan.reason =
        "a file → file copy of 1 MiB or more where copy_file_range is the kernel's splice "
        "through a 64 KiB pipe (ext2/3/4, tmpfs): splice through copy_fd's pipe of up to "
        "1 MiB, the machine profile's choice";
  } else if (file_to_file && !options.sparse && expected <= io::kSmallFileCopy &&
             io::small_file_path() == CopyPath::kReadWrite) {
    plan.path = CopyPath::kReadWrite;
    plan.reason = std::strcmp(io::small_file_source(), "profile") == 0
                      ? "a small file → file copy: read/write, the machine profile's choice"
                      : "a small file → file copy: read/write, as ZEROLAB_COPY_SMALL_FILE says";
  } else if (io::small_into_socket(si, di, std::min(options.max_bytes, io::file_size(si))) &&
             plan.allows(CopyPath::kSendfile)) {
    plan.path = CopyPath::kSendfile;
    plan.reason =
        "a small copy from a file into a stream socket: sendfile, one call (copy_bench "
        "Race, 16 KiB)";
  } else if (const CopyPath chosen = io::path_for(plan, expected);
             !file_to_file && chosen != plan.path) {
    // (File → file takes the profile's line only through splice_file_to_file.)
    plan.path = chosen;
    plan.reason = "the machine profile's choice for this pair kind (zerolab calibrate)";
  }
  return plan;
}

}  // namespace zerolab
