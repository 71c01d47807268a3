// A profile's output file, written by the shared output writer
// (files/atomic_file.hpp): open() checks the path (so an unwritable path is
// found before any work is done), commit() writes the collected bytes
// through a temporary and a rename (or in place onto a device), and a
// profile that is never committed leaves nothing behind.
//
// Thread-safety: a ProfileFile belongs to one thread.
//
// Example:
//   zerolab::internal::profile::ProfileFile file;
//   std::string error;
//   if (!file.open("cpu.out", error)) { ... }   // checked; nothing created yet
//   file.append("...");
//   file.append(zerolab::internal::profile::read_memory_map());
//   if (!file.commit(error)) { ... }           // cpu.out replaced in one step
#ifndef ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_
#define ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_

#include <cstddef>
#include <string>
#include <string_view>

namespace zerolab::internal::profile {

// What a profiler writes: pprof's profile.proto, gzipped, with every
// function, file and line resolved at write time (what `go test
// -cpuprofile` writes and `go tool pprof` reads), or the legacy formats of
// gperftools (Debian's google-pprof reads only these; it needs the binary).
enum class ProfileFormat { kPprof, kLegacy };

class ProfileFile {
 public:
  ProfileFile() = default;
  ProfileFile(const ProfileFile&) = delete;
  ProfileFile& operator=(const ProfileFile&) = delete;

  // Checks that path can be written ("-", stdout, is refused). On failure
  // returns false with a message such as "cannot write x/p.out: No such
  // file or directory".
  bool open(const std::string& path, std::string& error);
  bool is_open() const noexcept { return open_; }
  const std::string& path() const noexcept { return path_; }

  // Adds bytes to what commit() writes.
  void append(std::string_view bytes) { contents_.append(bytes); }

  // Writes the contents to the destination. False with `error` on failure.
  bool commit(std::string& error);
  // Drops the contents; nothing is written.
  void abandon() noexcept;

 private:
  std::string path_;
  std::string contents_;
  bool open_ = false;
};

// The text of /proc/self/maps, which pprof reads after the samples to map
// addresses to the executable and the shared libraries ("" if unreadable).
std::string read_memory_map();

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_
