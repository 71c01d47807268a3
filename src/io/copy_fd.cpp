// copy_fd's entry points (copy.hpp): the one-shot copy (copy_hints.hpp:
// the per-thread hints, then the inspected copy), prepare_copy's
// inspection, and the copy of a prepared pair (a small file → file copy by
// the plain loop where read/write is the small-file path, else the
// inspected copy on what prepare_copy found).
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "io/copy_hints.hpp"
#include "io/copy_inspected.hpp"
#include "io/copy_plan.hpp"
#include "io/direct_loops.hpp"
#include "io/fd_info.hpp"
#include "io/path_choice.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {

using io::FdInfo;
using io::FdKind;

std::string_view to_string(CopyPath path) noexcept {
  switch (path) {
    case CopyPath::kNone:
      return "none";
    case CopyPath::kClone:
      return "clone";
    case CopyPath::kCopyFileRange:
      return "copy_file_range";
    case CopyPath::kSendfile:
      return "sendfile";
    case CopyPath::kSplice:
      return "splice";
    case CopyPath::kReadWrite:
      return "read_write";
    case CopyPath::kAuto:
      return "auto";
  }
  return "unknown";
}

CopyResult copy_fd(int src, int dst, const CopyOptions& options) {
  return io::copy_with_hints(src, dst, options);
}

PreparedCopy prepare_copy(int src, int dst) {
  PreparedCopy pair;
  pair.src_.fd = src;
  pair.dst_.fd = dst;
  FdInfo si;
  FdInfo di;
  pair.plan_ = io::inspect_pair(src, dst, si, di, /*any_size_pseudo_fs=*/true);
  if (!pair.plan_.error) {
    int e = io::load_flags(src, si);
    if (e == 0 && !di.flags_known) e = io::load_flags(dst, di);
    if (e != 0) {
      pair.plan_ = {};
      pair.plan_.reason = "the open flags cannot be read";
      pair.plan_.error = std::error_code(e, std::system_category());
    } else if (!si.readable() || !di.writable()) {
      pair.plan_ = {};
      pair.plan_.reason = si.readable() ? "the destination is not open for writing"
                                        : "the source is not open for reading";
      pair.plan_.error = std::error_code(EBADF, std::system_category());
    }
  }
  const auto keep = [](PreparedCopy::End& end, const FdInfo& info) {
    end.kind = static_cast<int>(info.kind);
    end.flags = info.flags;
    end.pseudo_fs = info.pseudo_fs;
    end.dev = static_cast<std::uint64_t>(info.st.st_dev);
    end.ino = static_cast<std::uint64_t>(info.st.st_ino);
  };
  keep(pair.src_, si);
  keep(pair.dst_, di);
  pair.same_file_ = si.same_file(di);
  return pair;
}

CopyResult copy_fd(const PreparedCopy& pair, const CopyOptions& options) {
  const int src = pair.src_.fd;
  const int dst = pair.dst_.fd;
  if (pair.plan_.error || pair.same_file_ || options.reflink || options.sparse) {
    return copy_fd(src, dst, options);
  }
  // A small file → file copy that this process makes by read and write
  // (ZEROLAB_COPY_SMALL_FILE, or the profile): at most kSmallFileCopy bytes
  // asked for (max_bytes; the source's size is not asked per copy), from
  // the descriptors' positions, on no forced path, is the plain loop.
  std::uint64_t already = 0;
  if (options.path == CopyPath::kAuto && options.src_offset < 0 && options.dst_offset < 0 &&
      options.max_bytes <= io::kSmallFileCopy &&
      pair.src_.kind == static_cast<int>(FdKind::kRegular) && !pair.src_.pseudo_fs &&
      pair.dst_.kind == static_cast<int>(FdKind::kRegular) &&
      io::small_file_path() == CopyPath::kReadWrite) {
    if (io::copy_small_file_loop(src, dst, options.max_bytes, already)) {
      return io::copied_by(already, CopyPath::kReadWrite);
    }
  }
  const auto restore = [](const PreparedCopy::End& end, FdInfo& info) {
    info.kind = static_cast<FdKind>(end.kind);
    info.flags = end.flags;
    info.flags_known = true;
    info.pseudo_fs = end.pseudo_fs;
    info.st.st_dev = static_cast<dev_t>(end.dev);
    info.st.st_ino = static_cast<ino_t>(end.ino);
    info.st.st_size = 0;  // not known now: the loops read to end of file
  };
  FdInfo si;
  FdInfo di;
  restore(pair.src_, si);
  restore(pair.dst_, di);
  if (already > 0) {
    return io::copy_inspected(src, dst, si, di, io::after(options, already), &pair.plan_,
                              CopyOptions::kNoLimit, already);
  }
  return io::copy_inspected(src, dst, si, di, options, &pair.plan_, CopyOptions::kNoLimit);
}

}  // namespace zerolab
