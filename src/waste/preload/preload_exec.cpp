// zerolab::waste's exec and spawn family: children that lose the preload.
//
// A program that starts another with an environment of its own making
// (execve, execle, execvpe, fexecve, posix_spawn with an envp) or after
// clearing its own (unsetenv("LD_PRELOAD"), clearenv, then execvp) runs it
// without this library: that child's waste is not recorded. Each such call
// is checked here: if the environment it passes lacks this library in
// LD_PRELOAD or lacks $ZEROLAB_WASTE_DIR, the child's pid and command line
// go into the record's list of unrecorded children (Record::lost), so the
// report can name them. An exec that fails takes its entry back. Not seen:
// children started through calls glibc makes internally (system(), popen()
// keep the environment, so they keep the preload) and raw clone/execve
// system calls.
//
// With --no-follow the preload takes itself out on purpose and nothing is
// recorded here.
//
// Example: under zerolab waste, `char* env[] = {"PATH=/bin", NULL};
// execve("/bin/ls", argv, env);` lists the process's pid with "/bin/ls ...".
#include <dlfcn.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>

#include "waste/preload/preload_state.hpp"

extern char** environ;

namespace zerolab::waste {
namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,
                        const posix_spawnattr_t*, char* const[], char* const[]);

struct Real {
  ExecveFn execve;
  ExecvpeFn execvpe;
  FexecveFn fexecve;
  SpawnFn posix_spawn;
  SpawnFn posix_spawnp;
};
Real g_real{};

template <typename Fn>
void find(Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

__attribute__((constructor(101))) void find_glibc_exec() {
  find(g_real.execve, "execve");
  find(g_real.execvpe, "execvpe");
  find(g_real.fexecve, "fexecve");
  find(g_real.posix_spawn, "posix_spawn");
  find(g_real.posix_spawnp, "posix_spawnp");
}

// The value of `name` in `env`, or null.
const char* env_value(char* const* env, const char* name) {
  const std::size_t n = std::strlen(name);
  for (; env != nullptr && *env != nullptr; ++env) {
    if (std::strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
  }
  return nullptr;
}

// True if `list` (colon/space separated) names `lib`.
bool lists_library(const char* list, const char* lib) {
  const std::size_t len = std::strlen(lib);
  for (const char* p = list; p != nullptr && *p != '\0';) {
    while (*p == ':' || *p == ' ') ++p;
    const char* start = p;
    while (*p != '\0' && *p != ':' && *p != ' ') ++p;
    if (static_cast<std::size_t>(p - start) == len && std::strncmp(start, lib, len) == 0) {
      return true;
    }
  }
  return false;
}

// True if a child started with `env` would run with this library, recording.
bool keeps_preload(char* const* env) {
  const Record* r = g_record;
  if (r == nullptr || !g_follow) return true;
  const char* dir = env_value(env, kEnvDir);
  return dir != nullptr && *dir != '\0' && lists_library(env_value(env, "LD_PRELOAD"), r->preload);
}

// Adds `pid` running `path argv[1..]` to the record's unrecorded children;
// returns its slot (or -1 if the list is full).
int note_lost(long pid, const char* path, char* const* argv) {
  Record* r = g_record;
  const std::uint32_t slot = r->lost_count.fetch_add(1, std::memory_order_relaxed);
  if (slot >= kMaxLostChildren) return -1;
  LostChild& c = r->lost[slot];
  std::size_t used = 0;
  auto append = [&](const char* s) {
    for (; s != nullptr && *s != '\0' && used + 1 < sizeof c.command; ++s) c.command[used++] = *s;
  };
  append(path);
  for (int i = 1; argv != nullptr && argv[i] != nullptr; ++i) {
    append(" ");
    append(argv[i]);
  }
  c.command[used] = '\0';
  c.pid = pid;
  return static_cast<int>(slot);
}

// An exec that returned (it failed): the process was not replaced.
void take_back(int slot) {
  if (slot >= 0) g_record->lost[slot].pid = 0;
}

// Before an exec of `path` with `env`: the slot to take back if it fails.
int before_exec(const char* path, char* const* argv, char* const* env) {
  if (!g_active.load(std::memory_order_relaxed) || t_state.in_hook != 0) return -1;
  refresh_thread_names();  // the image ends here if the exec works
  if (keeps_preload(env)) return -1;
  return note_lost(static_cast<long>(getpid()), path, argv);
}

void after_exec_failed(int slot) {
  const int saved = errno;
  take_back(slot);
  errno = saved;
}

// After a spawn that started `*pid` with `env`.
void after_spawn(int rc, const pid_t* pid, const char* path, char* const* argv, char* const* env) {
  if (rc != 0 || pid == nullptr || !g_active.load(std::memory_order_relaxed) ||
      keeps_preload(env)) {
    return;
  }
  note_lost(static_cast<long>(*pid), path, argv);
}

// execl/execle/execlp's argument lists as an argv (at most 4095 arguments;
// more and the command is recorded cut).
constexpr int kMaxListArgs = 4096;

}  // namespace
}  // namespace zerolab::waste

namespace w = zerolab::waste;

ZEROLAB_WASTE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  const auto real = w::g_real.execve;
  const int slot = w::before_exec(path, argv, envp);
  const int rc = real != nullptr ? real(path, argv, envp)
                                 : static_cast<int>(syscall(SYS_execve, path, argv, envp));
  w::after_exec_failed(slot);
  return rc;
}

ZEROLAB_WASTE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  const auto real = w::g_real.execvpe;
  const int slot = w::before_exec(file, argv, envp);
  const int rc = real != nullptr ? real(file, argv, envp) : (errno = ENOSYS, -1);
  w::after_exec_failed(slot);
  return rc;
}

ZEROLAB_WASTE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  const auto real = w::g_real.fexecve;
  const int slot = w::before_exec(argv[0], argv, envp);
  const int rc = real != nullptr ? real(fd, argv, envp) : (errno = ENOSYS, -1);
  w::after_exec_failed(slot);
  return rc;
}

ZEROLAB_WASTE_EXPORT int execv(const char* path, char* const argv[]) {
  return execve(path, argv, environ);
}

ZEROLAB_WASTE_EXPORT int execvp(const char* file, char* const argv[]) {
  return execvpe(file, argv, environ);
}

ZEROLAB_WASTE_EXPORT int execl(const char* path, const char* arg, ...) {
  char* argv[w::kMaxListArgs];
  int n = 0;
  argv[n++] = const_cast<char*>(arg);
  va_list ap;
  va_start(ap, arg);
  while (argv[n - 1] != nullptr && n < w::kMaxListArgs) argv[n++] = va_arg(ap, char*);
  va_end(ap);
  argv[w::kMaxListArgs - 1] = nullptr;  // a list cut short still ends
  return execve(path, argv, environ);
}

ZEROLAB_WASTE_EXPORT int execlp(const char* file, const char* arg, ...) {
  char* argv[w::kMaxListArgs];
  int n = 0;
  argv[n++] = const_cast<char*>(arg);
  va_list ap;
  va_start(ap, arg);
  while (argv[n - 1] != nullptr && n < w::kMaxListArgs) argv[n++] = va_arg(ap, char*);
  va_end(ap);
  argv[w::kMaxListArgs - 1] = nullptr;  // a list cut short still ends
  return execvpe(file, argv, environ);
}

ZEROLAB_WASTE_EXPORT int execle(const char* path, const char* arg, ...) {
  char* argv[w::kMaxListArgs];
  int n = 0;
  argv[n++] = const_cast<char*>(arg);
  va_list ap;
  va_start(ap, arg);
  while (argv[n - 1] != nullptr && n < w::kMaxListArgs) argv[n++] = va_arg(ap, char*);
  if (argv[n - 1] != nullptr) {  // cut short: skip to the list's end
    while (va_arg(ap, char*) != nullptr) {
    }
  }
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  argv[w::kMaxListArgs - 1] = nullptr;
  return execve(path, argv, envp);
}

ZEROLAB_WASTE_EXPORT int posix_spawn(pid_t* pid, const char* path,
                                     const posix_spawn_file_actions_t* actions,
                                     const posix_spawnattr_t* attr, char* const argv[],
                                     char* const envp[]) {
  const auto real = w::g_real.posix_spawn;
  const int rc = real != nullptr ? real(pid, path, actions, attr, argv, envp) : ENOSYS;
  w::after_spawn(rc, pid, path, argv, envp);
  return rc;
}

ZEROLAB_WASTE_EXPORT int posix_spawnp(pid_t* pid, const char* file,
                                      const posix_spawn_file_actions_t* actions,
                                      const posix_spawnattr_t* attr, char* const argv[],
                                      char* const envp[]) {
  const auto real = w::g_real.posix_spawnp;
  const int rc = real != nullptr ? real(pid, file, actions, attr, argv, envp) : ENOSYS;
  w::after_spawn(rc, pid, file, argv, envp);
  return rc;
}
