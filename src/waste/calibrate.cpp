// `zerolab waste`'s calibration (calibrate.hpp).
#include "waste/calibrate.hpp"

#include <emmintrin.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string_view>

#include "machine/machine_profile.hpp"

namespace zerolab::waste {
namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
double best_seconds(int repetitions, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

void escape(void* p) {
  asm volatile("" : : "g"(p) : "memory");
}

// Non-temporal (streaming) stores, as glibc's memset and memcpy send fills
// and copies larger than the cache. Over a buffer near the L3's size they
// still read several times faster than over one many times larger (see
// docs/waste.md, "The time estimates"), so they are timed over four times
// the L3: the rate a program pays to zero or copy memory it has not just
// touched.
void stream_fill(char* p, std::size_t n, char value) {
  const __m128i v = _mm_set1_epi8(value);
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 16), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 32), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 48), v);
  }
  _mm_sfence();
}

void stream_copy(char* to, const char* from, std::size_t n) {
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    const auto* s = reinterpret_cast<const __m128i*>(from + i);
    const __m128i a = _mm_load_si128(s);
    const __m128i b = _mm_load_si128(s + 1);
    const __m128i c = _mm_load_si128(s + 2);
    const __m128i d = _mm_load_si128(s + 3);
    auto* t = reinterpret_cast<__m128i*>(to + i);
    _mm_stream_si128(t, a);
    _mm_stream_si128(t + 1, b);
    _mm_stream_si128(t + 2, c);
    _mm_stream_si128(t + 3, d);
  }
  _mm_sfence();
}

// malloc/free and large-block costs, into `c`.
Calibration calibrate_allocator(Calibration c, const CalibrationNeeds& needs) {
  constexpr int kPairs = 2000;
  if (needs.malloc_free) {
    c.malloc_free_seconds = best_seconds(3,
                                         [] {
                                           for (int i = 0; i < kPairs; ++i) {
                                             void* p = std::malloc(64);
                                             escape(p);
                                             std::free(p);
                                           }
                                         }) /
                            kPairs;
  }
  constexpr int kLarge = 50;
  if (needs.large_block) {
    c.large_block_seconds = best_seconds(3,
                                         [] {
                                           for (int i = 0; i < kLarge; ++i) {
                                             auto* p = static_cast<char*>(std::malloc(64 * 1024));
                                             if (p != nullptr) p[0] = 1;
                                             escape(p);
                                             std::free(p);
                                           }
                                         }) /
                            kLarge;
  }
  return c;
}

// The bytes zeroing and copying are timed over: four times the last-level
// cache, at least 128 MiB (memory bandwidth, not the cache's).
std::size_t memory_sized_bytes() {
  constexpr std::size_t kAtLeast = std::size_t{128} << 20;
  const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::size_t four_l3 = l3 > 0 ? 4 * static_cast<std::size_t>(l3) : 0;
  const std::size_t bytes = std::max(kAtLeast, four_l3);
  return bytes & ~std::size_t{4095};
}

// A mapping of `bytes` with every page resident, on small pages (a huge
// page's compaction can stall a run for seconds), or nullptr.
char* resident_mapping(std::size_t bytes) {
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  ::madvise(m, bytes, MADV_NOHUGEPAGE);
  char* a = static_cast<char*>(m);
  if (::madvise(m, bytes, MADV_POPULATE_WRITE) != 0) {  // before Linux 5.14: fault them in
    for (std::size_t i = 0; i < bytes; i += 4096) static_cast<volatile char*>(a)[i] = 1;
  }
  return a;
}

}  // namespace

Calibration calibrate(const CalibrationNeeds& needs) {
  Calibration c;
  if (needs.faults) {
    // One fresh 8 MiB mapping: its first write to each page is a real
    // fault, the kernel zeroing a page, as a program pays it.
    constexpr std::size_t kBytes = 8 << 20;
    constexpr std::size_t kPages = kBytes / 4096;  // the loop below touches each once
    void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      ::madvise(m, kBytes, MADV_NOHUGEPAGE);
      char* a = static_cast<char*>(m);
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < kBytes; i += 4096) static_cast<volatile char*>(a)[i] = 1;
      const auto t1 = Clock::now();
      c.fault_seconds =
          std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(kPages);
      munmap(m, kBytes);
    }
  }
  if (needs.zeroing || needs.copying) {
    // The full size, else (a small ulimit -v) the largest half that maps,
    // down to 8 MiB: a figure that includes cache, said and not kept.
    std::size_t bytes = memory_sized_bytes();
    char* a = resident_mapping(bytes);
    while (a == nullptr && bytes > (std::size_t{8} << 20)) {
      bytes /= 2;
      a = resident_mapping(bytes);
      c.small_buffer_bytes = bytes;
    }
    if (a != nullptr) {
      if (needs.zeroing) {
        c.zero_bytes_per_second = static_cast<double>(bytes) / best_seconds(2, [&] {
                                    stream_fill(a, bytes, 0);
                                    escape(a);
                                  });
      }
      if (needs.copying) {
        const std::size_t half = bytes / 2;
        stream_fill(a, half, 1);
        c.copy_bytes_per_second = static_cast<double>(half) / best_seconds(2, [&] {
                                    stream_copy(a + half, a, half);
                                    escape(a);
                                  });
      }
      munmap(a, bytes);
    }
  }
  return calibrate_allocator(c, needs);
}

namespace {

constexpr std::string_view kCostsFile = "waste-costs";
constexpr std::string_view kCostsMagic = "zerolab-waste-costs 1";
constexpr std::size_t kMaxCostsBytes = 4096;

// The file's figure lines, in order.
struct Figure {
  const char* name;
  double Calibration::*value;
};
constexpr Figure kFigures[] = {
    {"zero-bytes-per-second", &Calibration::zero_bytes_per_second},
    {"fault-seconds", &Calibration::fault_seconds},
    {"malloc-free-seconds", &Calibration::malloc_free_seconds},
    {"large-block-seconds", &Calibration::large_block_seconds},
    {"copy-bytes-per-second", &Calibration::copy_bytes_per_second},
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string format_costs(const machine::MachineKey& key, const Calibration& c) {
  std::string out = std::string(kCostsMagic) + "\n";
  out += "cpu " + key.cpu + "\nmicrocode " + key.microcode + "\nkernel " + key.kernel + "\nglibc " +
         key.glibc + "\nmeasured " + c.measured_at + "\n";
  for (const Figure& f : kFigures) {
    char line[64];
    std::snprintf(line, sizeof line, "%s %.17g\n", f.name, c.*f.value);  // read back exactly
    out += line;
  }
  return out + "end\n";
}

// The file's figures, if it is exactly the format and was written for `here`.
std::optional<Calibration> parse_costs(std::string_view text, const machine::MachineKey& here) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;  // cut short
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  const std::string_view keys[] = {"cpu", "microcode", "kernel", "glibc", "measured"};
  const std::string* mine[] = {&here.cpu, &here.microcode, &here.kernel, &here.glibc, nullptr};
  constexpr std::size_t kKeys = std::size(keys);
  if (lines.size() != 1 + kKeys + std::size(kFigures) + 1 || lines.front() != kCostsMagic ||
      lines.back() != "end") {
    return std::nullopt;
  }
  Calibration c;
  for (std::size_t i = 0; i < kKeys; ++i) {
    const std::string_view line = lines[1 + i];
    if (line.substr(0, keys[i].size() + 1) != std::string(keys[i]) + " ") return std::nullopt;
    const std::string_view value = line.substr(keys[i].size() + 1);
    if (mine[i] != nullptr && value != *mine[i]) return std::nullopt;  // another machine
    if (mine[i] == nullptr) c.measured_at = std::string(value);
  }
  for (std::size_t i = 0; i < std::size(kFigures); ++i) {
    const std::string_view line = lines[1 + kKeys + i];
    const std::string name = std::string(kFigures[i].name) + " ";
    if (line.substr(0, name.size()) != name) return std::nullopt;
    const std::string value(line.substr(name.size()));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) return std::nullopt;
    c.*kFigures[i].value = v;
  }
  if (c.measured_at.empty()) return std::nullopt;
  return c;
}

// `c` with only the figures `needs` asks for.
Calibration only_needed(Calibration c, const CalibrationNeeds& needs) {
  if (!needs.zeroing) c.zero_bytes_per_second = 0;
  if (!needs.faults) c.fault_seconds = 0;
  if (!needs.malloc_free) c.malloc_free_seconds = 0;
  if (!needs.large_block) c.large_block_seconds = 0;
  if (!needs.copying) c.copy_bytes_per_second = 0;
  return c;
}

}  // namespace

Calibration machine_calibration(const CalibrationNeeds& needs, bool recalibrate) {
  if (!needs.zeroing && !needs.faults && !needs.malloc_free && !needs.large_block &&
      !needs.copying) {
    return Calibration{};
  }
  const std::string path = machine::cache_file_path(kCostsFile);
  const machine::MachineKey here = machine::this_machine_key();
  if (!path.empty() && !recalibrate) {
    std::string text;
    std::string refused;
    if (machine::read_cache_file(path, kMaxCostsBytes, text, refused) == 0 && refused.empty()) {
      if (std::optional<Calibration> cached = parse_costs(text, here)) {
        cached->cached = true;
        cached->cache_path = path;
        return only_needed(*std::move(cached), needs);
      }
    }
  }
  Calibration measured = calibrate({true, true, true, true, true});
  measured.measured_at = utc_now();
  // A figure the machine could not give (no mapping under a small ulimit -v)
  // is not kept.
  const bool complete = std::all_of(std::begin(kFigures), std::end(kFigures),
                                    [&](const Figure& f) { return measured.*f.value > 0; });
  if (!path.empty() && complete && measured.small_buffer_bytes == 0 &&
      machine::write_cache_file(path, format_costs(here, measured)).empty()) {
    measured.cache_path = path;
  }
  return only_needed(measured, needs);
}

}  // namespace zerolab::waste
