// The machine profile on disk: where it lives, this machine's key, reading
// it with the checks a file in a user's cache deserves, and writing it
// atomically (machine_profile.hpp).
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "machine/machine_profile.hpp"

namespace zerolab::machine {
namespace {

constexpr const char* kDirName = "zerolab";
constexpr const char* kFileName = "machine-profile";

// Printable ASCII only, at most 200 characters: a key value goes on one line.
std::string clean(std::string_view value) {
  std::string s;
  for (const char ch : value.substr(0, 200)) s += ch >= 0x20 && ch <= 0x7e ? ch : '?';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string errno_text(const std::string& what, int e) {
  return what + ": " + std::strerror(e);
}

// Reads all of `fd` up to `limit` + 1 bytes.
bool read_all(int fd, std::string& out, std::size_t limit) {
  char buf[4096];
  while (out.size() <= limit) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

// The directory and file name of `path`.
std::pair<std::string, std::string> split(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// The value of the line "name<tabs>: value" in `text`, "" where absent.
std::string cpuinfo_field(std::string_view text, std::string_view name) {
  std::size_t at = 0;
  while ((at = text.find(name, at)) != std::string_view::npos) {
    if (at == 0 || text[at - 1] == '\n') {
      const std::size_t colon = text.find(':', at);
      const std::size_t nl = text.find('\n', at);
      if (colon != std::string_view::npos && colon < nl) {
        std::size_t from = colon + 1;
        while (from < nl && text[from] == ' ') ++from;
        return clean(text.substr(from, nl - from));
      }
    }
    at += name.size();
  }
  return std::string();
}

}  // namespace

MachineKey this_machine_key() {
  MachineKey key;
  const int fd = ::open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    // The first processor's block is enough (the fields are per package).
    // The kernel formats /proc/cpuinfo one processor's block at a time, as
    // many as a read asks for, each costing some microseconds; 1 KiB reads
    // that stop once both fields are in (or at the block's end, a blank
    // line) have it format one block (17 us here, against 30 us for the
    // whole file of two; a machine with many CPUs has more to skip).
    std::string text;
    char buf[1024];
    while (text.size() < (64 << 10)) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
      const std::size_t microcode = text.find("\nmicrocode");
      if (text.find("\n\n") != std::string::npos ||
          (text.find("\nmodel name") != std::string::npos && microcode != std::string::npos &&
           text.find('\n', microcode + 1) != std::string::npos)) {
        break;
      }
    }
    ::close(fd);
    const std::string_view first = std::string_view(text).substr(0, text.find("\n\n"));
    key.cpu = cpuinfo_field(first, "model name");
    key.microcode = cpuinfo_field(first, "microcode");
  }
  utsname u{};
  if (uname(&u) == 0) key.kernel = clean(u.release);
  key.glibc = clean(gnu_get_libc_version());
  return key;
}

std::string cache_file_path(std::string_view file, std::string* why) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/" + kDirName + "/" + std::string(file);
  }
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/" + kDirName + "/" + std::string(file);
  }
  if (why != nullptr)
    *why = "no cache directory (neither XDG_CACHE_HOME nor HOME is an absolute path)";
  return "";
}

std::string profile_path(std::string* why) {
  return cache_file_path(kFileName, why);
}

int read_cache_file(const std::string& path, std::size_t limit, std::string& text,
                    std::string& refused) {
  text.clear();
  refused.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return errno;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    refused = errno_text("fstat", errno);
  } else if (!S_ISREG(st.st_mode)) {
    refused = "refused: not a regular file";
  } else if (st.st_uid != geteuid()) {
    refused = "refused: owned by uid " + std::to_string(st.st_uid) + ", not this user";
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refused = "refused: writable by group or others";
  } else if (!read_all(fd, text, limit)) {
    refused = errno_text("read", errno);
  }
  ::close(fd);
  return 0;
}

namespace {

// Reads and parses the profile at `path` into `loaded` (its `why` set when
// it cannot be used); whether it is this machine's is not checked here.
bool read_profile(const std::string& path, LoadedProfile& loaded) {
  loaded.path = path;
  std::string text;
  std::string refused;
  if (const int e = read_cache_file(path, kMaxProfileBytes, text, refused); e != 0) {
    loaded.why = e == ENOENT  ? "no profile at " + path
                 : e == ELOOP ? path + ": refused: a symlink"
                              : path + ": " + errno_text("open", e);
    return false;
  }
  if (!refused.empty()) {
    loaded.why = path + ": " + refused;
    return false;
  }
  std::string error;
  std::optional<MachineProfile> profile = parse_profile(text, error);
  if (!profile) {
    loaded.why = path + ": refused: " + error;
    return false;
  }
  loaded.profile = *std::move(profile);
  return true;
}

// Marks `loaded` usable when its key is `here`'s.
void check_key(LoadedProfile& loaded, const MachineKey& here) {
  if (std::string stale = staleness(loaded.profile, here); !stale.empty()) {
    loaded.why = loaded.path + ": " + stale;
    loaded.profile = MachineProfile{};
    return;
  }
  loaded.usable = true;
}

}  // namespace

LoadedProfile load_profile(const std::string& path, const MachineKey& here) {
  LoadedProfile loaded;
  if (read_profile(path, loaded)) check_key(loaded, here);
  return loaded;
}

const LoadedProfile& machine_profile() {
  static const LoadedProfile loaded = [] {
    LoadedProfile p;
    std::string why;
    p.path = profile_path(&why);
    if (p.path.empty()) {
      p.why = why;
      return p;
    }
    // Without a file this is one failed open; this machine's key (a
    // /proc/cpuinfo read, uname) is read only for a well-formed profile.
    if (read_profile(p.path, p)) check_key(p, this_machine_key());
    return p;
  }();
  return loaded;
}

std::string write_cache_file(const std::string& path, const std::string& text) {
  const auto [dir, name] = split(path);
  if (name.empty()) return path + ": not a file name";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    // One level up may be missing too ($HOME/.cache on a fresh account).
    const std::string parent = split(dir).first;
    if (errno != ENOENT || ::mkdir(parent.c_str(), 0700) != 0 || ::mkdir(dir.c_str(), 0700) != 0) {
      return dir + ": " + errno_text("mkdir", errno);
    }
  }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dfd < 0) {
    const int e = errno;
    struct stat link {};
    const bool symlink = ::lstat(dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    return dir + ": " + (symlink ? std::string("refused: a symlink") : errno_text("open", e));
  }
  struct stat st {};
  if (fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
    ::close(dfd);
    return path + ": refused: exists and is not a regular file";
  }
  const std::string tmp = "." + name + ".tmp." + std::to_string(::getpid());
  const int fd =
      ::openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const std::string e = errno_text("create " + tmp, errno);
    ::close(dfd);
    return dir + ": " + e;
  }
  std::string error;
  for (std::size_t done = 0; done < text.size() && error.empty();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      error = errno_text("write", errno);
    }
  }
  if (error.empty() && ::fsync(fd) != 0) error = errno_text("fsync", errno);
  if (::close(fd) != 0 && error.empty()) error = errno_text("close", errno);
  if (error.empty() && ::renameat(dfd, tmp.c_str(), dfd, name.c_str()) != 0) {
    error = errno_text("rename", errno);
  }
  if (!error.empty()) ::unlinkat(dfd, tmp.c_str(), 0);
  ::close(dfd);
  return error.empty() ? "" : path + ": " + error;
}

std::string write_profile(const std::string& path, const MachineProfile& profile) {
  return write_cache_file(path, format_profile(profile));
}

}  // namespace zerolab::machine
