// Staging directories removed on a fatal signal (lab/staging_cleanup.hpp).
#include "lab/framework/staging_cleanup.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>

namespace zerolab::lab {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
constexpr int kMaxDepth = 16;

// Constant-initialized, so no start-up code writes (and faults in) its pages.
struct Slot {
  std::atomic<bool> armed{false};
  char dir[PATH_MAX]{};
};
constinit Slot g_slots[4];
struct sigaction g_previous[std::size(kSignals)];
bool g_installed = false;

// The fixed head of the kernel's struct linux_dirent64; the entry's
// NUL-terminated name follows the type byte (kNameOffset).
struct DirEntry {
  ino64_t ino;
  off64_t off;
  unsigned short reclen;
  unsigned char type;
};
constexpr std::size_t kNameOffset = offsetof(DirEntry, type) + sizeof(unsigned char);

// Removes everything inside the directory fd (not fd itself), without
// following links; async-signal-safe.
void empty_directory(int fd, int depth) {
  alignas(8) char buf[2048];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) return;
    bool removed_any = false;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const DirEntry*>(buf + at);
      at += e->reclen;
      const char* name = reinterpret_cast<const char*>(e) + kNameOffset;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      if (::unlinkat(fd, name, 0) == 0) {
        removed_any = true;
        continue;
      }
      if (depth >= kMaxDepth) continue;
      const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      empty_directory(sub, depth + 1);
      ::close(sub);
      if (::unlinkat(fd, name, AT_REMOVEDIR) == 0) removed_any = true;
    }
    // Entries were removed while reading: start over from the beginning.
    if (removed_any) ::lseek(fd, 0, SEEK_SET);
  }
}

void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  for (Slot& slot : g_slots) {
    if (!slot.armed.exchange(false)) continue;
    const int fd = ::open(slot.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      empty_directory(fd, 0);
      ::close(fd);
      ::rmdir(slot.dir);
    }
  }
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  ::raise(sig);
}

}  // namespace

void remove_on_fatal_signal(const std::string& dir) {
  if (dir.empty() || dir.size() >= PATH_MAX) return;
  Slot* free_slot = nullptr;
  for (Slot& slot : g_slots) {
    if (slot.armed.load() && dir == slot.dir) return;
    if (!slot.armed.load() && free_slot == nullptr) free_slot = &slot;
  }
  if (free_slot == nullptr) return;
  std::memcpy(free_slot->dir, dir.c_str(), dir.size() + 1);
  if (!g_installed) {
    struct sigaction action {};
    action.sa_handler = &on_fatal_signal;
    sigemptyset(&action.sa_mask);
    for (const int sig : kSignals) sigaddset(&action.sa_mask, sig);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      struct sigaction current {};
      ::sigaction(kSignals[i], nullptr, &current);
      // An ignored signal stays ignored (nohup).
      if (current.sa_handler == SIG_IGN) {
        g_previous[i] = current;
        continue;
      }
      ::sigaction(kSignals[i], &action, &g_previous[i]);
    }
    g_installed = true;
  }
  free_slot->armed.store(true);
}

void keep_on_fatal_signal(const std::string& dir) {
  for (Slot& slot : g_slots) {
    if (slot.armed.load() && dir == slot.dir) slot.armed.store(false);
  }
}

}  // namespace zerolab::lab
