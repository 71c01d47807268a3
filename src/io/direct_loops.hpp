// src/io/direct_loops.hpp — the copy itself without Copier's layers, for
// the per-thread hints (copy_hints.hpp) and a prepared small file → file
// copy: plain loops of splice, read/write and one copy_file_range that stop
// at the first thing they do not handle (EAGAIN, EINTR on a read, an error)
// and say how far they got, for Copier to go on from there, which waits,
// retries and reports as always. Private to zerolab::io.
//
// Thread-safety: on the calling thread; read_write_directly uses its buffer.
//
// Example:
//   std::uint64_t moved = 0;
//   if (splice_from_pipe_directly(pipe_fd, file_fd, 16384, moved)) return moved;
//   ... go on in Copier from `moved` ...
#ifndef ZEROLAB_SRC_IO_DIRECT_LOOPS_HPP_
#define ZEROLAB_SRC_IO_DIRECT_LOOPS_HPP_

#include <cstddef>
#include <cstdint>

#include "zerolab/copy.hpp"

namespace zerolab::io {

// splice from the pipe `src` into the file `dst` (checked: no SIGPIPE)
// up to max_bytes (at most kSmallIntoSocket, a hinted copy's): true when
// that many bytes or the pipe's end came, with `moved` the bytes spliced.
// The copy itself, without Copier's layers: copy_bench Floor, pipe → file
// 16 KiB, three runs each, the read/write loop's time over copy_fd's
// 0.90-0.91 through Copier, 0.95-0.97 this way (the checked splice in
// bare calls: 0.96-0.98). Anything else (EAGAIN on a non-blocking pipe,
// EINTR, an error) returns false for Copier to go on from `moved`, which
// waits, retries and reports as always. Nothing is lost on the way: splice
// moves the pipe's bytes straight into the file.
bool splice_from_pipe_directly(int src, int dst, std::uint64_t max_bytes,
                               std::uint64_t& moved) noexcept;

// How a direct read/write loop ended (read_write_directly).
struct DirectLoop {
  bool done = false;            // max_bytes or end of file: the copy is whole
  int write_error = 0;          // else a write failed with this errno (0: a read did)
  std::uint64_t unwritten = 0;  // bytes read for that write and not written
};

// read from `src` and write into the file `dst` through the thread's
// buffer, `chunk` bytes at a time, up to max_bytes: the copy itself,
// without Copier's layers (as splice_from_pipe_directly), for a hinted
// copy from a socket into a file and a prepared small file → file copy.
// `moved` counts the bytes written. A read that fails (EAGAIN on a
// non-blocking socket, EINTR, an error) stops with nothing held, for Copier
// to go on from `moved`; a write that fails stops with its errno and the
// bytes read for it (EINTR and short writes are retried; a write of 0 is
// EIO, as Copier says).
DirectLoop read_write_directly(int src, int dst, std::uint64_t max_bytes, std::size_t chunk,
                               std::uint64_t& moved) noexcept;

// A prepared small file → file copy (see copy_fd on a PreparedCopy) by
// the plain loop, read_write_directly: true when it copied to max_bytes or
// end of file, with `moved` the bytes written. The inspected copy makes the
// same calls, but through its layers the prepared 16 KiB copy took
// 0.90-0.91 of the loop's time (copy_bench Floor, three runs, Zen 5 guest),
// this way 0.97-0.98. On anything else it puts back on the source what it
// read and did not write and returns false: the inspected copy goes on from
// there, retries, and reports exactly as always.
bool copy_small_file_loop(int src, int dst, std::uint64_t max_bytes, std::uint64_t& moved) noexcept;

// One copy_file_range of `want` bytes at the options' offsets (or the file
// positions): the bytes moved, 0 if it declined or moved nothing.
std::uint64_t copy_file_range_once(int src, int dst, const CopyOptions& o, std::uint64_t want);

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_DIRECT_LOOPS_HPP_
