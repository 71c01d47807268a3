// The directory of the running executable (/proc/self/exe, links
// resolved): where zerolab looks for what is installed beside it or at a
// path relative to it (the waste preload, zerolab-dynamic).
//
// Thread-safety: safe from any thread.
//
// Example:
//   const std::string dir = zerolab::internal::executable_directory();  // "" if unknown
//   const std::string preload = dir + "/libzerolab_waste.so";
#ifndef ZEROLAB_SRC_FILES_EXECUTABLE_DIRECTORY_HPP_
#define ZEROLAB_SRC_FILES_EXECUTABLE_DIRECTORY_HPP_

#include <unistd.h>

#include <climits>
#include <string>

namespace zerolab::internal {

// "" when /proc/self/exe cannot be read.
inline std::string executable_directory() {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  const std::string path(self, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FILES_EXECUTABLE_DIRECTORY_HPP_
