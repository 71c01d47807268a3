// A file opened for reading at offsets (pread), for code that reads a few
// headers or tables out of a large file (ELF headers, symbol tables) and
// must not pay for a stream: the first std::ifstream of a process builds
// the C++ locale, a visible part of `zerolab waste`'s start-up.
//
// Thread-safety: one object per thread; reads do not move a shared offset.
//
// Example:
//   zerolab::internal::ReadOnlyFile elf("/bin/true");
//   Elf64_Ehdr eh;
//   if (!elf.read_at(0, &eh, sizeof eh)) ...;      // missing, unreadable or too short
//   std::string name = elf.string_at(offset, 4096);  // up to a NUL, at most 4096 bytes
#ifndef ZEROLAB_SRC_FILES_READ_ONLY_FILE_HPP_
#define ZEROLAB_SRC_FILES_READ_ONLY_FILE_HPP_

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace zerolab::internal {

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  bool is_open() const { return fd_ >= 0; }

  // Exactly `n` bytes at `offset` into `out`; false if the file is not open,
  // a read fails or the file ends first.
  bool read_at(std::uint64_t offset, void* out, std::size_t n) const {
    return read_up_to(offset, out, n) == n;
  }

  // The bytes at `offset` up to the first NUL or the end of the file, at
  // most `max_bytes` of them ("" if nothing can be read there).
  std::string string_at(std::uint64_t offset, std::size_t max_bytes) const {
    std::string out;
    char chunk[256];
    while (out.size() < max_bytes) {
      const std::size_t want = std::min(sizeof chunk, max_bytes - out.size());
      const std::size_t got = read_up_to(offset, chunk, want);
      const void* nul = std::memchr(chunk, '\0', got);
      if (nul != nullptr) {
        out.append(chunk, static_cast<std::size_t>(static_cast<const char*>(nul) - chunk));
        break;
      }
      out.append(chunk, got);
      if (got < want) break;  // the end of the file
      offset += got;
    }
    return out;
  }

  // Up to `max_bytes` from `offset` (fewer where the file ends).
  std::string bytes_at(std::uint64_t offset, std::size_t max_bytes) const {
    std::string out(max_bytes, '\0');
    out.resize(read_up_to(offset, out.data(), max_bytes));
    return out;
  }

 private:
  // Reads into `out` until `n` bytes, the end of the file or an error;
  // returns how many bytes it read.
  std::size_t read_up_to(std::uint64_t offset, void* out, std::size_t n) const {
    auto* to = static_cast<char*>(out);
    std::size_t have = 0;
    while (fd_ >= 0 && have < n) {
      const ssize_t got = ::pread(fd_, to + have, n - have, static_cast<off_t>(offset + have));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      have += static_cast<std::size_t>(got);
    }
    return have;
  }

  int fd_;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FILES_READ_ONLY_FILE_HPP_
