// The output-file writer (atomic_file.hpp).
#include "files/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "text/quote.hpp"

namespace zerolab::internal {
namespace {

// ---- temporaries removed on a catchable signal --------------------------------

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE};
constexpr std::size_t kSlots = 16;

// Constant-initialized (every member has its initializer): a dynamic
// initializer would write into each slot at start-up, faulting in 16 pages
// of BSS in every process that links this file.
struct TempSlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX]{};
};
constinit TempSlot g_slots[kSlots];
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

// "cannot write PATH: CAUSE", the path shown as quote.hpp shows input (a
// hostile name cannot drive the terminal or break the one line).
std::string cannot(const std::string& path, const std::string& cause) {
  return "cannot write " + shown_text(path) + ": " + cause;
}

// The same for standard output or error, named in words.
std::string cannot_write_stream(int fd, const std::string& cause) {
  return std::string("cannot write ") +
         (fd == STDOUT_FILENO ? "standard output" : "standard error") + ": " + cause;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool read_only_mode(const struct stat& st) {
  return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
}

// The symbolic links followed on the way to a directory, at most (as the
// kernel's own limit).
constexpr int kMaxLinks = 40;

// Opens the directory `path` one component at a time, never following a
// symbolic link that someone else could have planted: a link in a sticky
// directory others may write (/tmp) is followed only when this user or
// the directory's owner owns it, the rule of the kernel's
// fs.protected_symlinks, applied whatever that setting is. So a link
// /tmp/x -> /etc made by another user cannot turn a root run's
// `-o /tmp/x/passwd` into a write to /etc/passwd. -1 with errno set, or
// with `why` saying which link was refused (errno EPERM).
int open_directory(const std::string& path, std::string& why) {
  std::vector<std::string> todo;  // components left, the next one last
  auto push_front = [&todo](const std::string& p) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= p.size()) {
      const std::size_t slash = p.find('/', start);
      const std::size_t end = slash == std::string::npos ? p.size() : slash;
      if (end > start) parts.push_back(p.substr(start, end - start));
      start = end + 1;
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
  };
  const int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  int fd = ::open(!path.empty() && path[0] == '/' ? "/" : ".", flags);
  std::string walked = !path.empty() && path[0] == '/' ? "" : ".";
  push_front(path);
  int links = 0;
  while (fd >= 0 && !todo.empty()) {
    const std::string part = todo.back();
    todo.pop_back();
    if (part == ".") continue;
    int next = ::openat(fd, part.c_str(), flags | O_NOFOLLOW);
    if (next < 0 && (errno == ENOTDIR || errno == ELOOP)) {
      const int open_errno = errno;
      struct stat link {};
      struct stat parent {};
      if (::fstatat(fd, part.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(link.st_mode) ||
          ::fstat(fd, &parent) != 0) {
        errno = open_errno;
        break;
      }
      const bool shared = (parent.st_mode & S_ISVTX) != 0 && (parent.st_mode & S_IWOTH) != 0;
      if (shared && link.st_uid != ::geteuid() && link.st_uid != parent.st_uid) {
        why = walked + "/" + part +
              " is a symbolic link another user made in a sticky directory others may write "
              "(zerolab does not follow it; give the real path)";
        ::close(fd);
        errno = EPERM;
        return -1;
      }
      char target[PATH_MAX];
      const ssize_t n = ::readlinkat(fd, part.c_str(), target, sizeof target - 1);
      if (n < 0) break;
      if (++links > kMaxLinks) {
        errno = ELOOP;
        break;
      }
      const std::string to(target, static_cast<std::size_t>(n));
      if (!to.empty() && to[0] == '/') {
        ::close(fd);
        fd = ::open("/", flags);
        walked.clear();
      }
      push_front(to);
      continue;
    }
    ::close(fd);
    fd = next;
    walked += "/" + part;
  }
  if (fd < 0 || !todo.empty()) {
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    errno = saved;
    return -1;
  }
  // Opened for reading: the sweep of stale temporaries lists it.
  const int dir = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return dir;
}

// A directory opened once: every later step names the file relative to it,
// so a directory renamed or swapped for a link meanwhile cannot redirect it.
class Directory {
 public:
  explicit Directory(const std::string& path) : fd_(open_directory(path, why_)) {}
  // Why it could not be opened: a refused link, else errno's text.
  std::string why() const { return why_.empty() ? std::strerror(errno_) : why_; }
  ~Directory() {
    if (fd_ >= 0) ::close(fd_);
  }
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  int fd() const { return fd_; }

 private:
  std::string why_;
  int fd_;
  int errno_ = errno;
};

// What the final name is now, without following a link: false with errno
// set when it cannot be examined (ENOENT: it does not exist).
bool examine(int dir_fd, const std::string& name, struct stat& st) {
  return ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Why an existing entry may not be written ("" when it may): zerolab never
// writes through a link (the link, planted or not, could point anywhere,
// such as a system file when run as root) nor to a FIFO, socket or block
// device (a FIFO blocks until a reader comes); a character device (/dev/null,
// /dev/full, a terminal) is written in place, a regular file replaced.
std::string refusal(int dir_fd, const std::string& name, const struct stat& st) {
  if (S_ISLNK(st.st_mode)) {
    return "it is a symbolic link (zerolab does not write through links; give the path of the "
           "file itself)";
  }
  if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  if (S_ISCHR(st.st_mode)) {
    if (::faccessat(dir_fd, name.c_str(), W_OK, 0) != 0) return std::strerror(errno);
    return "";
  }
  if (!S_ISREG(st.st_mode)) return "not a regular file (a FIFO, socket or block device)";
  if (read_only_mode(st) || ::faccessat(dir_fd, name.c_str(), W_OK, 0) != 0) {
    return errno == EROFS ? std::strerror(EROFS) : "the file is read-only";
  }
  return "";
}

constexpr const char* kTempInfix = ".tmp.";

// Removes "<name>.tmp.<pid>" files of the directory whose process is gone.
void sweep_stale_temporaries(int dir_fd, const std::string& name) {
  const int fd = ::dup(dir_fd);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return;
  }
  const std::string prefix = name + kTempInfix;
  while (const dirent* e = ::readdir(d)) {
    const std::string entry = e->d_name;
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = entry.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::atol(digits.c_str()));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    ::unlinkat(dir_fd, entry.c_str(), 0);
  }
  ::closedir(d);
}

// "-" and the names of the standard streams (links into /proc, refused as
// links otherwise): written to the descriptor this process already has.
int standard_stream(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  return -1;
}

// The checks shared by check_output_path and write_file_atomically. Sets
// *existing (and st) when the final name exists.
bool check_entry(const std::string& path, int dir_fd, const std::string& name, struct stat& st,
                 bool* existing, std::string& error) {
  *existing = false;
  if (name.empty() || name == "." || name == "..") {
    error = cannot(path, std::strerror(EISDIR));
    return false;
  }
  if (examine(dir_fd, name, st)) {
    *existing = true;
    const std::string why = refusal(dir_fd, name, st);
    if (!why.empty()) {
      error = cannot(path, why);
      return false;
    }
    if (S_ISCHR(st.st_mode)) return true;
  } else if (errno != ENOENT) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  if (::faccessat(dir_fd, ".", W_OK | X_OK, 0) != 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

bool write_all(int fd, std::string_view text, WriteCall call) {
  while (!text.empty()) {
    const ssize_t n = call == WriteCall::kSend ? ::send(fd, text.data(), text.size(), MSG_NOSIGNAL)
                                               : ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       std::string& error) {
  if (path.empty()) {
    error = "cannot write \"\": empty output path";
    return false;
  }
  if (standard_stream(path) >= 0) return true;
  const Directory dir(directory_of(path));
  if (dir.fd() < 0) {
    error = cannot(path, dir.why());
    return false;
  }
  const std::string name = base_name_of(path);
  struct stat st {};
  bool existing = false;
  if (!check_entry(path, dir.fd(), name, st, &existing, error)) return false;
  if (existing) {
    for (const std::string& input : inputs) {
      struct stat in {};
      if (input != "-" && ::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev &&
          in.st_ino == st.st_ino) {
        error = cannot(path, "it is also an input (" + input + ")");
        return false;
      }
    }
  }
  return true;
}

struct OutputFile::State {
  std::string path;  // as the user gave it
  std::string dir_path;
  std::string name;
  std::string temp;
  std::unique_ptr<Directory> dir;
  std::unique_ptr<TempRegistration> registration;
  struct stat st {};
  bool exists = false;
  int fd = -1;
  bool stream = false;    // stdout, stderr: written as it comes
  bool in_place = false;  // a character device
  bool failed = false;
  int saved = 0;
};

OutputFile::OutputFile() = default;

OutputFile::~OutputFile() {
  if (state_ == nullptr) return;
  if (state_->fd >= 0 && !state_->stream) ::close(state_->fd);
  if (!state_->temp.empty() && state_->dir != nullptr)
    ::unlinkat(state_->dir->fd(), state_->temp.c_str(), 0);
}

bool OutputFile::open(const std::string& path, std::string& error) {
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.path = path;
  if (const int fd = standard_stream(path); fd >= 0) {
    std::fflush(fd == STDOUT_FILENO ? stdout : stderr);
    s.fd = fd;
    s.stream = true;
    return true;
  }
  if (path.empty()) {
    error = "cannot write \"\": empty output path";
    return false;
  }
  s.dir_path = directory_of(path);
  s.dir = std::make_unique<Directory>(s.dir_path);
  if (s.dir->fd() < 0) {
    error = cannot(path, s.dir->why());
    return false;
  }
  s.name = base_name_of(path);
  if (!check_entry(path, s.dir->fd(), s.name, s.st, &s.exists, error)) return false;
  if (s.exists && S_ISCHR(s.st.st_mode)) {
    s.fd = ::openat(s.dir->fd(), s.name.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (s.fd < 0) {
      error = cannot(path, std::strerror(errno));
      return false;
    }
    s.in_place = true;
    return true;
  }
  sweep_stale_temporaries(s.dir->fd(), s.name);
  const std::string temp = s.name + kTempInfix + std::to_string(::getpid());
  s.registration = std::make_unique<TempRegistration>(s.dir_path + "/" + temp);
  const mode_t mode = s.exists ? (s.st.st_mode & 07777) : 0666;
  // O_EXCL | O_NOFOLLOW: the temporary is a new file of ours, never an
  // entry someone planted under its name (that is removed, not followed).
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  s.fd = ::openat(s.dir->fd(), temp.c_str(), flags, mode);
  if (s.fd < 0 && errno == EEXIST && ::unlinkat(s.dir->fd(), temp.c_str(), 0) == 0) {
    s.fd = ::openat(s.dir->fd(), temp.c_str(), flags, mode);
  }
  if (s.fd < 0) {
    error = cannot(path, std::strerror(errno));
    return false;
  }
  s.temp = temp;
  return true;
}

bool OutputFile::write(std::string_view text, std::string& error) {
  State& s = *state_;
  if (s.failed) return false;
  if (write_all(s.fd, text)) return true;
  s.failed = true;
  s.saved = errno;
  error = s.stream ? cannot_write_stream(s.fd, std::strerror(s.saved))
                   : cannot(s.path, std::strerror(s.saved));
  return false;
}

bool OutputFile::commit(std::string& error) {
  State& s = *state_;
  if (s.failed) {
    error = cannot(s.path, std::strerror(s.saved));
    return false;
  }
  if (s.stream) return true;
  if (s.in_place) {
    const int fd = s.fd;
    s.fd = -1;
    if (::close(fd) != 0) {
      error = cannot(s.path, std::strerror(errno));
      return false;
    }
    return true;
  }
  bool ok = true;
  int saved = 0;
  if (s.exists) {
    // The replacement keeps the old file's permission bits and, where
    // allowed (as root), its owner.
    if (::fchmod(s.fd, s.st.st_mode & 07777) != 0) {
      ok = false;
      saved = errno;
    } else if (s.st.st_uid != ::geteuid() || s.st.st_gid != ::getegid()) {
      if (::fchown(s.fd, s.st.st_uid, s.st.st_gid) == 0) (void)::fchmod(s.fd, s.st.st_mode & 07777);
    }
  }
  const int fd = s.fd;
  s.fd = -1;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  std::string why;
  if (ok) {
    // The final name again, just before it is replaced: something put there
    // meanwhile (a link, a FIFO) is refused, not replaced.
    struct stat now {};
    if (examine(s.dir->fd(), s.name, now)) {
      why = refusal(s.dir->fd(), s.name, now);
      if (why.empty() && S_ISCHR(now.st_mode)) why = "it became a device while being written";
    }
  }
  if (ok && why.empty() &&
      ::renameat(s.dir->fd(), s.temp.c_str(), s.dir->fd(), s.name.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok || !why.empty()) {
    error = cannot(s.path, why.empty() ? std::strerror(saved) : why);
    return false;  // the destructor removes the temporary
  }
  s.temp.clear();
  return true;
}

bool write_file_atomically(const std::string& path, std::string_view text, std::string& error) {
  OutputFile out;
  return out.open(path, error) && out.write(text, error) && out.commit(error);
}

}  // namespace zerolab::internal
