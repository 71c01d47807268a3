// The loops without Copier's layers (direct_loops.hpp).
#include "io/direct_loops.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "io/thread_cache.hpp"

namespace zerolab::io {

bool splice_from_pipe_directly(int src, int dst, std::uint64_t max_bytes,
                               std::uint64_t& moved) noexcept {
  while (moved < max_bytes) {
    const auto want = static_cast<std::size_t>(max_bytes - moved);
    const ssize_t n = ::splice(src, nullptr, dst, nullptr, want, SPLICE_F_MOVE);
    if (n == 0) return true;
    if (n < 0) return false;
    moved += static_cast<std::uint64_t>(n);
  }
  return true;
}

DirectLoop read_write_directly(int src, int dst, std::uint64_t max_bytes, std::size_t chunk,
                               std::uint64_t& moved) noexcept {
  DirectLoop end;
  char* buffer = thread_buffer();
  if (buffer == nullptr) return end;
  while (moved < max_bytes) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(max_bytes - moved, chunk));
    const ssize_t n = ::read(src, buffer, want);
    if (n == 0) break;
    if (n < 0) return end;
    for (std::size_t done = 0; done < static_cast<std::size_t>(n);) {
      const ssize_t m = ::write(dst, buffer + done, static_cast<std::size_t>(n) - done);
      if (m > 0) {
        done += static_cast<std::size_t>(m);
        moved += static_cast<std::uint64_t>(m);
      } else if (m == 0 || errno != EINTR) {
        end.write_error = m == 0 ? EIO : errno;
        end.unwritten = static_cast<std::size_t>(n) - done;
        return end;
      }
    }
  }
  end.done = true;
  return end;
}

bool copy_small_file_loop(int src, int dst, std::uint64_t max_bytes,
                          std::uint64_t& moved) noexcept {
  const DirectLoop end = read_write_directly(src, dst, max_bytes, kBufferSize, moved);
  if (end.unwritten > 0) lseek(src, -static_cast<off_t>(end.unwritten), SEEK_CUR);
  return end.done;
}

std::uint64_t copy_file_range_once(int src, int dst, const CopyOptions& o, std::uint64_t want) {
  loff_t src_pos = o.src_offset;
  loff_t dst_pos = o.dst_offset;
  ssize_t n;
  do {
    n = ::copy_file_range(src, src_pos >= 0 ? &src_pos : nullptr, dst,
                          dst_pos >= 0 ? &dst_pos : nullptr, static_cast<std::size_t>(want), 0);
  } while (n < 0 && errno == EINTR);
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

}  // namespace zerolab::io
