// src/io/copy_inspected.hpp — the copy of a pair whose descriptors are
// inspected (FdInfo for each): the checks, the first path (forced, the file
// → file chain, or the pair's path from the profile or the table), the
// fallbacks while nothing has been copied, and the result. Everything
// copy_fd does that is not a per-thread hint (copy_hints.hpp). Private to
// zerolab::io.
//
// Thread-safety: one call per copy, on the calling thread.
//
// Example:
//   FdInfo si, di;
//   if (inspect_fd(src, si, true) == 0 && inspect_fd(dst, di, false) == 0)
//     r = copy_inspected(src, dst, si, di, options, nullptr, file_size(si));
#ifndef ZEROLAB_SRC_IO_COPY_INSPECTED_HPP_
#define ZEROLAB_SRC_IO_COPY_INSPECTED_HPP_

#include <cstdint>

#include "io/copier.hpp"
#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

// Everything copy_fd does once both descriptors are inspected. `known`: the
// pair's plan from prepare_copy (a socket's type and peer are not asked
// again), else nullptr. `size_hint`: the most the source can give
// (st_size), or kNoLimit when not known now; it only chooses a path.
// `already`: bytes copied before this call (a hinted first call), counted
// in the result.
CopyResult copy_inspected(int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& options,
                          const CopyPlan* known, std::uint64_t size_hint,
                          std::uint64_t already = 0);

// CopyOptions::timeout as Copier::timeout_ms (-1: none).
int timeout_ms_of(const CopyOptions& options);
// What a finished or stopped Copier reports.
CopyResult result_of(const Copier& c, int src, int dst, Step step);
// A copy that moved `bytes` along `path` and stopped where it should.
CopyResult copied_by(std::uint64_t bytes, CopyPath path);
// The options for the rest of a copy after `moved` bytes.
CopyOptions after(const CopyOptions& o, std::uint64_t moved);

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_INSPECTED_HPP_
