// copy_fd's inspected copy (copy_inspected.hpp), one step per function:
// the first path, whether the open flags can wait for the first call to
// check them, the Copier, then the forced path, the file → file chain or
// the pair's path, read/write last, and the result.
#include "io/copy_inspected.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "io/copy_checks.hpp"
#include "io/copy_plan.hpp"
#include "io/path_choice.hpp"

namespace zerolab::io {
namespace {

// The rule's plan for a pair that is not file → file.
CopyPlan auto_plan(int src, int dst, FdInfo& si, FdInfo& di) {
  const CopyEnd src_end = source_end(src, si);
  return plan_copy(src_end, destination_end(dst, di, src_end));
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

// The first path of an unforced copy whose pair is not file → file:
// sendfile for a small copy from a file into a stream socket, else the
// machine profile's path for a large copy of the pair kind, else the
// table's (path_choice.hpp). An O_APPEND destination is seen as a file
// until its flags are read.
CopyPath first_path(int src, int dst, FdInfo& si, FdInfo& di, const CopyPlan* known,
                    std::uint64_t expected) {
  if (small_into_socket(si, di, expected)) return small_into_socket_path(dst, di);
  return path_for(known != nullptr ? *known : auto_plan(src, dst, si, di), expected);
}

// Whether the open flags can wait until a call fails. They cost a system
// call per descriptor, so they are read up front only where needed. The
// first call of copy_file_range, sendfile and a splice with a pipe at one
// end checks both descriptors before it moves a byte, and a read from a
// regular source whose write fails is undone by seeking back: there a bad
// mode shows up as EBADF with nothing written, and the flags are read
// then, to say which descriptor. O_APPEND destinations make
// copy_file_range, sendfile and splice decline, and read/write appends.
bool flags_can_wait(const FdInfo& si, const FdInfo& di, const CopyOptions& options,
                    CopyPath first) {
  const bool checked_by_first_call =
      si.kind == FdKind::kRegular ||
      (first == CopyPath::kSplice && (si.kind == FdKind::kPipe || di.kind == FdKind::kPipe));
  return checked_by_first_call && options.path == CopyPath::kAuto && !si.same_file(di) &&
         options.dst_offset < 0 && !options.reflink && !options.sparse;
}

// A Copier for the copy, `already` bytes into it.
Copier copier_for(int src, int dst, const FdInfo& si, const FdInfo& di, const CopyOptions& options,
                  std::uint64_t already) {
  Copier c;
  c.src = src;
  c.dst = dst;
  c.si = &si;
  c.di = &di;
  c.written = already;
  c.remaining = options.max_bytes;
  c.src_positional = options.src_offset >= 0;
  c.dst_positional = options.dst_offset >= 0;
  c.src_pos = c.src_positional ? options.src_offset : 0;
  c.dst_pos = c.dst_positional ? options.dst_offset : 0;
  c.timeout_ms = timeout_ms_of(options);
  return c;
}

// CopyOptions::path alone, no fallback; `refused` when the pair does not
// allow it.
Step copy_forced(Copier& c, int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& options,
                 const CopyPlan* known, CopyResult& refused) {
  const CopyPlan plan = known != nullptr ? *known : auto_plan(src, dst, si, di);
  if (!plan.allows(options.path)) {
    refused = bad_input(EINVAL, fd_name("source", src) + " to " + fd_name("destination", dst) +
                                    ": CopyOptions::path " + std::string(to_string(options.path)) +
                                    " is not a path this pair allows");
    return Step::kFallback;
  }
  return run_forced(c, options.path);
}

// The file → file chain: FICLONE (reflink), the sparse loop, splice where
// the machine profile says so (copy_plan.hpp), read/write for a small copy
// where the profile or ZEROLAB_COPY_SMALL_FILE says so, copy_file_range,
// then sendfile; each only while the ones before declined. `refused` when
// the flags read before a splice reject the pair.
Step copy_file_to_file(Copier& c, int src, int dst, FdInfo& si, FdInfo& di,
                       const CopyOptions& options, std::uint64_t expected, CopyResult& refused) {
  const bool plain = !options.reflink && !options.sparse;
  Step step = Step::kFallback;
  if (options.reflink) {
    c.path = CopyPath::kClone;
    step = c.clone();
  }
  if (step == Step::kFallback && options.sparse) step = c.sparse_loop();
  if (step == Step::kFallback && plain && !c.zero_first &&
      splice_file_to_file(src, dst, si, di, expected)) {
    // splice reads into the pipe before it writes: the flags first, so
    // that a destination splice refuses (O_APPEND, not writable) never
    // has bytes read for it.
    refused = load_and_check_flags(src, dst, si, di, options);
    if (refused.error) return Step::kFallback;
    if (!di.append()) {
      c.path = CopyPath::kSplice;
      step = c.splice_loop();
    }
  }
  if (step == Step::kFallback && plain && expected <= kSmallFileCopy &&
      small_file_path() == CopyPath::kReadWrite) {
    c.path = CopyPath::kReadWrite;
    step = c.read_write_loop();
  }
  if (step == Step::kFallback) {
    c.path = CopyPath::kCopyFileRange;
    step = c.copy_file_range_loop();
  }
  if (step == Step::kFallback && !c.zero_first && !c.dst_positional) {
    c.path = CopyPath::kSendfile;
    step = c.sendfile_loop();
  }
  return step;
}

// read/write, the path every pair allows. A read from a pipe or socket
// cannot be undone, so the flags first (`refused` when they reject the pair).
Step copy_read_write(Copier& c, int src, int dst, FdInfo& si, FdInfo& di,
                     const CopyOptions& options, CopyResult& refused) {
  if (!si.flags_known && !si.seekable()) {
    refused = load_and_check_flags(src, dst, si, di, options);
    if (refused.error) return Step::kFallback;
  }
  c.path = CopyPath::kReadWrite;
  return c.read_write_loop();
}

// The result of a copy that ended with `step`: a seekable source left just
// after the bytes the destination got, and an EBADF with nothing written
// and the flags unread said as the flags' refusal (which descriptor, why).
CopyResult finish(Copier& c, int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& options,
                  Step step, SigpipeGuard& guard) {
  if (step == Step::kError && c.unwritten > 0 && !c.src_positional && si.seekable()) {
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

}  // namespace

CopyResult copy_inspected(int src, int dst, FdInfo& si, FdInfo& di, const CopyOptions& options,
                          const CopyPlan* known, std::uint64_t size_hint, std::uint64_t already) {
  const bool forced = options.path != CopyPath::kAuto;
  const bool src_file = si.kind == FdKind::kRegular && !si.pseudo_fs;
  const std::uint64_t expected = expected_bytes(si, options.max_bytes, size_hint);
  CopyPath first = options.path;
  if (!forced && !(src_file && di.kind == FdKind::kRegular)) {
    first = first_path(src, dst, si, di, known, expected);
  }
  if (!flags_can_wait(si, di, options, first)) {
    if (CopyResult bad = load_and_check_flags(src, dst, si, di, options); bad.error) return bad;
    if (!forced && known == nullptr && di.kind == FdKind::kRegular && di.append()) {
      first = path_for(auto_plan(src, dst, si, di), expected);
    }
  }
  const bool dst_file = di.kind == FdKind::kRegular && !di.append();

  Copier c = copier_for(src, dst, si, di, options, already);
  if (CopyResult bad = check_pair(src, dst, si, di, options, c); bad.error) return bad;

  // SIGPIPE can come from any write into a pipe, and from sendfile and
  // splice into a socket; read_write sends to sockets with MSG_NOSIGNAL.
  SigpipeGuard guard(di.kind == FdKind::kPipe || (di.socket() && first != CopyPath::kReadWrite));
  CopyResult refused;
  Step step = Step::kFallback;
  if (forced) {
    step = copy_forced(c, src, dst, si, di, options, known, refused);
  } else if (src_file && dst_file) {
    step = copy_file_to_file(c, src, dst, si, di, options, expected, refused);
  } else if (first == CopyPath::kSendfile) {
    c.path = CopyPath::kSendfile;
    step = c.sendfile_loop();
  } else if (first == CopyPath::kSplice) {
    c.path = CopyPath::kSplice;
    step = c.splice_loop();
  }
  if (step == Step::kFallback && !refused.error) {
    step = copy_read_write(c, src, dst, si, di, options, refused);
  }
  if (refused.error) {
    guard.finish(false);
    return refused;
  }
  return finish(c, src, dst, si, di, options, step, guard);
}

int timeout_ms_of(const CopyOptions& options) {
  return options.timeout.count() < 0
             ? -1
             : static_cast<int>(std::min<std::int64_t>(options.timeout.count(), 1 << 30));
}

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

CopyResult copied_by(std::uint64_t bytes, CopyPath path) {
  CopyResult r;
  r.bytes = bytes;
  r.path = path;
  return r;
}

CopyOptions after(const CopyOptions& o, std::uint64_t moved) {
  CopyOptions rest = o;
  if (rest.max_bytes != CopyOptions::kNoLimit) rest.max_bytes -= moved;
  if (rest.src_offset >= 0) rest.src_offset += static_cast<std::int64_t>(moved);
  if (rest.dst_offset >= 0) rest.dst_offset += static_cast<std::int64_t>(moved);
  return rest;
}

}  // namespace zerolab::io
