// zerolab/copy.hpp — copies bytes from one file descriptor to another on the
// cheapest path the pair of descriptor kinds allows, with no heap allocation
// per call once a thread has made one copy of the kind.
//
// Example:
//   int in = open("input.bin", O_RDONLY | O_CLOEXEC);
//   int out = open("output.bin", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
//   zerolab::CopyResult r = zerolab::copy_fd(in, out);
//   if (!r) std::fprintf(stderr, "copy: %s\n", r.message.c_str());  // names fd and call
//   std::puts(zerolab::plan_copy(in, out).reason);                   // why that path
//
//   const zerolab::PreparedCopy pair = zerolab::prepare_copy(in, sock);  // inspect once
//   zerolab::CopyOptions record;
//   record.src_offset = offset;    // pread-style: in's position stays
//   record.max_bytes = 16384;
//   r = zerolab::copy_fd(pair, record);
//
//   zerolab::CopyOptions o;
//   o.path = zerolab::CopyPath::kSendfile;  // force one path (EINVAL if the pair has none such)
//   r = zerolab::copy_fd(in, sock, o);
//
// The path (plan_copy; docs/copy_fd.md has the measurements):
//
//   regular file → regular file           copy_file_range (FICLONE first with reflink)
//   regular file → pipe                   sendfile
//   regular file → stream socket, ≤128 KiB sendfile (one call)
//   regular file → AF_UNIX, loopback TCP  splice
//   regular file → any other socket       sendfile
//   stream socket → regular file          read_write
//   pipe → anything; anything → pipe      splice
//   anything else (ttys, /proc, /sys)     read_write
//
// Where a pair allows more than one path, the machine profile that `zerolab
// calibrate` writes (calibrate.hpp) may name another for copies of 256 KiB
// or more of that pair kind (file → file: splice through copy_fd's pipe,
// from 1 MiB, on ext2/3/4 and tmpfs only), and read/write for small file →
// file copies. It is read once per process and used only on the machine it
// was measured on. Nothing is timed during a copy: the same profile gives
// the same paths in every process. A path that declines on its first call
// (EXDEV, EINVAL, ...) falls back along clone → copy_file_range → sendfile
// → read_write while nothing has been copied; CopyOptions::path forces one
// path, which never falls back. Each thread remembers the numbers of its
// last pair of a few kinds and starts the next copy between them with the
// one call that copy took, which the kernel checks in full first.
//
// Environment, read once: ZEROLAB_COPY_PROFILE=0 leaves the profile unread
// (the table everywhere); ZEROLAB_COPY_SMALL_FILE=copy_file_range|read_write
// sets the small file → file path. copy_environment_errors() names bad values.
//
// Guarantees on every path: sources are read to end of file (or max_bytes),
// never just to st_size; EINTR is retried and partial writes looped; EAGAIN
// waits with poll (up to CopyOptions::timeout); SIGPIPE never kills the
// caller (the copy fails with EPIPE); when a copy stops early (ENOSPC,
// EPIPE, a timeout...) CopyResult::bytes is exactly what the destination
// received and a seekable source is left just after those bytes.
//
// Thread-safety: any number of threads (each has its own pipe and buffer);
// a PreparedCopy is read-only and can be shared; two copies must not share
// a descriptor whose file position they use. Not async-signal-safe.
#ifndef ZEROLAB_COPY_HPP_
#define ZEROLAB_COPY_HPP_

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace zerolab {

// A way to move the bytes (in results: the last one tried).
enum class CopyPath {
  kNone,           // nothing was attempted (bad input)
  kClone,          // ioctl FICLONE: the destination shares the source's extents
  kCopyFileRange,  // copy_file_range(2)
  kSendfile,       // sendfile(2)
  kSplice,         // splice(2), directly or through a per-thread pipe
  kReadWrite,      // read(2)/write(2) through a per-thread buffer
  kAuto,           // in CopyOptions only: let copy_fd choose
};

// "none", "clone", "copy_file_range", "sendfile", "splice", "read_write", "auto".
std::string_view to_string(CopyPath path) noexcept;

// What a descriptor is, as far as the choice of path goes.
enum class CopyEnd {
  kFile,            // a regular file whose st_size is true
  kPipe,            // a pipe or FIFO
  kUnixStream,      // an AF_UNIX stream socket
  kLoopbackStream,  // a TCP socket whose peer is on this host
  kRemoteStream,    // any other stream socket (TCP to another host, ...)
  kOther,           // ttys, character devices, datagram sockets, procfs/sysfs files
};

// The paths a pair allows and the one copy_fd takes.
struct CopyPlan {
  CopyPath path = CopyPath::kNone;  // the first path copy_fd tries; kNone: refused
  unsigned allowed = 0;             // bit (1u << int(p)) for each path p the pair allows
  const char* reason = "";          // why `path` (or why refused); a static string
  std::error_code error;            // why refused, when a descriptor could not be inspected
  CopyEnd src = CopyEnd::kOther;    // the kinds the plan is for
  CopyEnd dst = CopyEnd::kOther;

  bool allows(CopyPath p) const noexcept {
    return ((allowed >> static_cast<unsigned>(p)) & 1u) != 0;
  }
};

// The rule of the table above for two kinds of descriptor.
CopyPlan plan_copy(CopyEnd src, CopyEnd dst) noexcept;

struct CopyOptions {
  static constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

  // Copy at most this many bytes (Go's io.LimitedReader); kNoLimit: to EOF.
  std::uint64_t max_bytes = kNoLimit;
  // >= 0: read the source from this offset with pread-style calls, leaving
  // its file position alone; < 0: read from (and advance) the file position.
  // REQUIRES: >= 0 only for seekable sources.
  std::int64_t src_offset = -1;
  // The same for the destination. REQUIRES: not with an O_APPEND destination.
  std::int64_t dst_offset = -1;
  // How long to wait for a non-blocking descriptor to become ready, each
  // time it would block; < 0: no limit. On expiry the copy stops with
  // std::errc::timed_out.
  std::chrono::milliseconds timeout{-1};
  // Try FICLONE first (regular → regular, whole file into an empty
  // destination at offset 0): the copy shares storage on btrfs/XFS.
  bool reflink = false;
  // Regular → regular: skip the source's holes (SEEK_DATA/SEEK_HOLE) so
  // they stay holes in the destination. REQUIRES: the destination range
  // reads as zeros already (an empty or freshly truncated file).
  bool sparse = false;
  // kAuto: copy_fd chooses (plan_copy). Any other path is taken alone, with
  // no fallback; a pair that does not allow it fails with EINVAL before a
  // byte moves, a kernel that declines it fails with the kernel's errno.
  CopyPath path = CopyPath::kAuto;
};

struct CopyResult {
  std::uint64_t bytes = 0;  // bytes the destination received
  CopyPath path = CopyPath::kNone;
  std::error_code error;  // empty on success
  std::string message;    // empty on success; else names the descriptor and the reason

  explicit operator bool() const noexcept { return !error; }
};

// What copy_fd(src, dst, options) would do, without copying (reads the
// descriptors' kinds; path kNone and the reason if it would refuse them).
CopyPlan plan_copy(int src, int dst, const CopyOptions& options = {});

// The copy_fd settings in the environment that are ignored because their
// value is not one copy_fd knows, as "NAME=value: why", joined by "; "
// ("" when there are none): ZEROLAB_COPY_PROFILE other than 0 or 1 (the
// profile stays read), ZEROLAB_COPY_SMALL_FILE other than copy_file_range
// or read_write (the profile or copy_file_range decides). copy_fd never
// prints; the zerolab CLI warns with this once.
std::string copy_environment_errors();

// Copies from `src` to `dst` until end of file, options.max_bytes, or an
// error. Allocates nothing on the heap on success once the calling thread
// has made one copy of the same kind.
CopyResult copy_fd(int src, int dst, const CopyOptions& options = {});

// A pair of descriptors inspected once, for many copies between them
// (prepare_copy). It holds no resource: copying or dropping it closes
// nothing.
class PreparedCopy {
 public:
  int src() const noexcept { return src_.fd; }
  int dst() const noexcept { return dst_.fd; }
  // The pair's plan with default options; path kNone, the error and the
  // reason when prepare_copy refused the pair (copy_fd then says why).
  const CopyPlan& plan() const noexcept { return plan_; }
  explicit operator bool() const noexcept { return !plan_.error; }

 private:
  friend PreparedCopy prepare_copy(int src, int dst);
  friend CopyResult copy_fd(const PreparedCopy& pair, const CopyOptions& options);
  struct End {  // what prepare_copy learned about one descriptor
    int fd = -1;
    int kind = 0;            // io::FdKind
    int flags = 0;           // fcntl(F_GETFL)
    bool pseudo_fs = false;  // a regular file on procfs, sysfs, ...
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
    std::int64_t size = 0;  // at prepare time: chooses a path, never ends a copy
  };
  End src_;
  End dst_;
  CopyPlan plan_;
  bool same_file_ = false;
};

// Inspects `src` and `dst` as copy_fd does (statx, a socket's type and
// peer, both open flags, and whether a regular source is on a pseudo
// filesystem): 4 to 8 system calls, once. REQUIRES, while the result is used:
// neither descriptor is closed (its number could name another file, whose
// kind the pair would not know: a pipe where a file was would get no
// SIGPIPE mask), and the destination's O_APPEND is not switched with
// fcntl(F_SETFL).
PreparedCopy prepare_copy(int src, int dst);

// copy_fd(pair.src(), pair.dst(), options) without inspecting the
// descriptors again: same paths, same guarantees, same CopyResult. The
// copy reads the source to end of file or options.max_bytes (the size seen
// by prepare_copy only helps choose a path). A refused pair, a source and
// destination that are one file, options.reflink and options.sparse take
// the one-shot copy_fd (they need the sizes of now).
CopyResult copy_fd(const PreparedCopy& pair, const CopyOptions& options = {});

// Copies the regular file `from` to `to` as `cp` would: creates or truncates
// `to`, copies the contents with copy_fd (reflink, sparse, path and
// max_bytes apply; the offsets are ignored), then gives `to` the permission
// bits of `from`. A destination created by this call is removed again if
// the copy fails. REQUIRES: `from` names a regular file.
CopyResult copy_file(const char* from, const char* to, const CopyOptions& options = {});
CopyResult copy_file(const std::string& from, const std::string& to,
                     const CopyOptions& options = {});

}  // namespace zerolab

#endif  // ZEROLAB_COPY_HPP_
