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

#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

// The kind of an inspected source descriptor (asks a socket's type).
CopyEnd source_end(int fd, FdInfo& info) noexcept;
// The kind of an inspected destination (asks a socket's type); asks where
// a socket's peer is only when `src` is a file (one system call, two for a
// non-loopback address). An O_APPEND file is kOther once its flags are
// known.
CopyEnd destination_end(int fd, FdInfo& info, CopyEnd src) noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_PLAN_HPP_
