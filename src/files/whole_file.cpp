// The bounded whole-file reader (whole_file.hpp).
#include "files/whole_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace zerolab::internal {

bool read_whole_file(const std::string& path, std::size_t max_bytes, std::string& text,
                     std::string& error, int* error_number) {
  auto fail = [&](int number, const std::string& cause) {
    if (error_number != nullptr) *error_number = number;
    error = "cannot read " + path + ": " + cause;
    return false;
  };
  text.clear();
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return fail(errno, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int saved = errno;
    ::close(fd);
    return fail(saved, std::strerror(saved));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(EINVAL, "not a regular file (a FIFO, socket or device)");
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      return fail(saved, std::strerror(saved));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      text.clear();
      return fail(EFBIG, "larger than " + std::to_string(max_bytes) + " bytes");
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

}  // namespace zerolab::internal
