// The standard streams at start and exit (std_streams.hpp).
#include "bench/std_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace zerolab::internal {
namespace {

int g_first_stdout_errno = 0;

}  // namespace

void reserve_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

void write_stdout(std::string_view text) {
  errno = 0;
  const bool ok =
      std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok && g_first_stdout_errno == 0) g_first_stdout_errno = errno != 0 ? errno : EIO;
}

int finish_stdout(const std::string& program, int exit_code) {
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return exit_code;
  const int saved = g_first_stdout_errno != 0 ? g_first_stdout_errno : errno != 0 ? errno : EIO;
  std::fprintf(stderr, "%s: cannot write standard output: %s\n", program.c_str(),
               std::strerror(saved));
  return exit_code == 0 ? 1 : exit_code;
}

}  // namespace zerolab::internal
