// A profile's output file, written atomically: open() creates a temporary
// file beside the destination (so an unwritable path is found before any
// work is done), commit() writes it out and renames it into place, and a
// profile that is never committed leaves nothing behind.
//
// Thread-safety: a ProfileFile belongs to one thread.
//
// Example:
//   zerolab::internal::profile::ProfileFile file;
//   std::string error;
//   if (!file.open("cpu.out", error)) { ... }   // cpu.out.tmp.<pid> exists now
//   file.append("...");
//   file.append(zerolab::internal::profile::read_memory_map());
//   if (!file.commit(error)) { ... }           // cpu.out replaced in one step
#ifndef ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_
#define ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_

#include <cstddef>
#include <string>
#include <string_view>

namespace zerolab::internal::profile {

class ProfileFile {
 public:
  ProfileFile() = default;
  ProfileFile(const ProfileFile&) = delete;
  ProfileFile& operator=(const ProfileFile&) = delete;
  // Removes the temporary file of a profile that was not committed.
  ~ProfileFile();

  // Creates "<path>.tmp.<pid>" for writing. On failure returns false with a
  // message such as "cannot create x.tmp.7: No such file or directory".
  bool open(const std::string& path, std::string& error);
  bool is_open() const noexcept { return fd_ >= 0; }
  const std::string& path() const noexcept { return path_; }

  // Adds bytes to what commit() writes.
  void append(std::string_view bytes) { contents_.append(bytes); }

  // Writes the contents to the temporary file, closes it and renames it to
  // the destination. On failure removes the temporary and returns false.
  bool commit(std::string& error);
  // Closes and removes the temporary file.
  void abandon() noexcept;

 private:
  std::string path_;
  std::string temp_;
  std::string contents_;
  int fd_ = -1;
};

// The text of /proc/self/maps, which pprof reads after the samples to map
// addresses to the executable and the shared libraries ("" if unreadable).
std::string read_memory_map();

}  // namespace zerolab::internal::profile

#endif  // ZEROLAB_SRC_PROFILE_PROFILE_FILE_HPP_
