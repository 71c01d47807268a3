// CPUID and cache sizes (cpu_features.hpp).
#include "mem/cpu_features.hpp"

#include <cpuid.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

// glibc 2.36's <sys/platform/x86.h> declares its inline readers with C's
// `_Bool`, which g++ accepts in C++ and clang++ rejects (the fuzz and
// sanitizer builds use clang); C++'s bool is the same type.
#if defined(__clang__)
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <limits>

namespace zerolab::internal {
namespace {

std::size_t sysconf_size(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::size_t>(v) : 0;
}

// The first line of `path` (at most 63 bytes), without its newline; empty
// if the file cannot be read.
std::string_view read_small_file(const char* path, char (&buf)[64]) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return {};
  std::string_view s(buf, static_cast<std::size_t>(n));
  if (const std::size_t eol = s.find('\n'); eol != std::string_view::npos) s = s.substr(0, eol);
  return s;
}

constinit std::atomic<unsigned long> g_cpuid_executions{0};

struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// Every CPUID of this file goes through here, to be counted.
CpuidRegs cpuid(unsigned leaf, unsigned subleaf) noexcept {
  g_cpuid_executions.fetch_add(1, std::memory_order_relaxed);
  CpuidRegs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

// The registers glibc read at start-up for one of its CPUID leaves.
const cpuid_feature& startup_leaf(unsigned index) noexcept {
  return *__x86_get_cpuid_feature_leaf(index);
}

// One cache's size from a deterministic cache leaf's registers (Intel leaf
// 4, AMD leaf 0x8000001D: the same layout); 0 for a null entry.
std::size_t cache_leaf_size(const CpuidRegs& r) noexcept {
  const std::size_t ways = ((r.ebx >> 22) & 0x3FF) + 1;
  const std::size_t partitions = ((r.ebx >> 12) & 0x3FF) + 1;
  const std::size_t line = (r.ebx & 0xFFF) + 1;
  const std::size_t sets = static_cast<std::size_t>(r.ecx) + 1;
  return (r.eax & 0x1F) == 0 ? 0 : ways * partitions * line * sets;
}

// Whether a cache leaf entry describes the data or unified cache of `level`.
bool describes(const CpuidRegs& r, int level) noexcept {
  const unsigned type = r.eax & 0x1F;  // 0 none, 1 data, 2 instruction, 3 unified
  return (type == 1 || type == 3) && static_cast<int>((r.eax >> 5) & 0x7) == level;
}

// The deterministic cache leaf of this CPU, 0 where it has none.
unsigned cache_leaf() noexcept {
  if (cpu_features().amd) {
    // Leaf 0x8000001D exists with the topology extensions (0x80000001 ECX bit 22).
    return ((startup_leaf(CPUID_INDEX_80000001).cpuid_array[2] >> 22) & 1) != 0 ? 0x8000001D : 0;
  }
  // Leaf 4 needs a highest basic leaf of 4 or more: any bit glibc saw in
  // leaf 7 says so without asking; otherwise leaf 0 is asked.
  const auto& leaf7 = startup_leaf(CPUID_INDEX_7).cpuid_array;
  if ((leaf7[0] | leaf7[1] | leaf7[2] | leaf7[3]) != 0) return 4;
  return cpuid(0, 0).eax >= 4 ? 4 : 0;
}

// The cache of `level` from CPUID, 0 where it says nothing (an old CPU, a
// hypervisor that hides the leaves). Both vendors list the L1 data, L1
// instruction, L2 and L3 caches at subleaves 0, 1, 2 and 3; that subleaf is
// read first, and the whole list only when it holds another cache.
std::size_t cpuid_cache_size(int level) noexcept {
  const unsigned leaf = cache_leaf();
  if (leaf == 0) return 0;
  const unsigned usual = level == 1 ? 0 : static_cast<unsigned>(level);
  if (const CpuidRegs r = cpuid(leaf, usual); describes(r, level)) return cache_leaf_size(r);
  for (unsigned sub = 0; sub < 16; ++sub) {
    if (sub == usual) continue;
    const CpuidRegs r = cpuid(leaf, sub);
    if ((r.eax & 0x1F) == 0) break;
    if (describes(r, level)) return cache_leaf_size(r);
  }
  return 0;
}

std::size_t detect_cache_size(int level) noexcept {
  if (const std::size_t from_cpuid = cpuid_cache_size(level); from_cpuid != 0) return from_cpuid;
  const int cpu = sched_getcpu();
  char dir[64];
  std::snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cache", cpu < 0 ? 0 : cpu);
  const CacheSizes from_sysfs = read_cache_sizes(dir);
  const std::size_t kernel = level == 1   ? from_sysfs.l1d
                             : level == 2 ? from_sysfs.l2
                                          : from_sysfs.l3;
  if (kernel != 0) return kernel;
  return sysconf_size(level == 1   ? _SC_LEVEL1_DCACHE_SIZE
                      : level == 2 ? _SC_LEVEL2_CACHE_SIZE
                                   : _SC_LEVEL3_CACHE_SIZE);
}

CpuFeatures detect() noexcept {
  CpuFeatures f;
  // libgcc read the vendor at start-up (a constructor); this is a no-op then.
  __builtin_cpu_init();
  f.amd = __builtin_cpu_is("amd") != 0;
  f.family = cpu_family(startup_leaf(CPUID_INDEX_1).cpuid_array[0]);
  f.erms = CPU_FEATURE_PRESENT(ERMS);
  f.fsrm = CPU_FEATURE_PRESENT(FSRM);
  // "Active": the CPU has it and the OS saves its registers (XCR0).
  f.avx2 = CPU_FEATURE_ACTIVE(AVX2);
  f.avx512f = CPU_FEATURE_ACTIVE(AVX512F);
  return f;
}

// Each level's size once read; kUnread before.
constexpr std::size_t kUnread = ~std::size_t{0};
constinit std::atomic<std::size_t> g_cache_sizes[3] = {kUnread, kUnread, kUnread};

}  // namespace

unsigned cpu_family(unsigned leaf1_eax) noexcept {
  const unsigned base = (leaf1_eax >> 8) & 0xF;
  return base == 0xF ? base + ((leaf1_eax >> 20) & 0xFF) : base;
}

std::size_t parse_cache_size(std::string_view text) noexcept {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::size_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
        scale = std::size_t{1} << 10;
        break;
      case 'M':
        scale = std::size_t{1} << 20;
        break;
      case 'G':
        scale = std::size_t{1} << 30;
        break;
      default:
        break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  if (text.empty()) return 0;
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  std::size_t n = 0;
  for (const char ch : text) {
    if (ch < '0' || ch > '9') return 0;
    const auto digit = static_cast<std::size_t>(ch - '0');
    if (n > (kMax - digit) / 10) return 0;
    n = n * 10 + digit;
  }
  if (n > kMax / scale) return 0;
  return n * scale;
}

CacheSizes read_cache_sizes(const char* dir) noexcept {
  CacheSizes c;
  for (int index = 0; index < 16; ++index) {
    char path[256];
    char buf[64];
    const auto field = [&](const char* name) {
      std::snprintf(path, sizeof path, "%s/index%d/%s", dir, index, name);
      return read_small_file(path, buf);
    };
    const std::string_view type = field("type");
    if (type.empty()) break;  // no such index: the list has ended
    if (type != "Data" && type != "Unified") continue;
    const std::string_view level = field("level");
    std::size_t* slot = level == "1"   ? &c.l1d
                        : level == "2" ? &c.l2
                        : level == "3" ? &c.l3
                                       : nullptr;
    if (slot == nullptr) continue;
    *slot = parse_cache_size(field("size"));
  }
  return c;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::size_t cache_size(int level) noexcept {
  if (level < 1 || level > 3) return 0;
  std::atomic<std::size_t>& slot = g_cache_sizes[level - 1];
  std::size_t size = slot.load(std::memory_order_relaxed);
  if (size == kUnread) {
    size = detect_cache_size(level);
    slot.store(size, std::memory_order_relaxed);
  }
  return size;
}

unsigned long cpuid_executions() noexcept {
  return g_cpuid_executions.load(std::memory_order_relaxed);
}

}  // namespace zerolab::internal
