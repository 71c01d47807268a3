// The output-file writer (atomic_file.hpp).
#include "format/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace zerolab::internal {
namespace {

// ---- temporaries removed on a catchable signal --------------------------------

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE};
constexpr std::size_t kSlots = 16;

struct TempSlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
TempSlot g_slots[kSlots];
struct sigaction g_previous[sizeof kCleanupSignals / sizeof kCleanupSignals[0]];
std::once_flag g_install_once;

void on_cleanup_signal(int sig) {
  for (TempSlot& slot : g_slots) {
    if (slot.used.load(std::memory_order_acquire)) ::unlink(slot.path);
  }
  for (std::size_t i = 0; i < sizeof kCleanupSignals / sizeof kCleanupSignals[0]; ++i) {
    if (kCleanupSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  }
  raise(sig);
}

// Installs the handler for the signals whose action is still the default
// (a program's own handler is left alone).
void install_cleanup() {
  struct sigaction action {};
  action.sa_handler = &on_cleanup_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = static_cast<int>(SA_RESETHAND);  // 0x80000000: the sign bit of sa_flags
  for (std::size_t i = 0; i < sizeof kCleanupSignals / sizeof kCleanupSignals[0]; ++i) {
    struct sigaction current {};
    sigaction(kCleanupSignals[i], nullptr, &current);
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO) != 0) continue;
    sigaction(kCleanupSignals[i], &action, &g_previous[i]);
  }
}

// A temporary registered for removal on a signal while it exists.
class TempRegistration {
 public:
  explicit TempRegistration(const std::string& path) {
    std::call_once(g_install_once, install_cleanup);
    if (path.size() >= PATH_MAX) return;
    for (TempSlot& slot : g_slots) {
      bool expected = false;
      if (slot.used.load(std::memory_order_relaxed)) continue;
      std::memcpy(slot.path, path.c_str(), path.size() + 1);
      if (slot.used.compare_exchange_strong(expected, true, std::memory_order_release)) {
        slot_ = &slot;
        return;
      }
    }
  }
  ~TempRegistration() {
    if (slot_ != nullptr) slot_->used.store(false, std::memory_order_release);
  }
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;

 private:
  TempSlot* slot_ = nullptr;
};

// ---- paths --------------------------------------------------------------------

std::string cannot(const std::string& path, const std::string& cause) {
  return "cannot write " + path + ": " + cause;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Where a write of `path` lands: the symlink's target (followed to the end)
// or path itself.
std::string resolve_symlinks(const std::string& path) {
  std::string current = path;
  for (int depth = 0; depth < 40; ++depth) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof target - 1);
    if (n < 0) return current;
    target[n] = '\0';
    current = target[0] == '/' ? std::string(target) : directory_of(current) + "/" + target;
  }
  return current;
}

bool read_only_mode(const struct stat& st) {
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
}

// Removes "<base>.tmp.<pid>" files of `target`'s directory whose process is gone.
void sweep_stale_temporaries(const std::string& target) {
  const std::string dir = directory_of(target);
  const std::size_t slash = target.rfind('/');
  const std::string prefix =
      (slash == std::string::npos ? target : target.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::atol(digits.c_str()));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool write_stdout(std::string_view text, std::string& error) {
  std::fflush(stdout);
  if (!write_all(STDOUT_FILENO, text)) {
    error = cannot("standard output", std::strerror(errno));
    return false;
  }
  return true;
}

// Writes a device node, FIFO or socket in place.
bool write_in_place(const std::string& path, const std::string& target, std::string_view text,
                    std::string& error) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 || !write_all(fd, text)) {
    error = cannot(path, std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return false;
  }
  if (::close(fd) != 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

bool check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       std::string& error) {
  if (path.empty()) {
    error = "cannot write \"\": empty output path";
    return false;
  }
  if (path == "-") return true;
  const std::string target = resolve_symlinks(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    for (const std::string& input : inputs) {
      struct stat in {};
      if (input != "-" && ::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev &&
          in.st_ino == st.st_ino) {
        error = cannot(path, "it is also an input (" + input + ")");
        return false;
      }
    }
    if (S_ISDIR(st.st_mode)) {
      error = cannot(path, std::strerror(EISDIR));
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      if (::access(target.c_str(), W_OK) != 0) {
        error = cannot(path, std::strerror(errno));
        return false;
      }
      return true;
    }
    if (read_only_mode(st) || ::access(target.c_str(), W_OK) != 0) {
      error = cannot(path, errno == EROFS ? std::strerror(EROFS) : "the file is read-only");
      return false;
    }
  } else if (errno != ENOENT) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  const std::string dir = directory_of(target);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  if (!S_ISDIR(dst.st_mode)) {
    error = cannot(path, std::strerror(ENOTDIR));
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, std::string_view text, std::string& error) {
  if (path == "-") return write_stdout(text, error);
  if (!check_output_path(path, {}, error)) return false;
  const std::string target = resolve_symlinks(path);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(path, target, text, error);

  sweep_stale_temporaries(target);
  const std::string temp = target + ".tmp." + std::to_string(::getpid());
  TempRegistration registration(temp);
  const mode_t mode = exists ? (st.st_mode & 07777) : 0666;
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  bool ok = write_all(fd, text);
  int saved = errno;
  if (ok && exists && ::fchmod(fd, st.st_mode & 07777) != 0) {
    ok = false;
    saved = errno;
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && std::rename(temp.c_str(), target.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    error = cannot(path, std::strerror(saved));
    return false;
  }
  return true;
}

}  // namespace zerolab::internal
