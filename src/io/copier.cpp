// The loop of each kernel path copy_fd can take (copier.hpp).
#include "io/copier.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "io/monotonic.hpp"
#include "io/thread_cache.hpp"

namespace zerolab::io {
namespace {

// copy_file_range rounds: large, but far from ssize_t overflow (Go and
// coreutils use similar caps).
constexpr std::uint64_t kCopyFileRangeChunk = std::uint64_t{1} << 30;
// The most sendfile and splice move in one call on Linux.
constexpr std::uint64_t kSendfileChunk = 0x7ffff000;

// Errors of a first copy_file_range call that mean "not for this pair":
// old kernels (ENOSYS), cross-filesystem (EXDEV), unsupported files
// (EINVAL, EOPNOTSUPP), seccomp/containers (EPERM), swap files (ETXTBSY),
// CIFS and FUSE oddities (EIO, ENOENT), O_APPEND destinations (EBADF).
bool copy_file_range_declines(int err) noexcept {
  switch (err) {
    case ENOSYS:
    case EXDEV:
    case EINVAL:
    case EOPNOTSUPP:
    case EPERM:
    case ETXTBSY:
    case EIO:
    case ENOENT:
    case EBADF:
      return true;
    default:
      return false;
  }
}

bool sendfile_or_splice_declines(int err) noexcept {
  return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP;
}

bool may_eagain(const FdInfo& info) noexcept {
  return info.kind == FdKind::kPipe || info.socket() || info.kind == FdKind::kOther;
}

std::int64_t now_ms() noexcept {
  return monotonic_ns() / 1000000;
}

}  // namespace

Step Copier::decline_or_fail(int err, bool declines, const char* call) noexcept {
  if (!declines) return fail(err, call);
  declined = err;
  return Step::kFallback;
}

Step Copier::fail(int err, const char* call) noexcept {
  error = err;
  failed_call = call;
  return Step::kError;
}

int Copier::wait(int fd, short events) const noexcept {
  const std::int64_t deadline = timeout_ms < 0 ? 0 : now_ms() + timeout_ms;
  for (;;) {
    int left = -1;
    if (timeout_ms >= 0) left = static_cast<int>(std::max<std::int64_t>(0, deadline - now_ms()));
    pollfd p{fd, events, 0};
    const int r = poll(&p, 1, left);
    if (r > 0) return 0;  // ready, or an error/hang-up the next call reports
    if (r == 0) return ETIMEDOUT;
    if (errno != EINTR) return errno;
  }
}

int Copier::wait_both() const noexcept {
  if (may_eagain(*si)) {
    if (int e = wait(src, POLLIN); e != 0) return e;
  }
  if (may_eagain(*di)) return wait(dst, POLLOUT);
  return 0;
}

int Copier::write_all(const char* data, std::size_t size) noexcept {
  const bool socket = di->socket();
  while (size > 0) {
    ssize_t m;
    if (socket) {
      m = send(dst, data, size, MSG_NOSIGNAL);
    } else if (dst_positional) {
      m = pwrite(dst, data, size, dst_pos);
    } else {
      m = write(dst, data, size);
    }
    if (m > 0) {
      const auto done = static_cast<std::size_t>(m);
      data += done;
      size -= done;
      count(done);
      if (dst_positional) dst_pos += m;
      continue;
    }
    if (m == 0) return EIO;  // a write that makes no progress
    const int e = errno;
    if (e == EINTR) continue;
    if (e == EAGAIN || e == EWOULDBLOCK) {
      if (int w = wait(dst, POLLOUT); w != 0) return w;
      continue;
    }
    return e;
  }
  return 0;
}

Step Copier::clone() {
  if (si->kind != FdKind::kRegular || di->kind != FdKind::kRegular || si->pseudo_fs ||
      di->append() || si->st.st_size <= 0 || di->st.st_size != 0 ||
      remaining < static_cast<std::uint64_t>(si->st.st_size)) {
    declined = EINVAL;
    return Step::kFallback;
  }
  const loff_t s = src_positional ? src_pos : lseek(src, 0, SEEK_CUR);
  const loff_t d = dst_positional ? dst_pos : lseek(dst, 0, SEEK_CUR);
  if (s != 0 || d != 0) {
    declined = EINVAL;
    return Step::kFallback;
  }
  if (ioctl(dst, FICLONE, src) != 0) {  // EOPNOTSUPP, EXDEV, ...
    declined = errno;
    return Step::kFallback;
  }
  const loff_t size = si->st.st_size;
  count(static_cast<std::uint64_t>(size));
  if (src_positional)
    src_pos += size;
  else
    lseek(src, size, SEEK_SET);
  if (dst_positional)
    dst_pos += size;
  else
    lseek(dst, size, SEEK_SET);
  return Step::kDone;
}

bool Copier::count(std::uint64_t n, std::uint64_t& moved) noexcept {
  count(n);
  moved += n;
  return source_exhausted(moved);
}

bool Copier::source_exhausted(std::uint64_t moved) const noexcept {
  if (si->kind != FdKind::kRegular || si->pseudo_fs || si->st.st_size <= 0) return false;
  return src_positional ? src_pos >= si->st.st_size
                        : moved >= static_cast<std::uint64_t>(si->st.st_size);
}

Step Copier::copy_file_range_loop() {
  bool first = true;
  std::uint64_t moved = 0;
  while (remaining > 0) {
    const auto chunk = static_cast<std::size_t>(std::min(remaining, kCopyFileRangeChunk));
    const ssize_t n = ::copy_file_range(src, src_off(), dst, dst_off(), chunk, 0);
    if (n > 0) {
      first = false;
      if (count(static_cast<std::uint64_t>(n), moved)) break;
      continue;
    }
    if (n == 0) {
      if (first) {
        zero_first = true;
        return Step::kFallback;
      }
      return Step::kDone;
    }
    const int e = errno;
    if (e == EINTR) continue;
    return decline_or_fail(e, first && copy_file_range_declines(e), "copy_file_range");
  }
  return Step::kDone;
}

Step Copier::sendfile_loop() {
  bool first = true;
  std::uint64_t moved = 0;
  while (remaining > 0) {
    const auto chunk = static_cast<std::size_t>(std::min(remaining, kSendfileChunk));
    const ssize_t n = ::sendfile(dst, src, src_positional ? &src_pos : nullptr, chunk);
    if (n > 0) {
      first = false;
      if (count(static_cast<std::uint64_t>(n), moved)) break;
      continue;
    }
    if (n == 0) {
      if (first && si->st.st_size == 0) return Step::kFallback;  // let a read decide
      return Step::kDone;
    }
    const int e = errno;
    if (e == EINTR) continue;
    if (e == EAGAIN || e == EWOULDBLOCK) {
      if (int w = wait(dst, POLLOUT); w != 0) return fail(w, "poll");
      continue;
    }
    return decline_or_fail(e, first && sendfile_or_splice_declines(e), "sendfile");
  }
  return Step::kDone;
}

Step Copier::splice_loop() {
  bool first = true;
  if (si->kind == FdKind::kPipe || di->kind == FdKind::kPipe) {
    // One end is a pipe: splice moves the data directly.
    while (remaining > 0) {
      const auto chunk = static_cast<std::size_t>(std::min(remaining, kSendfileChunk));
      const ssize_t n = ::splice(src, src_off(), dst, dst_off(), chunk, SPLICE_F_MOVE);
      if (n > 0) {
        count(static_cast<std::uint64_t>(n));
        first = false;
        continue;
      }
      if (n == 0) return Step::kDone;
      const int e = errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {
        if (int w = wait_both(); w != 0) return fail(w, "poll");
        continue;
      }
      return decline_or_fail(e, first && sendfile_or_splice_declines(e), "splice");
    }
    return Step::kDone;
  }

  // Neither end is a pipe: source → our pipe → destination. The pipe is
  // drained completely before the next fill, so splicing into it never
  // blocks on a full pipe, nor out of it on an empty one.
  PipeLease pipe = acquire_pipe();
  if (!pipe.valid()) {
    declined = pipe.error;
    return Step::kFallback;
  }
  bool clean = true;
  Step step = Step::kDone;
  while (remaining > 0 && step == Step::kDone) {
    const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, pipe.capacity));
    const ssize_t n = ::splice(src, src_off(), pipe.fds[1], nullptr, chunk, SPLICE_F_MOVE);
    if (n == 0) break;  // end of file
    if (n < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {
        if (int w = wait(src, POLLIN); w != 0) step = fail(w, "poll");
        continue;
      }
      step = decline_or_fail(e, first && sendfile_or_splice_declines(e), "splice");
      continue;
    }
    first = false;
    auto in_pipe = static_cast<std::size_t>(n);
    while (in_pipe > 0) {
      const ssize_t m = ::splice(pipe.fds[0], nullptr, dst, dst_off(), in_pipe, SPLICE_F_MOVE);
      if (m > 0) {
        in_pipe -= static_cast<std::size_t>(m);
        count(static_cast<std::uint64_t>(m));
        continue;
      }
      const int e = m == 0 ? EIO : errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {
        if (int w = wait(dst, POLLOUT); w == 0)
          continue;
        else
          step = fail(w, "poll");
      } else {
        step = fail(e, "splice");
      }
      clean = false;        // the pipe still holds the bytes that were not written
      unwritten = in_pipe;  // read from the source: copy_fd seeks a file back
      break;
    }
  }
  release_pipe(pipe, clean);
  return step;
}

Step Copier::read_write_loop() {
  char* buffer = thread_buffer();
  if (buffer == nullptr) return fail(ENOMEM, "malloc");
  // A write larger than a pipe holds (64 KiB unless resized) blocks halfway
  // and wakes the reader twice: into a pipe or a socket, 64 KiB at a time
  // (copy_bench Race file → pipe at 1 MiB: the 128 KiB chunks took
  // 1.33-1.39x the time of a 64 KiB loop). From a socket too: TCP → file
  // at 1 GiB, 128 KiB reads took 1.02-1.15x the time of the 64 KiB loop's
  // (three Race runs each on the Zen 5 guest), 64 KiB ones 0.99-1.01x.
  const bool stream = di->kind == FdKind::kPipe || di->socket() || si->socket();
  const std::size_t chunk = stream ? kStreamChunk : kBufferSize;
  while (remaining > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, chunk));
    const ssize_t n = src_positional ? pread(src, buffer, want, src_pos) : read(src, buffer, want);
    if (n == 0) break;
    if (n < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {
        if (int w = wait(src, POLLIN); w != 0) return fail(w, "poll");
        continue;
      }
      return fail(e, "read");
    }
    const std::uint64_t before = written;
    const int e = write_all(buffer, static_cast<std::size_t>(n));
    const std::uint64_t moved = written - before;
    if (src_positional) src_pos += static_cast<loff_t>(moved);
    if (e != 0) {
      unwritten = static_cast<std::uint64_t>(n) - moved;
      return fail(e, "write");
    }
  }
  return Step::kDone;
}

Step Copier::sparse_loop() {
  const bool src_was_positional = src_positional;
  const bool dst_was_positional = dst_positional;
  if (!src_positional) src_pos = lseek(src, 0, SEEK_CUR);
  if (!dst_positional) dst_pos = lseek(dst, 0, SEEK_CUR);
  if (src_pos < 0 || dst_pos < 0) return Step::kFallback;
  src_positional = dst_positional = true;

  const loff_t size = si->st.st_size;
  const loff_t end = src_pos >= size
                         ? src_pos
                         : src_pos + static_cast<loff_t>(std::min<std::uint64_t>(
                                         remaining, static_cast<std::uint64_t>(size - src_pos)));
  bool use_copy_file_range = true;
  path = CopyPath::kCopyFileRange;
  Step step = Step::kDone;
  while (src_pos < end) {
    loff_t data = lseek(src, src_pos, SEEK_DATA);
    if (data < 0) data = errno == ENXIO ? end : src_pos;  // ENXIO: a hole up to EOF
    data = std::min(data, end);
    const auto hole_bytes = static_cast<std::uint64_t>(data - src_pos);
    count(hole_bytes);  // the destination reads them as zeros
    dst_pos += data - src_pos;
    src_pos = data;
    if (src_pos >= end) break;
    loff_t hole = lseek(src, data, SEEK_HOLE);
    if (hole < 0 || hole > end) hole = end;
    const std::uint64_t outer_remaining = remaining;
    const auto segment = static_cast<std::uint64_t>(hole - data);
    remaining = segment;
    const std::uint64_t before = written;
    if (use_copy_file_range) {
      step = copy_file_range_loop();
      if (step == Step::kFallback) {
        use_copy_file_range = false;
        path = CopyPath::kReadWrite;
      }
    }
    if (!use_copy_file_range) step = read_write_loop();
    remaining = outer_remaining - (written - before);
    if (step == Step::kError) break;
    if (written - before < segment) break;  // the file shrank
  }
  // A trailing hole (or one before the error) exists only once the size
  // covers it.
  struct stat st {};
  if (fstat(dst, &st) == 0 && st.st_size < dst_pos && ftruncate(dst, dst_pos) != 0 &&
      step != Step::kError) {
    step = fail(errno, "ftruncate");
  }
  src_positional = src_was_positional;
  dst_positional = dst_was_positional;
  if (!src_positional) lseek(src, src_pos, SEEK_SET);
  if (!dst_positional) lseek(dst, dst_pos, SEEK_SET);
  unwritten = 0;  // the source position is already exact
  return step;
}

}  // namespace zerolab::io
