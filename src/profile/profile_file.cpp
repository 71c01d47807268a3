// Atomic profile files and the memory map (profile_file.hpp).
#include "profile/profile_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace zerolab::internal::profile {

ProfileFile::~ProfileFile() { abandon(); }

bool ProfileFile::open(const std::string& path, std::string& error) {
  abandon();
  path_ = path;
  temp_ = path + ".tmp." + std::to_string(::getpid());
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    error = "cannot create " + temp_ + ": " + std::strerror(errno);
    return false;
  }
  contents_.clear();
  return true;
}

bool ProfileFile::commit(std::string& error) {
  if (fd_ < 0) {
    error = "profile file is not open";
    return false;
  }
  std::size_t done = 0;
  while (done < contents_.size()) {
    const ssize_t n = ::write(fd_, contents_.data() + done, contents_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write " + temp_ + ": " + std::strerror(n < 0 ? errno : EIO);
      abandon();
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0 || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    error = "cannot write " + path_ + ": " + std::strerror(errno);
    std::remove(temp_.c_str());
    return false;
  }
  contents_.clear();
  return true;
}

void ProfileFile::abandon() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  std::remove(temp_.c_str());
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
