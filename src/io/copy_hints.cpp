// The one-shot copy_fd with the per-thread hints (copy_hints.hpp): each
// hint is the numbers of a pair, the kinds its last copy found, and the
// first call the next copy between those numbers makes; then the inspected
// copy when the hint does not hold.
#include "io/copy_hints.hpp"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "io/copier.hpp"
#include "io/copy_checks.hpp"
#include "io/copy_inspected.hpp"
#include "io/copy_plan.hpp"
#include "io/direct_loops.hpp"
#include "io/fd_info.hpp"
#include "io/thread_cache.hpp"

namespace zerolab::io {
namespace {

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
         o.dst_offset < 0 && o.max_bytes <= kSmallIntoSocket;
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
  if (o.max_bytes > kSmallIntoSocket) return std::nullopt;
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
    const DirectLoop end = read_write_directly(src, dst, options.max_bytes, kStreamChunk, moved);
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
// the machine profile may send it through splice). Anything
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
  if (hinted && options.max_bytes > 0 && options.max_bytes < kSpliceFileFrom &&
      copy_once_on_the_hint(options.max_bytes)) {
    return copied_by(already, CopyPath::kCopyFileRange);
  }
  FdInfo si;
  FdInfo di;
  bool src_known = false;
  if (hinted && options.max_bytes == CopyOptions::kNoLimit) {
    if (int e = inspect_fd(src, si, /*source=*/true); e != 0) return bad_fd("source", src, e);
    src_known = true;
    const std::uint64_t size = si.kind == FdKind::kRegular && !si.pseudo_fs ? file_size(si) : 0;
    const auto from = static_cast<std::uint64_t>(std::max<std::int64_t>(options.src_offset, 0));
    const std::uint64_t want = size > from ? size - from : 0;
    if (want > 0 && want < kSpliceFileFrom && copy_once_on_the_hint(want)) {
      return copied_by(already, CopyPath::kCopyFileRange);
    }
  }
  if (!src_known) {
    if (int e = inspect_fd(src, si, /*source=*/true); e != 0) return bad_fd("source", src, e);
  }
  if (int e = inspect_fd(dst, di, /*source=*/false); e != 0) return bad_fd("destination", dst, e);
  found.file_pair = si.kind == FdKind::kRegular && !si.pseudo_fs && di.kind == FdKind::kRegular;
  if (already == 0) {
    CopyResult r = copy_inspected(src, dst, si, di, options, nullptr, file_size(si));
    found.into_stream_socket = di.kind == FdKind::kStreamSocket;
    if (!r.error) found.spliced = spliced_pair_of(src, dst, si, di, options, r.path);
    return r;
  }
  if (si.same_file(di)) return copied_by(already, CopyPath::kCopyFileRange);
  CopyResult r =
      copy_inspected(src, dst, si, di, after(options, already), nullptr, file_size(si), already);
  // The rest was only end of file (which the file → file chain finds with
  // read): the bytes came by copy_file_range.
  if (!r.error && r.bytes == already) r.path = CopyPath::kCopyFileRange;
  return r;
}

}  // namespace

CopyResult copy_with_hints(int src, int dst, const CopyOptions& options) {
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

}  // namespace zerolab::io
