// zerolab::waste's start-up, record file, threads, sites and page queries
// (the hooks are in preload_alloc.cpp, preload_zero.cpp, preload_copy.cpp;
// the shared declarations in preload_state.hpp).
//
// Start: the constructor reads $ZEROLAB_WASTE_DIR (without it the library
// only forwards), creates <dir>/<pid>.<n>.rec, maps it MAP_SHARED and sets
// g_active. With $ZEROLAB_WASTE_FOLLOW=0 it also takes itself out of
// LD_PRELOAD so the program's children run without it. A fork child gets a
// record of its own (pthread_atfork); a vfork child shares its parent's until
// it execs and the new image starts its own.
//
// Example: LD_PRELOAD=libzerolab_waste.so ZEROLAB_WASTE_DIR=/tmp/w ./prog
//          leaves /tmp/w/<pid>.0.rec for `zerolab waste` to read.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "waste/preload/preload_math.hpp"
#include "waste/preload/preload_state.hpp"

// The loader's: the top of the initial thread's stack, as the kernel left it.
extern "C" void* __libc_stack_end;

namespace zerolab::waste {

std::atomic<bool> g_active{false};
std::atomic<std::uint64_t> g_maps_generation{0};
Record* g_record = nullptr;
// The highest thread slot this process image has claimed: the slots above
// it were never written, and reading one would make the record's file
// system allocate a zeroed page for it (tmpfs does), at every exit.
std::atomic<std::uint32_t> g_slots_high{0};
std::uint64_t g_sample_rate = 512 * 1024;
std::uint64_t g_check_rate = 256 * 1024;
bool g_follow = true;
constinit ZEROLAB_WASTE_TLS thread_local ThreadState t_state{};

namespace {

pthread_key_t g_exit_key;
pthread_t g_initial_thread{};  // the thread the constructor ran on
bool g_exit_key_ready = false;
SpinLock g_site_lock;  // adding sites and refreshing the maps snapshot
SpinLock g_anon_lock;  // the anonymous-mapping cache
int g_pagemap_fd = -1;
char g_dir[512];
int g_max_frames = kMaxFrames;       // $ZEROLAB_WASTE_MAX_FRAMES (benchmarks)
std::uint64_t g_process_random = 0;  // process_random(), read once at start

// ---- raw system calls -------------------------------------------------------

int raw_open(const char* path, int flags, int mode = 0) {
  return static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}
void raw_close(int fd) {
  syscall(SYS_close, fd);
}

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::uint64_t parse_rate(const char* s, std::uint64_t fallback) {
  if (s == nullptr || *s == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  return (*end != '\0' || v == 0) ? fallback : v;
}

// splitmix64's finalizer: every input bit reaches every output bit.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// 64 bits the kernel chose at random for this process image (AT_RANDOM,
// 16 bytes on the initial stack; getrandom where the auxiliary vector lacks them).
std::uint64_t process_random() {
  std::uint64_t r = 0;
  if (const auto at = getauxval(AT_RANDOM); at != 0) {
    std::memcpy(&r, reinterpret_cast<const void*>(at), sizeof r);
  }
  if (r == 0) syscall(SYS_getrandom, &r, sizeof r, GRND_NONBLOCK);
  return r;
}

// A thread's first sampler state: the process's random bits, its pid, the
// thread id and the clock, each through the mixer, so threads started in
// the same nanosecond, and processes started in the same second, draw
// unrelated first samples. A fork child reseeds (fork_child resets rng).
std::uint64_t thread_seed() {
  std::uint64_t h = splitmix64(g_process_random);
  h = splitmix64(h ^ static_cast<std::uint64_t>(getpid()));
  h = splitmix64(h ^ static_cast<std::uint64_t>(syscall(SYS_gettid)));
  h = splitmix64(h ^ static_cast<std::uint64_t>(monotonic_ns()));
  return h == 0 ? 1 : h;  // xorshift's state must not be zero
}

// ---- /proc/self/maps ----------------------------------------------------------

// Calls fn(line, length) for each line of /proc/self/maps (lines longer than
// the buffer are cut). Reads with raw system calls, allocates nothing.
template <typename Fn>
void for_each_maps_line(Fn&& fn) {
  const int fd = raw_open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[8192];
  std::size_t held = 0;
  for (;;) {
    const ssize_t got = raw_read(fd, buf + held, sizeof buf - held);
    if (got <= 0) break;
    held += static_cast<std::size_t>(got);
    std::size_t start = 0;
    for (std::size_t i = 0; i < held; ++i) {
      if (buf[i] == '\n') {
        fn(buf + start, i - start);
        start = i + 1;
      }
    }
    if (start == 0 && held == sizeof buf) {  // one overlong line: cut it
      fn(buf, held);
      start = held;
    }
    std::memmove(buf, buf + start, held - start);
    held -= start;
  }
  if (held > 0) fn(buf, held);
  raw_close(fd);
}

struct MapsLine {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  const char* perms = nullptr;  // 4 characters
  std::uint64_t inode = 0;
  const char* path = nullptr;  // may be empty
  std::size_t path_length = 0;
};

bool parse_hex(const char*& p, const char* end, std::uintptr_t& out) {
  out = 0;
  const char* start = p;
  while (p < end) {
    const char c = *p;
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d < 0) break;
    out = out * 16 + static_cast<std::uintptr_t>(d);
    ++p;
  }
  return p != start;
}

bool parse_maps_line(const char* line, std::size_t length, MapsLine& m) {
  const char* p = line;
  const char* end = line + length;
  if (!parse_hex(p, end, m.begin) || p >= end || *p != '-') return false;
  ++p;
  if (!parse_hex(p, end, m.end) || p + 5 > end) return false;
  m.perms = p + 1;
  p += 6;
  int field = 0;  // offset, dev, inode
  while (p < end && field < 3) {
    while (p < end && *p == ' ') ++p;
    const char* f = p;
    while (p < end && *p != ' ') ++p;
    if (field == 2) {
      m.inode = 0;
      for (const char* q = f; q < p; ++q)
        m.inode = m.inode * 10 + static_cast<std::uint64_t>(*q - '0');
    }
    ++field;
  }
  while (p < end && *p == ' ') ++p;
  m.path = p;
  m.path_length = static_cast<std::size_t>(end - p);
  return true;
}

// The executable ranges the record's snapshot holds, and the loader's count
// of unloaded objects when it was taken: a new site whose return addresses
// all lie in these ranges, with nothing unloaded since, is named by the
// snapshot as it stands, so adding it reads no /proc/self/maps.
constexpr int kExecRanges = 1024;
std::uintptr_t g_exec_begin[kExecRanges];
std::uintptr_t g_exec_end[kExecRanges];
int g_exec_count = -1;  // -1: no snapshot yet, or ranges left out of this list
unsigned long long g_exec_unloads = 0;

// dl_phdr_info::dlpi_subs: how many objects the loader has unloaded so far.
unsigned long long loader_unloads() {
  unsigned long long subs = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          *static_cast<unsigned long long*>(out) = info->dlpi_subs;
        }
        return 1;  // the first object carries the count
      },
      &subs);
  return subs;
}

// True if the snapshot names every return address of the stack.
// REQUIRES: g_site_lock held.
bool snapshot_covers(const std::uint64_t* pcs, int depth, unsigned long long unloads) {
  if (g_exec_count < 0 || unloads != g_exec_unloads) return false;
  for (int i = 0; i < depth; ++i) {
    bool found = false;
    for (int k = 0; k < g_exec_count && !found; ++k) {
      found = pcs[i] > g_exec_begin[k] && pcs[i] < g_exec_end[k];  // pc - 1 and pc inside
    }
    if (!found) return false;
  }
  return true;
}

// The initial thread's stack as glibc's pthread_getattr_np computes it,
// from the same /proc/self/maps lines: the page holding __libc_stack_end
// ends it, RLIMIT_STACK bounds it, the mapping below it stops it.
struct InitialStack {
  bool wanted = false;
  bool found = false;
  std::uintptr_t last_to = 0;
  std::uintptr_t lo = 0;
  std::uintptr_t hi = 0;
};

void find_initial_stack(const MapsLine& m, InitialStack& s) {
  if (!s.wanted || s.found) return;
  const auto end_of_stack = reinterpret_cast<std::uintptr_t>(__libc_stack_end);
  if (m.begin <= end_of_stack && end_of_stack < m.end) {
    rlimit rl{};
    if (getrlimit(RLIMIT_STACK, &rl) != 0) return;
    const std::uintptr_t page = getauxval(AT_PAGESZ);
    const std::uintptr_t stack_end = (end_of_stack & -page) + page;
    std::uintptr_t size = static_cast<std::uintptr_t>(rl.rlim_cur) - (m.end - stack_end);
    size &= -page;
    if (size > stack_end - s.last_to) size = stack_end - s.last_to;
    s.lo = stack_end - size;
    s.hi = stack_end;
    s.found = true;
    return;
  }
  s.last_to = m.end;
}

// Copies the executable mappings into the record's spare buffer and flips
// (and finds the initial thread's stack in the same lines, if asked).
// REQUIRES: g_site_lock held.
void refresh_maps_snapshot(unsigned long long unloads, InitialStack* stack = nullptr) {
  Record* r = g_record;
  const std::uint32_t spare = 1 - r->maps_current.load(std::memory_order_relaxed);
  char* out = r->maps[spare];
  std::uint32_t used = 0;
  int ranges = 0;
  bool all_ranges = true;
  InitialStack none;
  InitialStack& s = stack != nullptr ? *stack : none;
  for_each_maps_line([&](const char* line, std::size_t length) {
    MapsLine m;
    if (!parse_maps_line(line, length, m)) return;
    find_initial_stack(m, s);
    if (m.perms[2] != 'x') return;
    if (used + length + 1 > kMapsBytes) return;
    std::memcpy(out + used, line, length);
    used += static_cast<std::uint32_t>(length);
    out[used++] = '\n';
    if (ranges == kExecRanges) {
      all_ranges = false;
      return;
    }
    g_exec_begin[ranges] = m.begin;
    g_exec_end[ranges] = m.end;
    ++ranges;
  });
  r->maps_length[spare] = used;
  r->maps_current.store(spare, std::memory_order_release);
  // A line that did not fit the snapshot is in no range: its addresses
  // make the next site read the maps again.
  g_exec_count = all_ranges ? ranges : -1;
  g_exec_unloads = unloads;
}

// Anonymous private writable mappings, cached; reloaded on a miss and after
// the program changed its mappings (g_maps_generation moved).
constexpr int kAnonRanges = 4096;
std::uintptr_t g_anon_begin[kAnonRanges];
std::uintptr_t g_anon_end[kAnonRanges];
int g_anon_count = 0;
std::uint64_t g_anon_generation = ~std::uint64_t{0};  // g_maps_generation when loaded

bool anon_cached(std::uintptr_t begin, std::uintptr_t end) {
  for (int i = 0; i < g_anon_count; ++i) {
    if (begin >= g_anon_begin[i] && end <= g_anon_end[i]) return true;
  }
  return false;
}

void reload_anon_ranges() {
  g_anon_count = 0;
  for_each_maps_line([](const char* line, std::size_t length) {
    MapsLine m;
    if (!parse_maps_line(line, length, m)) return;
    if (m.perms[1] != 'w' || m.perms[3] != 'p' || m.inode != 0) return;
    const bool anonymous = m.path_length == 0 || m.path[0] == '[';  // [heap], [stack], [anon:...]
    if (!anonymous || g_anon_count == kAnonRanges) return;
    // Adjacent ranges merge, so a block spanning two mappings still matches.
    if (g_anon_count > 0 && g_anon_end[g_anon_count - 1] == m.begin) {
      g_anon_end[g_anon_count - 1] = m.end;
      return;
    }
    g_anon_begin[g_anon_count] = m.begin;
    g_anon_end[g_anon_count] = m.end;
    ++g_anon_count;
  });
}

// ---- the record ----------------------------------------------------------------

// The calling thread's name (comm) into its slot, if the slot is its alone.
void read_own_name(ThreadSlot& slot) {
  if (slot.threads.load(std::memory_order_relaxed) != 1) return;
  char name[kThreadNameBytes] = {};
  if (prctl(PR_GET_NAME, name) == 0) std::memcpy(slot.name, name, sizeof name);
}

void copy_cstr(char* out, std::size_t size, const char* in) {
  std::size_t i = 0;
  for (; in != nullptr && in[i] != '\0' && i + 1 < size; ++i) out[i] = in[i];
  out[i] = '\0';
}

const char* this_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&this_library_path), &info) != 0) return info.dli_fname;
  return "";
}

// /proc/self/cmdline into `out` (NUL-separated arguments, cut at `size`);
// returns the bytes kept.
std::uint32_t read_cmdline(char* out, std::size_t size) {
  const int fd = raw_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t used = 0;
  while (used < size) {
    const ssize_t got = raw_read(fd, out + used, size - used);
    if (got <= 0) break;
    used += static_cast<std::size_t>(got);
  }
  raw_close(fd);
  return static_cast<std::uint32_t>(used);
}

// Appends `s` at `out`, up to `end`; returns where it stopped. (No
// snprintf: in a program that never prints, its first call faults in
// stdio's formatting code, about a tenth of the preload's set-up.)
char* append(char* out, char* end, const char* s) {
  while (*s != '\0' && out < end) *out++ = *s++;
  return out;
}
char* append_decimal(char* out, char* end, std::uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0 && out < end) *out++ = digits[--n];
  return out;
}

// <dir>/<pid>.<n>.rec into `path` (cut at `size`).
void record_path(char* path, std::size_t size, long pid, int n) {
  char* const end = path + size - 1;
  char* out = append(path, end, g_dir);
  out = append(out, end, "/");
  out = append_decimal(out, end, static_cast<std::uint64_t>(pid));
  out = append(out, end, ".");
  out = append_decimal(out, end, static_cast<std::uint64_t>(n));
  *append(out, end, ".rec") = '\0';
}

Record* create_record() {
  char path[640];
  const long pid = static_cast<long>(getpid());
  for (int n = 0; n < 1000; ++n) {
    record_path(path, sizeof path, pid, n);
    const int fd = raw_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return nullptr;
    }
    // Past the file size limit, ftruncate would kill the program (SIGXFSZ).
    rlimit fsize{};
    const bool fits = getrlimit(RLIMIT_FSIZE, &fsize) != 0 || fsize.rlim_cur == RLIM_INFINITY ||
                      fsize.rlim_cur >= sizeof(Record);
    if (!fits || ftruncate(fd, sizeof(Record)) != 0) {
      raw_close(fd);
      unlink(path);
      return nullptr;
    }
    void* m = mmap(nullptr, sizeof(Record), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    raw_close(fd);
    if (m == MAP_FAILED) return nullptr;
    auto* r = static_cast<Record*>(m);
    r->version = kRecordVersion;
    r->record_bytes = sizeof(Record);
    r->pid = pid;
    r->ppid = static_cast<std::int64_t>(getppid());
    r->sample_rate = g_sample_rate;
    r->check_rate = g_check_rate;
    r->start_ns = monotonic_ns();
    char exe[1024];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = '\0';
    copy_cstr(r->exe, sizeof r->exe, exe);
    copy_cstr(r->preload, sizeof r->preload, this_library_path());
    r->cmdline_length = read_cmdline(r->cmdline, sizeof r->cmdline);
    // The magic last, a release store: a reader that sees it sees a complete header.
    std::atomic_ref<std::uint64_t>(r->magic).store(kRecordMagic, std::memory_order_release);
    return r;
  }
  return nullptr;
}

void open_pagemap() {
  if (g_pagemap_fd >= 0) raw_close(g_pagemap_fd);
  const int fd = raw_open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  // Kept high, away from the descriptors the program counts on.
  g_pagemap_fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 900);
  if (g_pagemap_fd < 0) {
    g_pagemap_fd = fd;
  } else if (fd >= 0) {
    raw_close(fd);
  }
}

void release_thread_slot(void*) {
  ThreadState& t = t_state;
  frame_thread_exit(t);
  if (t.slot != nullptr && !t.slot_shared) {
    read_own_name(*t.slot);  // the name it ended with
    t.slot->owned.store(0, std::memory_order_release);
  }
  t.armed = nullptr;
  t.slot = nullptr;
  t.detached = true;
}

// Removes `lib` from the colon/space separated LD_PRELOAD list.
void drop_from_ld_preload(const char* lib) {
  const char* current = std::getenv("LD_PRELOAD");
  if (current == nullptr || lib == nullptr || *lib == '\0') return;
  char out[4096];
  std::size_t used = 0;
  const char* p = current;
  while (*p != '\0') {
    while (*p == ':' || *p == ' ') ++p;
    const char* start = p;
    while (*p != '\0' && *p != ':' && *p != ' ') ++p;
    const std::size_t len = static_cast<std::size_t>(p - start);
    if (len == 0) continue;
    const bool ours = std::strlen(lib) == len && std::strncmp(start, lib, len) == 0;
    if (ours || used + len + 2 > sizeof out) continue;
    if (used > 0) out[used++] = ':';
    std::memcpy(out + used, start, len);
    used += len;
  }
  out[used] = '\0';
  if (used == 0) {
    unsetenv("LD_PRELOAD");
  } else {
    setenv("LD_PRELOAD", out, 1);
  }
}

void fork_prepare() {
  g_site_lock.lock();
  g_anon_lock.lock();
  alloc_fork_prepare();
  frame_fork_prepare();
}

void fork_parent() {
  frame_fork_parent();
  alloc_fork_parent();
  g_anon_lock.unlock();
  g_site_lock.unlock();
}

void fork_child() {
  frame_fork_child();
  alloc_fork_child();
  g_anon_lock.reset();
  g_site_lock.reset();
  ThreadState& t = t_state;
  t.armed = nullptr;
  t.slot = nullptr;
  t.slot_shared = false;
  t.detached = false;
  // The child draws its own samples: the parent's next draws would repeat in it.
  t.rng = 0;
  set_countdowns(t);
  // Held-back temporaries belong to the parent's record (and its sites are
  // not mapped here).
  std::memset(t.temp_seen, 0, sizeof t.temp_seen);
  t.fast_classes = 0;
  std::memset(t.temp_pending_site, 0, sizeof t.temp_pending_site);
  std::memset(t.frame_seen, 0, sizeof t.frame_seen);
  std::memset(t.frame_pending_site, 0, sizeof t.frame_pending_site);
  // The unsafe zero-fill callers go into the child's own record too.
  std::memset(t.unsafe_callers, 0, sizeof t.unsafe_callers);
  Record* parent = g_record;
  g_slots_high.store(0, std::memory_order_relaxed);  // the child's record is new
  g_exec_count = -1;                                 // and holds no snapshot yet
  g_record = create_record();
  if (parent != nullptr) munmap(parent, sizeof(Record));
  if (g_record == nullptr) {
    g_active.store(false, std::memory_order_relaxed);
    return;
  }
  open_pagemap();
}

__attribute__((constructor)) void start_preload() {
  const char* dir = std::getenv(kEnvDir);
  if (dir == nullptr || *dir == '\0') return;
  copy_cstr(g_dir, sizeof g_dir, dir);
  g_process_random = process_random();
  g_sample_rate = parse_rate(std::getenv(kEnvSampleRate), g_sample_rate);
  g_check_rate = parse_rate(std::getenv(kEnvCheckRate), g_check_rate);
  g_max_frames = static_cast<int>(
      std::min<std::uint64_t>(parse_rate(std::getenv(kEnvMaxFrames), kMaxFrames), kMaxFrames));
  const char* follow = std::getenv(kEnvFollow);
  if (follow != nullptr && std::strcmp(follow, "0") == 0) {
    g_follow = false;
    drop_from_ld_preload(this_library_path());
    unsetenv(kEnvDir);
    unsetenv(kEnvSampleRate);
    unsetenv(kEnvCheckRate);
    unsetenv(kEnvFollow);
  }
  g_initial_thread = pthread_self();
  g_record = create_record();
  if (g_record == nullptr) return;
  open_pagemap();
  g_exit_key_ready = pthread_key_create(&g_exit_key, &release_thread_slot) == 0;
  pthread_atfork(&fork_prepare, &fork_parent, &fork_child);
  // The unwinder is not run here: a program that never takes a sample (no
  // allocation past the countdown, no large block, no page-sized memset, no
  // copy) never pays for its first use.
  g_active.store(true, std::memory_order_release);
}

// At exit: the names the threads still running have now.
__attribute__((destructor)) void finish_preload() {
  if (g_active.load(std::memory_order_relaxed)) refresh_thread_names();
}

struct UnwindState {
  std::uint64_t* pcs;
  std::uint64_t* cfas;  // may be null
  int max;
  int depth;
};

_Unwind_Reason_Code unwind_one(_Unwind_Context* context, void* arg) {
  auto* s = static_cast<UnwindState*>(arg);
  if (s->depth >= s->max) return _URC_END_OF_STACK;
  const _Unwind_Ptr ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  if (s->cfas != nullptr) s->cfas[s->depth] = static_cast<std::uint64_t>(_Unwind_GetCFA(context));
  s->pcs[s->depth++] = static_cast<std::uint64_t>(ip);
  return _URC_NO_REASON;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

}  // namespace

void SpinLock::lock() {
  while (flag_.exchange(true, std::memory_order_acquire)) {
    while (flag_.load(std::memory_order_relaxed)) sched_yield();
  }
}

ssize_t raw_read(int fd, void* buf, std::size_t n) {
  return syscall(SYS_read, fd, buf, n);
}

ssize_t raw_pread(int fd, void* buf, std::size_t n, off_t offset) {
  return syscall(SYS_pread64, fd, buf, n, offset);
}

ThreadSlot& thread_slot(ThreadState& t) {
  if (t.slot != nullptr) return *t.slot;
  Record* r = g_record;
  if (!t.detached) {
    // A slot no thread had yet, so a thread's counts stay its own; past
    // kThreadSlots threads, one a thread that exited gave back.
    for (const bool fresh_only : {true, false}) {
      for (std::uint32_t i = 1; i <= kThreadSlots; ++i) {
        ThreadSlot& slot = r->slots[i];
        if (fresh_only && slot.threads.load(std::memory_order_relaxed) != 0) continue;
        std::uint64_t expected = 0;
        if (slot.owned.load(std::memory_order_relaxed) == 0 &&
            slot.owned.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
          t.slot = &slot;
          t.slot_shared = false;
          for (std::uint32_t high = g_slots_high.load(std::memory_order_relaxed);
               high < i &&
               !g_slots_high.compare_exchange_weak(high, i, std::memory_order_release);) {
          }
          if (slot.threads.fetch_add(1, std::memory_order_relaxed) == 0) {
            slot.tid.store(static_cast<std::int64_t>(syscall(SYS_gettid)),
                           std::memory_order_relaxed);
          }
          read_own_name(slot);
          if (g_exit_key_ready) {
            InHook guard(t);
            pthread_setspecific(g_exit_key, &t);
          }
          return *t.slot;
        }
      }
    }
  }
  t.slot = &r->slots[0];
  t.slot_shared = true;
  return *t.slot;
}

std::uint16_t thread_slot_index(ThreadState& t) {
  return static_cast<std::uint16_t>(&thread_slot(t) - g_record->slots);
}

void refresh_thread_names() {
  Record* r = g_record;
  if (r == nullptr) return;
  const std::uint32_t high = g_slots_high.load(std::memory_order_acquire);
  for (std::uint32_t i = 1; i <= high && i <= kThreadSlots; ++i) {
    ThreadSlot& slot = r->slots[i];
    if (slot.owned.load(std::memory_order_acquire) == 0) continue;
    const std::int64_t tid = slot.tid.load(std::memory_order_relaxed);
    if (slot.threads.load(std::memory_order_relaxed) != 1 || tid <= 0) continue;
    char path[64];
    char* end = append(path, path + sizeof path - 1, "/proc/self/task/");
    end = append_decimal(end, path + sizeof path - 1, static_cast<std::uint64_t>(tid));
    *append(end, path + sizeof path - 1, "/comm") = '\0';
    const int fd = raw_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char name[kThreadNameBytes] = {};
    const ssize_t got = raw_read(fd, name, sizeof name - 1);
    raw_close(fd);
    if (got <= 0) continue;
    std::size_t n = static_cast<std::size_t>(got);
    if (name[n - 1] == '\n') --n;
    name[n] = '\0';
    std::memcpy(slot.name, name, sizeof name);
  }
}

void arm(ThreadState& t) {
  ThreadSlot& slot = thread_slot(t);
  if (!t.slot_shared) t.armed = &slot;
}

std::int64_t draw_countdown(ThreadState& t, std::uint64_t rate) {
  if (rate <= 1) return 1;
  if (t.rng == 0) t.rng = thread_seed();
  t.rng ^= t.rng << 13;
  t.rng ^= t.rng >> 7;
  t.rng ^= t.rng << 17;
  const double u = (static_cast<double>(t.rng >> 11) + 1.0) / 9007199254740993.0;  // (0, 1]
  const double v = -log_positive(u) * static_cast<double>(rate);
  return static_cast<std::int64_t>(v) + 1;
}

void set_countdowns(ThreadState& t) {
  set_alloc_countdown(t, draw_countdown(t, g_sample_rate));
  t.zero_countdown = draw_countdown(t, g_check_rate);
  t.countdowns_set = true;
}

int capture_stack(std::uint64_t* pcs, int max, std::uint64_t* cfas) {
  UnwindState s{pcs, cfas, max < g_max_frames ? max : g_max_frames, 0};
  _Unwind_Backtrace(&unwind_one, &s);
  return s.depth;
}

Site* find_or_add_site(Kind kind, const std::uint64_t* pcs, int depth, FdType src, FdType dst,
                       std::uint16_t thread) {
  Record* r = g_record;
  std::uint64_t h = mix(static_cast<std::uint64_t>(kind) + 1,
                        static_cast<std::uint64_t>(src) * 8 + static_cast<std::uint64_t>(dst) +
                            (static_cast<std::uint64_t>(thread) << 8));
  for (int i = 0; i < depth; ++i) h = mix(h, pcs[i]);
  const std::uint64_t key = h | 1;
  auto same = [&](const Site& s) {
    while (s.ready.load(std::memory_order_acquire) == 0) sched_yield();
    if (s.kind != static_cast<std::uint32_t>(kind) || static_cast<int>(s.depth) != depth ||
        s.src != static_cast<std::uint8_t>(src) || s.dst != static_cast<std::uint8_t>(dst) ||
        s.thread != thread) {
      return false;
    }
    return std::memcmp(s.pcs, pcs, static_cast<std::size_t>(depth) * sizeof pcs[0]) == 0;
  };
  for (std::uint32_t probe = 0; probe < kMaxSites; ++probe) {
    Site& s = r->sites[(key + probe) & (kMaxSites - 1)];
    std::uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == 0) {
      std::uint64_t expected = 0;
      if (s.key.compare_exchange_strong(expected, key, std::memory_order_acq_rel)) {
        s.kind = static_cast<std::uint32_t>(kind);
        s.depth = static_cast<std::uint32_t>(depth);
        s.src = static_cast<std::uint8_t>(src);
        s.dst = static_cast<std::uint8_t>(dst);
        s.thread = thread;
        std::memcpy(s.pcs, pcs, static_cast<std::size_t>(depth) * sizeof pcs[0]);
        s.ready.store(1, std::memory_order_release);
        const unsigned long long unloads = loader_unloads();
        g_site_lock.lock();
        if (!snapshot_covers(pcs, depth, unloads)) refresh_maps_snapshot(unloads);
        g_site_lock.unlock();
        return &s;
      }
      k = expected;
    }
    if (k == key && same(s)) return &s;
  }
  thread_totals(t_state).sites_dropped.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

bool initial_thread_stack(std::uintptr_t& lo, std::uintptr_t& hi) {
  if (g_record == nullptr || !pthread_equal(pthread_self(), g_initial_thread)) return false;
  InitialStack stack;
  stack.wanted = true;
  const unsigned long long unloads = loader_unloads();
  g_site_lock.lock();
  refresh_maps_snapshot(unloads, &stack);
  g_site_lock.unlock();
  if (!stack.found) return false;
  lo = stack.lo;
  hi = stack.hi;
  return true;
}

bool pages_touched(std::uintptr_t first_page, std::size_t count, bool* out) {
  std::uint64_t entries[512];
  std::size_t done = 0;
  while (done < count) {
    const std::size_t n = count - done < 512 ? count - done : 512;
    const off_t at = static_cast<off_t>((first_page + done) * sizeof(std::uint64_t));
    ssize_t got = raw_pread(g_pagemap_fd, entries, n * sizeof entries[0], at);
    if (got < 0 && errno == EBADF) {  // the program closed it
      open_pagemap();
      got = raw_pread(g_pagemap_fd, entries, n * sizeof entries[0], at);
    }
    if (got != static_cast<ssize_t>(n * sizeof entries[0])) return false;
    for (std::size_t i = 0; i < n; ++i) out[done + i] = (entries[i] >> 62) != 0;  // present|swapped
    done += n;
  }
  return true;
}

bool anonymous_private(std::uintptr_t begin, std::uintptr_t end) {
  g_anon_lock.lock();
  // Read before the maps: a change during the reload makes the next call reload.
  const std::uint64_t generation = g_maps_generation.load(std::memory_order_relaxed);
  bool yes = g_anon_generation == generation && anon_cached(begin, end);
  if (!yes) {
    reload_anon_ranges();
    g_anon_generation = generation;
    yes = anon_cached(begin, end);
  }
  g_anon_lock.unlock();
  return yes;
}

}  // namespace zerolab::waste

// A thread renamed (by itself or by another thread) is named so in the
// record at once, so a program killed before it exits keeps the names.
// The real function is looked up into a plain atomic, not a function-local
// static: a static's thread-safe guard is libstdc++'s (__cxa_guard_*), its
// only symbol the preload used, and without it the preload does not load
// libstdc++ into C programs (about a millisecond of their start-up).
ZEROLAB_WASTE_EXPORT int pthread_setname_np(pthread_t thread, const char* name) {
  using SetName = int (*)(pthread_t, const char*);
  static std::atomic<SetName> g_real{nullptr};
  SetName real = g_real.load(std::memory_order_acquire);
  if (real == nullptr) {  // threads racing here store the same address
    real = reinterpret_cast<SetName>(dlsym(RTLD_NEXT, "pthread_setname_np"));
    g_real.store(real, std::memory_order_release);
  }
  if (real == nullptr) return ENOSYS;
  const int rc = real(thread, name);
  namespace w = zerolab::waste;
  w::ThreadState& t = w::t_state;
  if (rc == 0 && w::g_active.load(std::memory_order_relaxed) && t.in_hook == 0) {
    w::InHook guard(t);
    w::refresh_thread_names();
  }
  return rc;
}

// zerolab's own libraries call this around their one-time setup
// (zero_fill's settings, src/mem/zero.cpp, a weak symbol there): +1 and
// the calling thread's allocations, fills and copies pass straight to libc,
// uncounted, until the matching -1.
ZEROLAB_WASTE_EXPORT void zerolab_waste_pause(int delta) noexcept {
  zerolab::waste::ThreadState& t = zerolab::waste::t_state;
  if (delta > 0) {
    ++t.in_hook;
    t.armed = nullptr;  // the hot paths take the slow way, which sees in_hook
  } else if (t.in_hook > 0) {
    --t.in_hook;  // armed again at the thread's next event (arm())
  }
}
