// src/io/copy_hints.hpp — the one-shot copy_fd (copy.hpp) with the
// per-thread hints. Each thread remembers the descriptor numbers of its
// last copy of a few kinds — file → file by copy_file_range (or by
// read/write as the small file → file path), into a stream socket, and a
// small copy with a pipe at one end or from a socket into a file — and
// starts the next copy between the same numbers with the one system call
// that copy took, which the kernel checks in full before it moves a byte
// (or after one check that keeps the guarantees, each hint says which).
// A hint that no longer holds costs that call: nothing moved, and the copy
// is inspected as usual (copy_inspected.hpp), which says why. Private to
// zerolab::io.
//
// Thread-safety: the hints are thread_local; nothing is shared.
//
// Example:
//   CopyResult r = copy_with_hints(src, dst, options);  // what copy_fd(src, dst, options) returns
#ifndef ZEROLAB_SRC_IO_COPY_HINTS_HPP_
#define ZEROLAB_SRC_IO_COPY_HINTS_HPP_

#include "zerolab/copy.hpp"

namespace zerolab::io {

// copy_fd(src, dst, options): on the thread's hint for the pair when it
// has one and it holds, else inspected; leaves the hints this copy gives.
CopyResult copy_with_hints(int src, int dst, const CopyOptions& options);

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPY_HINTS_HPP_
