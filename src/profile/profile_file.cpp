// Profile files through the shared output writer, and the memory map
// (profile_file.hpp).
#include "profile/profile_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "files/atomic_file.hpp"

namespace zerolab::internal::profile {
namespace {

// While a profile is written, a file size limit (ulimit -f) makes write()
// fail with EFBIG, reported as any failed write is, instead of killing the
// process with SIGXFSZ after its results (Go's runtime ignores SIGXFSZ too).
class FileSizeSignalIgnored {
 public:
  FileSizeSignalIgnored() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &previous_);
  }
  ~FileSizeSignalIgnored() { sigaction(SIGXFSZ, &previous_, nullptr); }
  FileSizeSignalIgnored(const FileSizeSignalIgnored&) = delete;
  FileSizeSignalIgnored& operator=(const FileSizeSignalIgnored&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

bool ProfileFile::open(const std::string& path, std::string& error) {
  if (path == "-") {  // the shared writer's stdout, where the results go
    error = "a profile cannot go to stdout with the results (name a file, or /dev/stdout)";
    return false;
  }
  if (!check_output_path(path, {}, error)) return false;
  path_ = path;
  contents_.clear();
  open_ = true;
  return true;
}

bool ProfileFile::commit(std::string& error) {
  if (!open_) {
    error = "profile file is not open";
    return false;
  }
  open_ = false;
  const FileSizeSignalIgnored no_sigxfsz;
  const bool ok = write_file_atomically(path_, contents_, error);
  contents_.clear();
  return ok;
}

void ProfileFile::abandon() noexcept {
  open_ = false;
  contents_.clear();
}

std::string read_memory_map() {
  std::string text;
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace zerolab::internal::profile
