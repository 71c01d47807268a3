// CPUID and cache sizes (cpu_features.hpp).
#include "mem/cpu_features.hpp"

#include <cpuid.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

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

// One cache's size from a deterministic cache leaf's registers (Intel leaf
// 4, AMD leaf 0x8000001D: the same layout); 0 for a null entry.
std::size_t cache_leaf_size(unsigned eax, unsigned ebx, unsigned ecx) noexcept {
  const std::size_t ways = ((ebx >> 22) & 0x3FF) + 1;
  const std::size_t partitions = ((ebx >> 12) & 0x3FF) + 1;
  const std::size_t line = (ebx & 0xFFF) + 1;
  const std::size_t sets = static_cast<std::size_t>(ecx) + 1;
  return (eax & 0x1F) == 0 ? 0 : ways * partitions * line * sets;
}

// The data and unified caches of levels 1-3 from CPUID (0 where it says
// nothing: an old CPU, a hypervisor that hides the leaves).
CacheSizes cpuid_cache_sizes(bool amd) noexcept {
  CacheSizes c;
  unsigned leaf = 4;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (amd) {
    // Leaf 0x8000001D exists with the topology extensions (0x80000001 ECX bit 22).
    if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) == 0 || ((ecx >> 22) & 1) == 0) return c;
    leaf = 0x8000001D;
  } else if (__get_cpuid_max(0, nullptr) < 4) {
    return c;
  }
  for (unsigned sub = 0; sub < 16; ++sub) {
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    const unsigned type = eax & 0x1F;  // 0 none, 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const unsigned level = (eax >> 5) & 0x7;
    std::size_t* slot = level == 1 ? &c.l1d : level == 2 ? &c.l2 : level == 3 ? &c.l3 : nullptr;
    if (slot != nullptr) *slot = cache_leaf_size(eax, ebx, ecx);
  }
  return c;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) != 0) {
    // "AuthenticAMD" is spread over ebx, edx, ecx.
    f.amd = ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0) f.family = cpu_family(eax);
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0) {
    f.erms = (ebx >> 9) & 1;
    f.fsrm = (edx >> 4) & 1;
  }
  // __builtin_cpu_supports checks the OS's XSAVE support (XGETBV) as well.
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") != 0;
  f.avx512f = __builtin_cpu_supports("avx512f") != 0;
  // The cache sizes from CPUID's deterministic cache leaves (a few
  // instructions), the way the kernel fills sysfs; sysfs (a dozen small
  // files, tens of microseconds) only where CPUID does not describe a level.
  CacheSizes c = cpuid_cache_sizes(f.amd);
  if (c.l1d == 0 || c.l2 == 0 || c.l3 == 0) {
    const int cpu = sched_getcpu();
    char dir[64];
    std::snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cache", cpu < 0 ? 0 : cpu);
    const CacheSizes from_sysfs = read_cache_sizes(dir);
    if (c.l1d == 0) c.l1d = from_sysfs.l1d;
    if (c.l2 == 0) c.l2 = from_sysfs.l2;
    if (c.l3 == 0) c.l3 = from_sysfs.l3;
  }
  f.l1d = c.l1d != 0 ? c.l1d : sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
  f.l2 = c.l2 != 0 ? c.l2 : sysconf_size(_SC_LEVEL2_CACHE_SIZE);
  f.l3 = c.l3 != 0 ? c.l3 : sysconf_size(_SC_LEVEL3_CACHE_SIZE);
  return f;
}

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

}  // namespace zerolab::internal
