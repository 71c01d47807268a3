// zerolab/copy.hpp — copies bytes from one file descriptor to another on the
// fastest path the pair of descriptor kinds allows, with no heap allocation
// per call once a thread has warmed up.
//
// copy_fd inspects both descriptors (statx of the type, size, device and
// inode; for a socket destination fed from a file, where its peer is) and
// takes, unless CopyOptions::path forces one:
//
//   pair                               path             why
//   regular file → regular file        copy_file_range  the copy stays in the kernel
//                                                       (FICLONE first with reflink)
//   regular file → regular file,       splice           copy_file_range there is the
//     1 MiB or more to copy, both on                    kernel's splice through a 64 KiB
//     ext2/3/4 or tmpfs                                 pipe; copy_fd's pipe holds up to
//                                                       1 MiB (copy_bench Race, ext4:
//                                                       copy_file_range took 1.10-1.16x
//                                                       its time at 1 MiB and 1 GiB)
//   regular file → pipe                sendfile         page references, no copy
//   regular file → stream socket,      sendfile         one call; at 16 KiB it beat
//     at most 128 KiB to copy                           splice and read/write (the peer
//                                                       is not asked)
//   regular file → AF_UNIX socket      splice           page references, no copy
//   regular file → TCP to this host    splice           measured fastest (copy_bench Race:
//                                                       read/write lost at 1 MiB, 1 GiB)
//   regular file → any other socket    sendfile         no user-space copy on a real NIC
//   stream socket → regular file       read_write       splice through a pipe took 1.13-
//                                                       1.74x its time at 1 GiB (copy_bench
//                                                       Race, Zen 5 guest); read/write beat
//                                                       it at 1 MiB on two VMs
//   pipe → file, pipe or socket →      splice           one copy fewer than read/write
//     pipe or socket
//   anything else (ttys, /proc, /sys)  read_write       the only path that always works
//
// "At most 128 KiB to copy" is min(max_bytes, the source's size); for a
// prepared pair (below) max_bytes alone. plan_copy() says the same without
// copying.
//
// The table is where each process starts. Which of sendfile, splice and
// read/write is fastest for a pair with a pipe or socket end depends on the
// kernel and the machine (copy_bench Race on one VM: splice from a pipe
// into a file took 1.3-1.8x the time of read/write, splice from a file
// into loopback TCP 1.47x at 1 MiB), so a process learns it per pair kind
// (the two CopyEnds): a copy expected to move at least 256 KiB (min(max_bytes, a
// file source's size); a pipe or socket source counts as unbounded) takes
// the kind's allowed paths in turn, the table's first, until each has
// finished 5 copies of at least 256 KiB; from then on such copies take
// the path with the smallest median time per byte, unless it beats the
// table's by less than 5%. A kind that never gets enough large samples
// keeps the table after 64 tries. The choice is reviewed, learned again
// the same way, after 64 copies taken on it, then after 4x as many each
// time (256, 1024, ...): on the Zen 5 VM a file → AF_UNIX kind's fastest
// path changed after its first copies (the peer's placement), and a
// process that never looked again kept the slower one (copy_bench Race
// 1 MiB, median of 9-12 runs: 0.70x of the fastest way without reviews,
// 0.98x with them). Copies below 256 KiB, file → file
// (copy_file_range stays in the kernel) and forced paths always follow the
// table. plan_copy() reports a learned choice with its reason. Small
// file → file copies (at most 128 KiB known to copy, inspected or on a
// prepared pair) learn the same way between copy_file_range and read/write
// from their first copies of at least 4 KiB (5 each): copy_file_range of
// 16 KiB took 1.2x the time of read + write on one VM and 0.8x on another.
// ZEROLAB_COPY_SMALL_FILE=copy_file_range or =read_write (read once) sets
// that choice instead. Each
// learning copy is a whole, exact copy_fd on an allowed path: what it
// costs is the time of a slower path for a few of the first large copies
// and of each review.
// Learning allocates nothing; a thread allocates its read/write buffer
// (128 KiB) the first time it takes read/write, whether the table, the
// learning or a hint (below: small socket → file copies) sent it there,
// and nothing per call after that.
// Set ZEROLAB_COPY_LEARN=0 in the environment (read once per process) to
// keep the table (and copy_file_range for small file → file copies)
// everywhere, so that two runs take the same paths.
//
// What a one-shot call costs on top of the transfer is the inspection: one
// statx per descriptor, SO_TYPE for a socket, getpeername for a socket fed
// more than 128 KiB from a file (getsockname too if the peer is not a
// loopback address), the open flags (fcntl) only where the first kernel
// call cannot check them, and a SIGPIPE mask (two calls) around
// sendfile/splice into a socket or any write into a pipe. Where a system
// call costs about 1 µs (a Firecracker VM with PTI: the 16 KiB copy itself
// is 2-3 µs), that is most of a small copy. File → file skips it when it
// can: each thread remembers the descriptor numbers of its last copy that
// copy_file_range finished file → file, and a copy between the same
// numbers starts with one copy_file_range of max_bytes (without a limit:
// of the source's size, one statx) before inspecting anything, when that
// is below 1 MiB (a larger copy is inspected: one fstatfs more says whether
// it splices). The kernel
// checks that call in full (both regular files, the destination not
// O_APPEND, two ranges of one file apart), so a number that names
// something else by now costs that one failed call, and copy_fd then
// inspects as usual; a short first copy within one file ends the copy at
// the size the file had, as the inspected copy does. A small copy into a
// stream socket skips most of it the same way: each thread also remembers
// the numbers of its last copy into a stream socket, and a copy between
// the same numbers with max_bytes at most 128 KiB (and no offsets or
// forced path) goes straight to sendfile under the SIGPIPE mask (3 calls
// where the inspected copy makes 6). sendfile refuses a source it cannot
// read (a pipe, a directory) and a destination not open for writing or
// O_APPEND before it moves a byte, and copy_fd then inspects as usual. A third
// memory does the same for small copies that splice (or sendfile) made
// with a pipe at one end, or from a stream socket into a file. The next
// such copy between the same numbers goes straight to its copy: into a
// pipe by splice under the SIGPIPE mask (3 calls where the inspected copy
// makes 5); from a pipe into a file by splice, and from a socket into a
// file (whose bytes cannot be put back once read) by read and write, each
// after a pwrite of no bytes that succeeds only on a file open for
// writing, never on a pipe or socket that could raise SIGPIPE (2 calls for
// 3, and 3 for 7). splice refuses a pair without a pipe or with a descriptor
// open the wrong way before it moves a byte, so a stale memory moves
// nothing it should not, and copy_fd inspects as usual. Other pairs
// have no such check, so a caller that copies between the
// same two descriptors again and again prepares the pair once
// (prepare_copy) and pays none of the inspection per call but the SIGPIPE
// mask; a prepared small file → file copy (max_bytes at most 128 KiB, from
// the descriptors' positions) where the process copies small files by
// read/write is the plain read/write loop itself. The copies on a memory
// and these prepared ones make their system calls directly and hand over
// to the general machinery only for what a plain loop does not handle
// (EAGAIN, EINTR, a short write, an error), with the bytes already moved.
// A path that declines on its first call (EXDEV, EINVAL, ...) falls back
// along the chain clone → copy_file_range → sendfile → read_write while
// nothing has been copied; a forced path never falls back.
//
// Guarantees on every path: sources are read to end of file (or
// max_bytes), never just to st_size, so files whose size lies (procfs,
// sysfs) or grows are copied whole; EINTR is retried and partial writes are
// looped; EAGAIN on a non-blocking descriptor waits with poll (up to
// CopyOptions::timeout); SIGPIPE never kills the caller (MSG_NOSIGNAL, or
// SIGPIPE blocked in the calling thread for the call and a raised one
// consumed): the copy fails with EPIPE instead. When a copy stops early
// (ENOSPC, EDQUOT, EIO, EPIPE, a timeout...), CopyResult::bytes is exactly
// what the destination received, and a seekable source's position is left
// just after those bytes.
//
// Thread-safety: copy_fd, copy_file, plan_copy and prepare_copy may be
// called from any number of threads at once (each thread has its own pipe
// cache and buffer; the learned paths are shared, a mutex per pair kind
// while it learns and one atomic load after); a PreparedCopy is read-only
// and can be shared. Two
// copies must not share a descriptor whose file position they use. Not
// async-signal-safe.
//
// Example:
//   int in = open("input.bin", O_RDONLY | O_CLOEXEC);
//   int out = open("output.bin", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
//   zerolab::CopyResult r = zerolab::copy_fd(in, out);
//   if (r.error) std::fprintf(stderr, "copy: %s\n", r.message.c_str());
//   // zerolab::to_string(r.path) == "copy_file_range"
//
//   zerolab::CopyOptions o;
//   o.path = zerolab::CopyPath::kSendfile;  // force a path (EINVAL if the pair has none such)
//   r = zerolab::copy_fd(in, socket_fd, o);
//
//   // Many copies between the same descriptors: inspect them once.
//   const zerolab::PreparedCopy pair = zerolab::prepare_copy(in, socket_fd);
//   zerolab::CopyOptions record;
//   record.src_offset = offset;  // per call, as in copy_fd(in, socket_fd, record)
//   record.max_bytes = 16384;
//   r = zerolab::copy_fd(pair, record);
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
// ("" when there are none): ZEROLAB_COPY_LEARN other than 0 or 1 (learning
// stays on), ZEROLAB_COPY_SMALL_FILE other than copy_file_range or
// read_write (small file → file copies learn). copy_fd never prints; the
// zerolab CLI warns with this once.
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
