// copy_file: a whole-file copy with the source's permission bits, as cp
// does, on top of copy_fd (copy.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "zerolab/copy.hpp"

namespace zerolab {
namespace {

CopyResult failure(int err, std::string what) {
  CopyResult r;
  r.error = std::error_code(err, std::system_category());
  r.message = std::move(what) + ": " + std::system_category().message(err);
  return r;
}

}  // namespace

CopyResult copy_file(const char* from, const char* to, const CopyOptions& options) {
  const int in = open(from, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (in < 0) return failure(errno, std::string("open ") + from);
  struct stat st {};
  if (fstat(in, &st) != 0) {
    const int e = errno;
    close(in);
    return failure(e, std::string("stat ") + from);
  }
  if (S_ISDIR(st.st_mode)) {
    close(in);
    return failure(EISDIR, std::string("copy_file ") + from);
  }
  bool created = true;
  int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, st.st_mode & 0777);
  if (out < 0 && errno == EEXIST) {
    created = false;
    out = open(to, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  }
  if (out < 0) {
    const int e = errno;
    close(in);
    return failure(e, std::string("open ") + to);
  }
  // Truncating only after this check keeps `cp a a` from emptying a.
  struct stat dst_st {};
  if (fstat(out, &dst_st) == 0 && dst_st.st_dev == st.st_dev && dst_st.st_ino == st.st_ino) {
    close(in);
    close(out);
    return failure(EINVAL, std::string("copy_file ") + from + " to " + to + ": the same file");
  }
  CopyResult r;
  if (!created && ftruncate(out, 0) != 0) {
    r = failure(errno, std::string("truncate ") + to);
  } else {
    CopyOptions o = options;
    o.src_offset = -1;
    o.dst_offset = -1;
    r = copy_fd(in, out, o);
    if (!r.error && fchmod(out, st.st_mode & 07777) != 0) {
      const CopyResult chmod_failure = failure(errno, std::string("chmod ") + to);
      r.error = chmod_failure.error;
      r.message = chmod_failure.message;
    }
  }
  if (close(out) != 0 && !r.error) {
    const CopyResult close_failure = failure(errno, std::string("close ") + to);
    r.error = close_failure.error;
    r.message = close_failure.message;
  }
  close(in);
  if (r.error && created) unlink(to);
  return r;
}

CopyResult copy_file(const std::string& from, const std::string& to, const CopyOptions& options) {
  return copy_file(from.c_str(), to.c_str(), options);
}

}  // namespace zerolab
