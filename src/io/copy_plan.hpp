// src/io/copy_plan.hpp — the CopyEnd of an inspected descriptor, for
// plan_copy's rule (copy.hpp). Private to zerolab::io.
//
// Thread-safety: pure functions of the descriptor.
//
// Example:
//   const CopyEnd s = source_end(src_info);
//   const CopyPlan plan = plan_copy(s, destination_end(dst, dst_info, s));
#ifndef ZEROLAB_SRC_IO_COPY_PLAN_HPP_
#define ZEROLAB_SRC_IO_COPY_PLAN_HPP_

#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

// The kind of an inspected source descriptor.
CopyEnd source_end(const FdInfo& info) noexcept;
// The kind of an inspected destination; asks where a socket's peer is only
// when `src` is a file (two system calls). An O_APPEND file is kOther once
// its flags are known.
CopyEnd destination_end(int fd, const FdInfo& info, CopyEnd src) noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_PLAN_HPP_
