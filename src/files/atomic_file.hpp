// The one output-file writer of zerolab (-o of compare and the benchmark
// binaries, -cpuprofile/-memprofile, the lab's results, reports and
// baselines), and the checks of an output path made before any work.
//
// write_file_atomically(path, text):
//   - "-" and "/dev/stdout" are stdout, "/dev/stderr" stderr; "" is refused.
//   - a missing path or a regular file is written through "<path>.tmp.<pid>",
//     created new (O_EXCL, never through a link) in the directory opened
//     once, and renamed over the final name, keeping an existing file's
//     permission bits (and, as root, its owner); a read-only file is
//     refused, not replaced;
//   - a symbolic link is refused, never written through or replaced (a link
//     planted in /tmp must not let a root run overwrite its target);
//   - a FIFO, socket or block device is refused (a FIFO would block); a
//     character device (/dev/null, /dev/full, a terminal) is written in place.
//   The final name is examined again just before the rename. The temporary
//   is removed on failure and on SIGINT, SIGTERM, SIGHUP, SIGXFSZ and
//   SIGPIPE; temporaries of the same path left by processes that no longer
//   exist (killed with SIGKILL) are swept before writing. Errors name the
//   path the user gave and the real cause: "cannot write out.txt: Read-only
//   file system".
//
// check_output_path(path, inputs): the same refusals before work starts,
// plus an output that is one of the inputs (same file, by device and inode).
//
// Thread-safety: safe from any thread for distinct paths.
//
// Example:
//   std::string error;
//   if (!zerolab::internal::check_output_path("out.txt", {"old.txt"}, error)) usage_error(error);
//   ...
//   if (!zerolab::internal::write_file_atomically("out.txt", text, error)) fail(error);
#ifndef ZEROLAB_SRC_FORMAT_ATOMIC_FILE_HPP_
#define ZEROLAB_SRC_FORMAT_ATOMIC_FILE_HPP_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::internal {

// Returns false with `error` ("cannot write x: <cause>") and no temporary
// left behind; the old contents of path stay as they were.
bool write_file_atomically(const std::string& path, std::string_view text, std::string& error);

// write_file_atomically in pieces, for output too large to hold: open()
// makes the same checks and creates the temporary, write() appends,
// commit() puts the file in place. An OutputFile destroyed before
// commit() (an error, an exception) removes its temporary and leaves the
// old file as it was. "-", /dev/stdout and /dev/stderr are written as
// they come.
//
// Example:
//   OutputFile out;
//   if (!out.open(path, error)) fail(error);
//   for (...) if (!out.write(piece, error)) fail(error);
//   if (!out.commit(error)) fail(error);
class OutputFile {
 public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  bool open(const std::string& path, std::string& error);
  bool write(std::string_view text, std::string& error);
  bool commit(std::string& error);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// How write_all writes: write(2), or send(2) with MSG_NOSIGNAL for a
// socket whose peer may be gone (EPIPE, never a SIGPIPE that ends the
// process).
enum class WriteCall { kWrite, kSend };

// Writes all of text to fd, retrying short writes and EINTR: false with
// errno set on failure (EIO for a write of 0 bytes). The one such loop of
// the project: the output paths, the lab's copies and the measurement
// rigs. (zerolab::io's Copier and the harness's signal handler have loops
// of their own: one reports through the copy's error codes, the other may
// only make async-signal-safe calls.)
bool write_all(int fd, std::string_view text, WriteCall call = WriteCall::kWrite);

// Whether `path` can be written by write_file_atomically: false with
// `error` ("cannot write x: <cause>" or "cannot write x: it is also an
// input") for "", a directory, a symbolic link, a FIFO, socket or block
// device, a read-only file, a missing or unwritable directory, or one of
// `inputs` (paths that will be read; "-" skipped).
bool check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       std::string& error);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_ATOMIC_FILE_HPP_
