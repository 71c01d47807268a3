// copy_fd's entry points: inspects the descriptors, runs the checks
// (copy_checks.hpp), takes the path for the pair (copy_plan.hpp,
// path_choice.hpp) through the loops (copier.hpp), falls back along the
// chain while nothing has been copied, and keeps the per-thread hints that
// let the next copy between the same numbers skip the inspection (copy.hpp).
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>

#include "io/copier.hpp"
#include "io/copy_checks.hpp"
#include "io/copy_plan.hpp"
#include "io/fd_info.hpp"
#include "io/path_choice.hpp"
#include "io/thread_cache.hpp"
#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

using io::Copier;
using io::FdInfo;
using io::FdKind;
using io::Step;

using io::bad_fd;
using io::bad_input;
using io::check_pair;
using io::fd_name;
using io::load_and_check_flags;
using io::SigpipeGuard;

// The rule's plan for a pair that is not file → file.
CopyPlan auto_plan(int src, int dst, FdInfo& si, FdInfo& di) {
  const CopyEnd src_end = io::source_end(src, si);
  return plan_copy(src_end, io::destination_end(dst, di, src_end));
}

// Runs the one path `path` (allowed for the pair). A path that declines
// fails with the kernel's errno; one that declines because the source was
// empty (declined == 0) copied everything there was.
Step run_forced(Copier& c, CopyPath path) {
  c.path = path;
  Step step = Step::kFallback;
  const char* call = "";
  switch (path) {
    case CopyPath::kClone:
      step = c.clone();
      call = "ioctl(FICLONE)";
      break;
    case CopyPath::kCopyFileRange:
      step = c.copy_file_range_loop();
      call = "copy_file_range";
      break;
    case CopyPath::kSendfile:
      step = c.sendfile_loop();
      call = "sendfile";
      break;
    case CopyPath::kSplice:
      step = c.splice_loop();
      call = "splice";
      break;
    case CopyPath::kReadWrite:
      return c.read_write_loop();
    case CopyPath::kNone:
    case CopyPath::kAuto:
      break;
  }
  if (step != Step::kFallback) return step;
  return c.declined == 0 ? Step::kDone : c.fail(c.declined, call);
}

// CopyOptions::timeout as Copier::timeout_ms (-1: none).
int timeout_ms_of(const CopyOptions& options) {
  return options.timeout.count() < 0
             ? -1
             : static_cast<int>(std::min<std::int64_t>(options.timeout.count(), 1 << 30));
}

// What a finished or stopped Copier reports.
CopyResult result_of(const Copier& c, int src, int dst, Step step) {
  CopyResult r;
  r.bytes = c.written;
  r.path = c.path;
  if (step == Step::kError) {
    r.error = std::error_code(c.error, std::system_category());
    r.message =
        std::string(c.failed_call) + " from " + fd_name("source", src) + " to " +
        fd_name("destination", dst) + ": " +
        (c.error == ETIMEDOUT ? std::string("timed out waiting for a non-blocking descriptor")
                              : std::system_category().message(c.error)) +
        " (after " + std::to_string(c.written) + " bytes)";
  }
  return r;
}

// A copy that moved `bytes` along `path` and stopped where it should.
CopyResult copied_by(std::uint64_t bytes, CopyPath path) {
  CopyResult r;
  r.bytes = bytes;
  r.path = path;
  return r;
}

// Everything copy_fd does once both descriptors are inspected. `known`: the
// pair's plan from prepare_copy (a socket's type and peer are not asked
// again), else nullptr. `size_hint`: the most the source can give
// (st_size), or kNoLimit when not known now; it only chooses a path.
CopyResult copy_inspected(int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& options,
                          const CopyPlan* known, std::uint64_t size_hint,
                          std::uint64_t already = 0) {
  const bool forced = options.path != CopyPath::kAuto;
  const bool src_file = si.kind == FdKind::kRegular && !si.pseudo_fs;
  // The first path: forced, the file → file chain, sendfile for a small
  // copy into a stream socket, or the rule for the pair (an O_APPEND
  // destination is seen as a file until its flags are read).
  // A large copy takes the machine profile's path for the pair kind, when
  // it has one (path_choice.hpp).
  CopyPath first = options.path;
  const std::uint64_t expected = io::expected_bytes(si, options.max_bytes, size_hint);
  if (!forced && !(src_file && di.kind == FdKind::kRegular)) {
    if (io::small_into_socket(si, di, expected)) {
      first = io::small_into_socket_path(dst, di);
    } else {
      first = io::path_for(known != nullptr ? *known : auto_plan(src, dst, si, di), expected);
    }
  }
  // The open flags cost a system call per descriptor, so they are read up
  // front only where needed. The first call of copy_file_range, sendfile
  // and a splice with a pipe at one end checks both descriptors before it
  // moves a byte, and a read from a regular source whose write fails is
  // undone by seeking back: there a bad mode shows up as EBADF with nothing
  // written, and the flags are read then, to say which descriptor. O_APPEND
  // destinations make copy_file_range, sendfile and splice decline, and
  // read/write appends.
  const bool checked_by_first_call =
      si.kind == FdKind::kRegular ||
      (first == CopyPath::kSplice && (si.kind == FdKind::kPipe || di.kind == FdKind::kPipe));
  const bool lazy_flags = checked_by_first_call && !forced && !si.same_file(di) &&
                          options.dst_offset < 0 && !options.reflink && !options.sparse;
  if (!lazy_flags) {
    if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) return bad;
    if (!forced && known == nullptr && di.kind == FdKind::kRegular && di.append()) {
      first = io::path_for(auto_plan(src, dst, si, di), expected);
    }
  }
  const bool dst_file = di.kind == FdKind::kRegular && !di.append();

  Copier c;
  c.src = src;
  c.dst = dst;
  c.si = &si;
  c.di = &di;
  c.written = already;
  c.remaining = options.max_bytes;
  if (CopyResult bad = check_pair(src, dst, si, di, options, c); bad.error) return bad;
  c.src_positional = options.src_offset >= 0;
  c.dst_positional = options.dst_offset >= 0;
  c.src_pos = c.src_positional ? options.src_offset : 0;
  c.dst_pos = c.dst_positional ? options.dst_offset : 0;
  c.timeout_ms = timeout_ms_of(options);

  // SIGPIPE can come from any write into a pipe, and from sendfile and
  // splice into a socket; read_write sends to sockets with MSG_NOSIGNAL.
  SigpipeGuard guard(di.kind == FdKind::kPipe || (di.socket() && first != CopyPath::kReadWrite));

  Step step = Step::kFallback;
  if (forced) {
    CopyPlan plan;
    if (known != nullptr) {
      plan = *known;
    } else {
      const CopyEnd src_end = io::source_end(src, si);
      plan = plan_copy(src_end, io::destination_end(dst, di, src_end));
    }
    if (!plan.allows(options.path)) {
      guard.finish(false);
      return bad_input(EINVAL, fd_name("source", src) + " to " + fd_name("destination", dst) +
                                   ": CopyOptions::path " + std::string(to_string(options.path)) +
                                   " is not a path this pair allows");
    }
    step = run_forced(c, options.path);
  } else if (src_file && dst_file) {
    if (options.reflink) {
      c.path = CopyPath::kClone;
      step = c.clone();
    }
    if (step == Step::kFallback && options.sparse) step = c.sparse_loop();
    if (step == Step::kFallback && !options.reflink && !options.sparse && !c.zero_first &&
        io::splice_file_to_file(src, dst, si, di, expected)) {
      // splice reads into the pipe before it writes: the flags first, so
      // that a destination splice refuses (O_APPEND, not writable) never
      // has bytes read for it.
      if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) {
        guard.finish(false);
        return bad;
      }
      if (!di.append()) {
        c.path = CopyPath::kSplice;
        step = c.splice_loop();
      }
    }
    if (step == Step::kFallback && !options.reflink && !options.sparse &&
        expected <= io::kSmallFileCopy) {
      // A small copy takes the path of small file → file copies
      // (ZEROLAB_COPY_SMALL_FILE, the profile, or copy_file_range).
      if (io::small_file_path() == CopyPath::kReadWrite) {
        c.path = CopyPath::kReadWrite;
        step = c.read_write_loop();
      }
    }
    if (step == Step::kFallback) {
      c.path = CopyPath::kCopyFileRange;
      step = c.copy_file_range_loop();
    }
    if (step == Step::kFallback && !c.zero_first && !c.dst_positional) {
      c.path = CopyPath::kSendfile;
      step = c.sendfile_loop();
    }
  } else if (first == CopyPath::kSendfile) {
    c.path = CopyPath::kSendfile;
    step = c.sendfile_loop();
  } else if (first == CopyPath::kSplice) {
    c.path = CopyPath::kSplice;
    step = c.splice_loop();
  }
  if (step == Step::kFallback) {
    // A read from a pipe or socket cannot be undone: the flags first.
    if (!si.flags_known && !si.seekable()) {
      if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) {
        guard.finish(false);
        return bad;
      }
    }
    c.path = CopyPath::kReadWrite;
    step = c.read_write_loop();
  }

  if (step == Step::kError && c.unwritten > 0 && !c.src_positional && si.seekable()) {
    // Leave a seekable source just after the bytes the destination got.
    lseek(src, -static_cast<off_t>(c.unwritten), SEEK_CUR);
  }
  if (step == Step::kError && c.error == EBADF && c.written == 0 && !si.flags_known) {
    if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) {
      guard.finish(false);
      return bad;
    }
  }

  if (step == Step::kError) guard.finish(c.error == EPIPE);
  return result_of(c, src, dst, step);
}

// The two descriptor numbers of one of this thread's earlier copies (-1:
// none). A hint only: by the next call either number may name something else.
struct PairNumbers {
  int src = -1;
  int dst = -1;
  bool are(int s, int d) const noexcept { return s == src && d == dst; }
  // Names (s, d) after a copy for which the hint `holds`; otherwise
  // forgets them if it named them.
  void update(bool holds, int s, int d) noexcept {
    if (holds) {
      *this = {s, d};
    } else if (are(s, d)) {
      *this = {};
    }
  }
};

// The numbers of this thread's last copy that copy_file_range, or read
// and write as the small file → file path, finished file → file.
// Only an order of attempts: the first call below, a copy_file_range, is
// one the kernel checks in full (both regular, on filesystems that can,
// the destination not O_APPEND, ranges of one file apart), so a stale hint
// costs the one call that fails before copy_fd inspects as usual. It stays
// copy_file_range where small copies take read and write: read and write between numbers that now
// name one file would need both inodes to refuse overlapping ranges, two more calls than the hint
// saves (prepare_copy knows them, and takes the small-file path).
thread_local PairNumbers last_file_pair;

bool hinted_file_pair(int src, int dst, const CopyOptions& o) noexcept {
  return last_file_pair.are(src, dst) && o.path == CopyPath::kAuto && !o.reflink && !o.sparse;
}

// The numbers of this thread's last copy that went into a stream socket.
// A copy between the same numbers of at most 128 KiB (max_bytes; without a
// limit the size is unknown) goes straight to sendfile under the SIGPIPE
// mask: 3 calls where the inspected copy makes 6 (two statx, SO_TYPE, and
// the same three). Whatever the numbers name by now, sendfile checks them
// before it moves a byte: a source it cannot read from (a pipe, a
// directory, a descriptor not open for reading) and a destination not open
// for writing or O_APPEND are refused, and a pipe without a reader is
// EPIPE before anything is read; copy_fd then inspects as usual to say
// why. A destination that is now a file or a pipe gets a sendfile copy, as
// the table would give a file → pipe pair. Measured against the read and
// send of the same bytes after one check (copy_bench Race 16 KiB, three
// runs of each alternated, Zen 5 guest): file → TCP 0.85-0.95 → 0.89-1.00
// and file → AF_UNIX 0.90-0.91 → 1.08-1.72 of the best other way; and in
// the state where every read and send into AF_UNIX took 10x longer (the
// peer thread's placement), sendfile did not.
thread_local PairNumbers last_socket_pair;

// Options a small copy on a hint may have: at most 128 KiB (without a
// limit the size is unknown), no offsets, no forced path or extras.
bool small_and_plain(const CopyOptions& o) noexcept {
  return o.path == CopyPath::kAuto && !o.reflink && !o.sparse && o.src_offset < 0 &&
         o.dst_offset < 0 && o.max_bytes <= io::kSmallIntoSocket;
}

bool hinted_socket_pair(int src, int dst, const CopyOptions& o) noexcept {
  return last_socket_pair.are(src, dst) && small_and_plain(o);
}

// The copy of a hinted pair along `path` (read_write or splice), under the
// SIGPIPE mask if `mask_sigpipe`; nullopt when it moved nothing and
// copy_fd must inspect (the path declined, or failed before a byte moved;
// a timeout is an answer).
std::optional<CopyResult> copy_hinted(int src, int dst, FdInfo& si, FdInfo& di,
                                      const CopyOptions& options, CopyPath path, bool mask_sigpipe,
                                      std::uint64_t already = 0) {
  Copier c;
  c.src = src;
  c.dst = dst;
  c.si = &si;
  c.di = &di;
  c.written = already;
  c.remaining = options.max_bytes - already;
  c.timeout_ms = timeout_ms_of(options);
  c.path = path;
  SigpipeGuard guard(mask_sigpipe);
  Step step = path == CopyPath::kSplice     ? c.splice_loop()
              : path == CopyPath::kSendfile ? c.sendfile_loop()
                                            : c.read_write_loop();
  if (step == Step::kFallback && c.written > 0) {
    // The rest of a copy begun outside Copier, which its path declined:
    // an error like any other, after the bytes already there.
    c.error = c.declined != 0 ? c.declined : EINVAL;
    c.failed_call = path == CopyPath::kSendfile ? "sendfile" : "splice";
    step = Step::kError;
  }
  if (step == Step::kError) guard.finish(c.error == EPIPE);
  if ((step == Step::kFallback && c.written == 0) ||
      (step == Step::kError && c.written == 0 && c.unwritten == 0 && c.error != ETIMEDOUT)) {
    return std::nullopt;
  }
  if (step == Step::kError && c.unwritten > 0) {
    // Leave a seekable source just after the bytes the destination got (a
    // pipe or socket says ESPIPE, and those bytes are gone as with any read).
    lseek(src, -static_cast<off_t>(c.unwritten), SEEK_CUR);
  }
  return result_of(c, src, dst, step);
}

// The small copy of a hinted pair into a stream socket, or nullopt when
// nothing moved and copy_fd must inspect (sendfile refused the pair, or
// the source was at its end).
std::optional<CopyResult> copy_into_hinted_socket(int src, int dst, const CopyOptions& options) {
  SigpipeGuard guard(true);
  // The copy itself first, without Copier's layers: sendfile up to
  // max_bytes (at most kSmallIntoSocket) or the end of the file.
  std::uint64_t moved = 0;
  ssize_t n = 0;
  while (moved < options.max_bytes) {
    n = ::sendfile(dst, src, nullptr, static_cast<std::size_t>(options.max_bytes - moved));
    if (n <= 0) break;
    moved += static_cast<std::uint64_t>(n);
  }
  if (moved == options.max_bytes || (n == 0 && moved > 0)) {
    guard.finish(false);
    return copied_by(moved, CopyPath::kSendfile);
  }
  // Anything else goes on in Copier from there, which waits (EAGAIN),
  // retries (EINTR) or says why not, and leaves the inspected copy to
  // decide when nothing moved (a first sendfile of 0 bytes included).
  FdInfo si;  // st_size 0: a first sendfile that moves nothing lets the inspected copy decide
  FdInfo di;
  di.kind = FdKind::kStreamSocket;
  // A source that gave bytes has a real end: a sendfile of 0 there ends the copy.
  si.st.st_size = static_cast<off_t>(moved);
  std::optional<CopyResult> r =
      copy_hinted(src, dst, si, di, options, CopyPath::kSendfile, /*mask_sigpipe=*/false, moved);
  guard.finish(!r || r->error);  // a SIGPIPE raised in either is consumed
  return r;
}

// The numbers of this thread's last small copy that splice (or sendfile,
// file → pipe) finished with a pipe at one end, or from a stream socket
// into a regular file, and which kinds the copy found there. A copy
// between the same numbers of at most 128 KiB (max_bytes) goes straight
// to its copy after one check that keeps the guarantees of an inspected
// copy, whatever the numbers name by now:
//   - into a pipe: splice under the SIGPIPE mask (2 calls). splice refuses a
//     pair without a pipe at either end (EINVAL) and a descriptor not open
//     for its direction (EBADF) before it moves a byte, and moves bytes
//     straight from the source to the destination, so nothing it reads
//     can be lost;
//   - from a pipe into a regular file: one pwrite of no bytes, which
//     succeeds only on a seekable descriptor open for writing (a file
//     raises no SIGPIPE; a pipe or socket says ESPIPE), then the pipe is
//     spliced straight in;
//   - from a socket into a regular file: its bytes are read before they
//     are written, so first one pwrite of no bytes, which succeeds only
//     on a file open for writing (never on a pipe or socket), then read
//     and write.
// That is 3 calls where the inspected copy makes 5 (file → pipe: two
// statx, the mask, sendfile), 2 for 3 (pipe → file) and 3 for 7 (socket →
// file: two statx, SO_TYPE, two fcntl, read and write). Anything the check
// or the first splice refuses, with nothing moved, goes on to the
// inspected copy, which says why.
struct SplicedPair {
  PairNumbers numbers;
  bool into_pipe = false;  // else into a regular file
  FdKind src = FdKind::kOther;
  // As PairNumbers::update: the hint a copy between (s, d) left, if any,
  // else forgets (s, d).
  void update(const std::optional<SplicedPair>& left, int s, int d) noexcept {
    if (left) {
      *this = *left;
    } else if (numbers.are(s, d)) {
      *this = {};
    }
  }
};
thread_local SplicedPair last_spliced_pair;

bool hinted_spliced_pair(int src, int dst, const CopyOptions& o) noexcept {
  return last_spliced_pair.numbers.are(src, dst) && small_and_plain(o);
}

// Whether a small copy that ended by `path` between these kinds leaves the
// spliced-pair hint on, and how it goes then.
std::optional<SplicedPair> spliced_pair_of(int src, int dst, const FdInfo& si, const FdInfo& di,
                                           const CopyOptions& o, CopyPath path) noexcept {
  if (o.max_bytes > io::kSmallIntoSocket) return std::nullopt;
  const bool kernel_path = path == CopyPath::kSplice || path == CopyPath::kSendfile;
  if (di.kind == FdKind::kPipe && kernel_path) return SplicedPair{{src, dst}, true, si.kind};
  if (di.kind != FdKind::kRegular || di.pseudo_fs) return std::nullopt;
  // Into a file: from a pipe after a splice; from a socket after the
  // table's read/write (or a splice the profile chose).
  if ((si.kind == FdKind::kPipe && kernel_path) ||
      (si.kind == FdKind::kStreamSocket && (kernel_path || path == CopyPath::kReadWrite))) {
    return SplicedPair{{src, dst}, false, si.kind};
  }
  return std::nullopt;
}

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
                               std::uint64_t& moved) noexcept {
  DirectLoop end;
  char* buffer = io::thread_buffer();
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

// The small copy of a pair on the spliced-pair hint (by splice, or from a
// socket by read/write), or nullopt when nothing moved and copy_fd must
// inspect.
std::optional<CopyResult> copy_hinted_splice(int src, int dst, const CopyOptions& options,
                                             const SplicedPair& hint) {
  std::uint64_t moved = 0;
  if (!hint.into_pipe && hint.src == FdKind::kPipe) {
    // The destination must raise no SIGPIPE: a write of no bytes at offset
    // 0 fails with ESPIPE on a pipe, FIFO or socket and EBADF on a
    // descriptor not open for writing, and changes nothing on a file (see
    // below); 175 ns here where a statx of its type took 285.
    if (pwrite(dst, "", 0, 0) != 0) return std::nullopt;
    if (splice_from_pipe_directly(src, dst, options.max_bytes, moved)) {
      return copied_by(moved, CopyPath::kSplice);
    }
  }
  FdInfo si;  // kOther unless a file destination needs the source's kind:
  FdInfo di;  // Copier::wait_both then polls the source on EAGAIN
  if (hint.into_pipe) {
    di.kind = FdKind::kPipe;
  } else if (hint.src == FdKind::kPipe) {
    si.kind = FdKind::kPipe;
    di.kind = FdKind::kRegular;
    return copy_hinted(src, dst, si, di, options, CopyPath::kSplice, /*mask_sigpipe=*/false, moved);
  } else {
    // A socket's bytes cannot be put back once read, so the file must take
    // them: a write of no bytes at offset 0 asks that in one call. It fails
    // with ESPIPE on a pipe or socket (whose writes could raise SIGPIPE)
    // and EBADF on a descriptor not open for writing, and on a file that
    // takes writes it writes nothing and changes nothing (not even the
    // times). Then read and write, which also appends where splice would
    // refuse an O_APPEND file after reading.
    if (pwrite(dst, "", 0, 0) != 0) return std::nullopt;
    const DirectLoop end =
        read_write_directly(src, dst, options.max_bytes, io::kStreamChunk, moved);
    if (end.done) return copied_by(moved, CopyPath::kReadWrite);
    if (end.write_error != 0) {  // the bytes read for it are gone, as from any read of a socket
      Copier failed;
      failed.written = moved;
      failed.path = CopyPath::kReadWrite;
      failed.error = end.write_error;
      failed.failed_call = "write";
      return result_of(failed, src, dst, Step::kError);
    }
    si.kind = hint.src;
    di.kind = FdKind::kRegular;
    return copy_hinted(src, dst, si, di, options, CopyPath::kReadWrite, /*mask_sigpipe=*/false,
                       moved);
  }
  return copy_hinted(src, dst, si, di, options, CopyPath::kSplice, /*mask_sigpipe=*/hint.into_pipe);
}

// One copy_file_range of `want` bytes at the options' offsets (or the file
// positions): the bytes moved, 0 if it declined or moved nothing.
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

// The options for the rest of a copy after `moved` bytes.
CopyOptions after(const CopyOptions& o, std::uint64_t moved) {
  CopyOptions rest = o;
  if (rest.max_bytes != CopyOptions::kNoLimit) rest.max_bytes -= moved;
  if (rest.src_offset >= 0) rest.src_offset += static_cast<std::int64_t>(moved);
  if (rest.dst_offset >= 0) rest.dst_offset += static_cast<std::int64_t>(moved);
  return rest;
}

// What an inspected copy found out about its pair, for the hints the next
// copy between the same numbers may take.
struct PairFound {
  bool into_stream_socket = false;     // the destination is a stream socket
  bool file_pair = false;              // both ends are regular files
  std::optional<SplicedPair> spliced;  // the spliced-pair hint this copy leaves
};

// copy_fd, after a first copy_file_range when the hint names this pair:
// of max_bytes, or without a limit of the source's size (one statx instead
// of two), when that is below kSpliceFileFrom (a larger copy is inspected:
// its filesystems decide between splice and copy_file_range). Anything
// else, or less than asked, goes on as copy_fd always does; a short first
// copy within one file ends the copy, as the size of then would have.
// Fills `found` as far as the copy inspected the pair.
CopyResult copy_fd_inspecting(int src, int dst, const CopyOptions& options, PairFound& found) {
  const bool hinted = hinted_file_pair(src, dst, options);
  std::uint64_t already = 0;
  // The hinted copy_file_range comes before anything else is set up (two
  // FdInfo cost 3% of a 16 KiB copy on the hint: copy_bench Floor).
  const auto copy_once_on_the_hint = [&](std::uint64_t want) {
    already = copy_file_range_once(src, dst, options, want);
    if (already == 0) last_file_pair = {};
    return already == want;
  };
  if (hinted && options.max_bytes > 0 && options.max_bytes < io::kSpliceFileFrom &&
      copy_once_on_the_hint(options.max_bytes)) {
    return copied_by(already, CopyPath::kCopyFileRange);
  }
  FdInfo si;
  FdInfo di;
  bool src_known = false;
  if (hinted && options.max_bytes == CopyOptions::kNoLimit) {
    if (int e = io::inspect_fd(src, si, /*source=*/true); e != 0) return bad_fd("source", src, e);
    src_known = true;
    const std::uint64_t size = si.kind == FdKind::kRegular && !si.pseudo_fs ? io::file_size(si) : 0;
    const auto from = static_cast<std::uint64_t>(std::max<std::int64_t>(options.src_offset, 0));
    const std::uint64_t want = size > from ? size - from : 0;
    if (want > 0 && want < io::kSpliceFileFrom && copy_once_on_the_hint(want)) {
      return copied_by(already, CopyPath::kCopyFileRange);
    }
  }
  if (!src_known) {
    if (int e = io::inspect_fd(src, si, /*source=*/true); e != 0) return bad_fd("source", src, e);
  }
  if (int e = io::inspect_fd(dst, di, /*source=*/false); e != 0)
    return bad_fd("destination", dst, e);
  found.file_pair = si.kind == FdKind::kRegular && !si.pseudo_fs && di.kind == FdKind::kRegular;
  if (already == 0) {
    CopyResult r = copy_inspected(src, dst, si, di, options, nullptr, io::file_size(si));
    found.into_stream_socket = di.kind == FdKind::kStreamSocket;
    if (!r.error) found.spliced = spliced_pair_of(src, dst, si, di, options, r.path);
    return r;
  }
  if (si.same_file(di)) return copied_by(already, CopyPath::kCopyFileRange);
  CopyResult r = copy_inspected(src, dst, si, di, after(options, already), nullptr,
                                io::file_size(si), already);
  // The rest was only end of file (which the file → file chain finds with
  // read): the bytes came by copy_file_range.
  if (!r.error && r.bytes == already) r.path = CopyPath::kCopyFileRange;
  return r;
}

// A prepared small file → file copy (see copy_fd on a PreparedCopy) by
// the plain loop, read_write_directly: true when it copied to max_bytes or
// end of file, with `moved` the bytes written. The inspected copy makes the
// same calls, but through its layers the prepared 16 KiB copy took
// 0.90-0.91 of the loop's time (copy_bench Floor, three runs, Zen 5 guest),
// this way 0.97-0.98. On anything else it puts back on the source what it
// read and did not write and returns false: the inspected copy goes on from
// there, retries, and reports exactly as always.
bool copy_small_file_loop(int src, int dst, std::uint64_t max_bytes,
                          std::uint64_t& moved) noexcept {
  const DirectLoop end = read_write_directly(src, dst, max_bytes, io::kBufferSize, moved);
  if (end.unwritten > 0) lseek(src, -static_cast<off_t>(end.unwritten), SEEK_CUR);
  return end.done;
}

}  // namespace

std::string_view to_string(CopyPath path) noexcept {
  switch (path) {
    case CopyPath::kNone:
      return "none";
    case CopyPath::kClone:
      return "clone";
    case CopyPath::kCopyFileRange:
      return "copy_file_range";
    case CopyPath::kSendfile:
      return "sendfile";
    case CopyPath::kSplice:
      return "splice";
    case CopyPath::kReadWrite:
      return "read_write";
    case CopyPath::kAuto:
      return "auto";
  }
  return "unknown";
}

CopyResult copy_fd(int src, int dst, const CopyOptions& options) {
  if (hinted_socket_pair(src, dst, options)) {
    if (std::optional<CopyResult> r = copy_into_hinted_socket(src, dst, options)) {
      last_socket_pair.update(!r->error, src, dst);
      return *std::move(r);
    }
  }
  if (hinted_spliced_pair(src, dst, options)) {
    if (std::optional<CopyResult> r = copy_hinted_splice(src, dst, options, last_spliced_pair)) {
      if (r->error) last_spliced_pair = {};
      return *std::move(r);
    }
  }
  PairFound found;
  CopyResult r = copy_fd_inspecting(src, dst, options, found);
  last_file_pair.update(!r.error && (r.path == CopyPath::kCopyFileRange ||
                                     (found.file_pair && r.path == CopyPath::kReadWrite)),
                        src, dst);
  last_socket_pair.update(!r.error && found.into_stream_socket, src, dst);
  last_spliced_pair.update(found.spliced, src, dst);
  return r;
}

PreparedCopy prepare_copy(int src, int dst) {
  PreparedCopy pair;
  pair.src_.fd = src;
  pair.dst_.fd = dst;
  FdInfo si;
  FdInfo di;
  pair.plan_ = io::inspect_pair(src, dst, si, di, /*any_size_pseudo_fs=*/true);
  if (!pair.plan_.error) {
    int e = io::load_flags(src, si);
    if (e == 0 && !di.flags_known) e = io::load_flags(dst, di);
    if (e != 0) {
      pair.plan_ = {};
      pair.plan_.reason = "the open flags cannot be read";
      pair.plan_.error = std::error_code(e, std::system_category());
    } else if (!si.readable() || !di.writable()) {
      pair.plan_ = {};
      pair.plan_.reason = si.readable() ? "the destination is not open for writing"
                                        : "the source is not open for reading";
      pair.plan_.error = std::error_code(EBADF, std::system_category());
    }
  }
  const auto keep = [](PreparedCopy::End& end, const FdInfo& info) {
    end.kind = static_cast<int>(info.kind);
    end.flags = info.flags;
    end.pseudo_fs = info.pseudo_fs;
    end.dev = static_cast<std::uint64_t>(info.st.st_dev);
    end.ino = static_cast<std::uint64_t>(info.st.st_ino);
  };
  keep(pair.src_, si);
  keep(pair.dst_, di);
  pair.same_file_ = si.same_file(di);
  return pair;
}

CopyResult copy_fd(const PreparedCopy& pair, const CopyOptions& options) {
  const int src = pair.src_.fd;
  const int dst = pair.dst_.fd;
  if (pair.plan_.error || pair.same_file_ || options.reflink || options.sparse) {
    return copy_fd(src, dst, options);
  }
  // A small file → file copy that this process makes by read and write
  // (ZEROLAB_COPY_SMALL_FILE, or the profile): at most kSmallFileCopy bytes
  // asked for (max_bytes; the source's size is not asked per copy), from
  // the descriptors' positions, on no forced path, is the plain loop.
  std::uint64_t already = 0;
  if (options.path == CopyPath::kAuto && options.src_offset < 0 && options.dst_offset < 0 &&
      options.max_bytes <= io::kSmallFileCopy &&
      pair.src_.kind == static_cast<int>(FdKind::kRegular) && !pair.src_.pseudo_fs &&
      pair.dst_.kind == static_cast<int>(FdKind::kRegular) &&
      io::small_file_path() == CopyPath::kReadWrite) {
    if (copy_small_file_loop(src, dst, options.max_bytes, already)) {
      return copied_by(already, CopyPath::kReadWrite);
    }
  }
  const auto restore = [](const PreparedCopy::End& end, FdInfo& info) {
    info.kind = static_cast<FdKind>(end.kind);
    info.flags = end.flags;
    info.flags_known = true;
    info.pseudo_fs = end.pseudo_fs;
    info.st.st_dev = static_cast<dev_t>(end.dev);
    info.st.st_ino = static_cast<ino_t>(end.ino);
    info.st.st_size = 0;  // not known now: the loops read to end of file
  };
  FdInfo si;
  FdInfo di;
  restore(pair.src_, si);
  restore(pair.dst_, di);
  if (already > 0) {
    return copy_inspected(src, dst, si, di, after(options, already), &pair.plan_,
                          CopyOptions::kNoLimit, already);
  }
  return copy_inspected(src, dst, si, di, options, &pair.plan_, CopyOptions::kNoLimit);
}

}  // namespace zerolab
