// src/io/copier.hpp — the state of one copy_fd call and the loop of each
// kernel path. Each loop copies from the current positions until end of
// file, the byte limit, or an error, keeping `written` exact. A loop whose
// very first call says the path does not apply to this pair returns
// Step::kFallback (nothing has been copied), and copy_fd tries the next
// path. Private to zerolab::io.
//
// Thread-safety: one Copier per call, on the calling thread.
//
// Example:
//   Copier c(src, dst, src_info, dst_info, options);
//   Step s = c.copy_file_range_loop();
//   if (s == Step::kFallback) s = c.read_write_loop();
#ifndef ZEROLAB_SRC_IO_COPIER_HPP_
#define ZEROLAB_SRC_IO_COPIER_HPP_

#include <sys/types.h>

#include <cstdint>

#include "io/fd_info.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::io {

enum class Step { kDone, kFallback, kError };

struct Copier {
  int src = -1;
  int dst = -1;
  const FdInfo* si = nullptr;
  const FdInfo* di = nullptr;
  // Explicit positions (CopyOptions offsets, or the sparse loop's own);
  // when the flag is off the descriptor's file position is used.
  bool src_positional = false;
  bool dst_positional = false;
  loff_t src_pos = 0;
  loff_t dst_pos = 0;
  std::uint64_t remaining = CopyOptions::kNoLimit;  // bytes still allowed
  std::uint64_t written = 0;                        // bytes the destination received
  int timeout_ms = -1;
  CopyPath path = CopyPath::kNone;
  // On Step::kError: the errno and the call that failed.
  int error = 0;
  const char* failed_call = "";
  // Bytes read from the source but not written (read/write, or splice
  // through copy_fd's pipe); copy_fd seeks a seekable, non-positional
  // source back by this much.
  std::uint64_t unwritten = 0;
  // On Step::kFallback: the errno with which the path declined (EINVAL
  // when it does not apply), for a forced path's error.
  int declined = 0;
  // copy_file_range's first call returned 0: the source may be a file whose
  // size lies; copy_fd goes straight to read/write, which finds out.
  bool zero_first = false;

  loff_t* src_off() noexcept { return src_positional ? &src_pos : nullptr; }
  loff_t* dst_off() noexcept { return dst_positional ? &dst_pos : nullptr; }

  Step clone();                 // FICLONE (whole file; kFallback if it does not apply)
  Step copy_file_range_loop();  // regular → regular
  Step sendfile_loop();         // regular → anything sendfile accepts
  Step splice_loop();           // pipe or socket → regular, pipe or socket
  Step read_write_loop();       // anything
  Step sparse_loop();           // regular → regular, holes kept

  // True once a regular source whose st_size is not a pseudo filesystem's
  // lie has given st_size bytes (`moved` by this loop from where it
  // started, or src_pos when positional): the loop stops without the call
  // that would return 0 at end of file.
  bool source_exhausted(std::uint64_t moved) const noexcept;
  // Counts `n` bytes the destination received.
  void count(std::uint64_t n) noexcept {
    written += n;
    remaining -= n;
  }
  // The same for a loop that tracks what it `moved`; true once
  // source_exhausted(moved).
  bool count(std::uint64_t n, std::uint64_t& moved) noexcept;
  // Records a stop with `err` from `call`, or with `declines` (the first
  // call said the path does not apply) sets `declined` for a fallback.
  Step decline_or_fail(int err, bool declines, const char* call) noexcept;
  // Records a stop with `err` from `call`.
  Step fail(int err, const char* call) noexcept;
  // Waits until `fd` is ready for `events` (POLLIN/POLLOUT); 0 or ETIMEDOUT
  // or the errno of poll.
  int wait(int fd, short events) const noexcept;
  // Waits for whichever of the two ends may have caused an EAGAIN.
  int wait_both() const noexcept;
  // Writes all of [data, data+size) to dst; adds to `written`.
  int write_all(const char* data, std::size_t size) noexcept;
};

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_COPIER_HPP_
