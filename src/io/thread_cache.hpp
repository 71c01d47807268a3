// src/io/thread_cache.hpp — the per-thread resources copy_fd reuses so a
// copy allocates nothing after warm-up: up to two pipes for splice (sized
// with F_SETPIPE_SZ up to pipe-max-size, at most 1 MiB) and one read/write
// buffer. A pipe that may still hold data is closed, never put back; a
// child process of fork starts with no cached pipe (they are its parent's).
// Private to zerolab::io.
//
// Thread-safety: everything here belongs to the calling thread.
//
// Example:
//   PipeLease pipe = acquire_pipe();   // pipe.valid() unless pipe2 failed
//   ... splice through pipe.read_end()/pipe.write_end() ...
//   release_pipe(pipe, /*clean=*/true);
#ifndef ZEROLAB_SRC_IO_THREAD_CACHE_HPP_
#define ZEROLAB_SRC_IO_THREAD_CACHE_HPP_

#include <cstddef>

namespace zerolab::io {

constexpr std::size_t kBufferSize = std::size_t{128} << 10;
// read/write's chunk into a pipe or socket: a default pipe's capacity.
constexpr std::size_t kStreamChunk = std::size_t{64} << 10;

struct PipeLease {
  int fds[2] = {-1, -1};
  std::size_t capacity = 0;  // bytes the pipe holds
  int error = 0;             // errno of pipe2 when fds are -1
  bool valid() const noexcept { return fds[0] >= 0; }
};

// A pipe from the calling thread's cache, or a new one.
PipeLease acquire_pipe() noexcept;
// Returns the pipe to the cache if `clean` (empty) and there is room;
// otherwise closes it.
void release_pipe(PipeLease& pipe, bool clean) noexcept;

// The calling thread's buffer of kBufferSize bytes (allocated on first
// use), or nullptr if that allocation failed.
char* thread_buffer() noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_THREAD_CACHE_HPP_
