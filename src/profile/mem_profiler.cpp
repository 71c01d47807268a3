// The allocation sampler's tables and its two profile writers
// (mem_profiler.hpp).
#include "profile/mem_profiler.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "alloc_hooks/alloc_stats.hpp"
#include "profile/pprof_stacks.hpp"
#include "profile/stack_trace.hpp"

namespace zerolab::internal::profile {
namespace {

constexpr int kSiteDepth = 32;  // Go's memory profiles keep 32 frames too
constexpr unsigned kSiteBits = 14;
constexpr std::size_t kSites = std::size_t{1} << kSiteBits;
constexpr unsigned kLiveBits = 21;
constexpr std::size_t kLive = std::size_t{1} << kLiveBits;
constexpr std::size_t kMaxLive = kLive / 4 * 3;  // linear probing stays short
constexpr unsigned kFilterBits = 16;
constexpr std::size_t kFilter = std::size_t{1} << kFilterBits;
constexpr std::uint32_t kNoSite = UINT32_MAX;

// One allocating stack and what it allocated.
struct Site {
  std::uint64_t hash;
  std::uint64_t alloc_count;
  std::uint64_t alloc_bytes;
  std::uint64_t free_count;
  std::uint64_t free_bytes;
  std::uint32_t depth;  // 0: slot unused
  std::uint32_t unused;
  std::uintptr_t frames[kSiteDepth];
};

// A sampled block not freed yet; address 0 marks an empty slot.
struct LiveBlock {
  std::uintptr_t address;
  std::uint64_t bytes;
  std::uint32_t site;
  std::uint32_t unused;
};

struct MemState {
  std::atomic<bool> active{false};
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  Site* sites = nullptr;      // kSites, mmap'ed once, zeroed per profile
  LiveBlock* live = nullptr;  // kLive, idem
  std::size_t live_count = 0;
  std::atomic<std::uint64_t> dropped{0};
  // How many live sampled blocks hash to each slot: a free whose slot is 0
  // is not a sampled block, decided without the lock.
  std::atomic<std::uint32_t> filter[kFilter];
};

constinit MemState g_mem;

class Locked {
 public:
  Locked() noexcept { pthread_mutex_lock(&g_mem.lock); }
  ~Locked() { pthread_mutex_unlock(&g_mem.lock); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t address_hash(const void* p) noexcept {
  return mix(reinterpret_cast<std::uintptr_t>(p));
}

std::size_t filter_slot(std::uint64_t hash) noexcept {
  return hash >> (64 - kFilterBits);
}

std::uint64_t stack_hash(void* const* frames, int depth) noexcept {
  std::uint64_t h = static_cast<std::uint64_t>(depth);
  for (int i = 0; i < depth; ++i) h = mix(h ^ reinterpret_cast<std::uintptr_t>(frames[i]));
  return h;
}

// REQUIRES: the lock is held.
std::uint32_t find_or_add_site(std::uint64_t hash, void* const* frames, int depth) noexcept {
  const std::size_t mask = kSites - 1;
  for (std::size_t probe = 0, i = hash & mask; probe < kSites; ++probe, i = (i + 1) & mask) {
    Site& s = g_mem.sites[i];
    if (s.depth == 0) {
      s.hash = hash;
      s.depth = static_cast<std::uint32_t>(depth);
      for (int f = 0; f < depth; ++f) s.frames[f] = reinterpret_cast<std::uintptr_t>(frames[f]);
      return static_cast<std::uint32_t>(i);
    }
    if (s.hash != hash || s.depth != static_cast<std::uint32_t>(depth)) continue;
    bool same = true;
    for (int f = 0; f < depth && same; ++f) {
      same = s.frames[f] == reinterpret_cast<std::uintptr_t>(frames[f]);
    }
    if (same) return static_cast<std::uint32_t>(i);
  }
  return kNoSite;
}

std::size_t live_home(std::uintptr_t address) noexcept {
  return mix(address) >> (64 - kLiveBits);
}

// REQUIRES: the lock is held.
bool add_live(void* block, std::uint64_t bytes, std::uint32_t site, std::uint64_t hash) noexcept {
  if (g_mem.live_count >= kMaxLive) return false;
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  const std::size_t mask = kLive - 1;
  std::size_t i = live_home(address);
  while (g_mem.live[i].address != 0 && g_mem.live[i].address != address) i = (i + 1) & mask;
  if (g_mem.live[i].address == address) {
    // Freed behind the hooks' back (cannot happen with interposition); replace.
    g_mem.filter[filter_slot(hash)].fetch_sub(1, std::memory_order_relaxed);
    --g_mem.live_count;
  }
  g_mem.live[i] = LiveBlock{address, bytes, site, 0};
  ++g_mem.live_count;
  g_mem.filter[filter_slot(hash)].fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Removes slot i by shifting later members of its probe run back.
// REQUIRES: the lock is held.
void erase_live(std::size_t i) noexcept {
  const std::size_t mask = kLive - 1;
  std::size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (g_mem.live[j].address == 0) break;
    const std::size_t home = live_home(g_mem.live[j].address);
    // The entry at j may move to i unless its home lies cyclically in (i, j].
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    g_mem.live[i] = g_mem.live[j];
    i = j;
  }
  g_mem.live[i] = LiveBlock{};
  --g_mem.live_count;
}

void on_alloc(void* block, std::uint64_t bytes, void* caller) {
  void* frames[kSiteDepth];
  int depth = caller != nullptr ? walk_frame_pointers(caller, frames, kSiteDepth) : 0;
  if (depth == 0) {
    frames[0] = caller;
    depth = 1;
  }
  const std::uint64_t hash = stack_hash(frames, depth);
  const std::uint64_t block_hash = address_hash(block);
  Locked locked;
  if (!g_mem.active.load(std::memory_order_relaxed)) return;
  const std::uint32_t site = find_or_add_site(hash, frames, depth);
  if (site == kNoSite) {
    g_mem.dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Site& s = g_mem.sites[site];
  ++s.alloc_count;
  s.alloc_bytes += bytes;
  if (!add_live(block, bytes, site, block_hash)) {
    g_mem.dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

void on_free(void* block) {
  const std::uint64_t block_hash = address_hash(block);
  std::atomic<std::uint32_t>& slot = g_mem.filter[filter_slot(block_hash)];
  if (slot.load(std::memory_order_relaxed) == 0) return;
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  Locked locked;
  if (g_mem.live == nullptr) return;
  const std::size_t mask = kLive - 1;
  for (std::size_t i = live_home(address); g_mem.live[i].address != 0; i = (i + 1) & mask) {
    if (g_mem.live[i].address != address) continue;
    Site& s = g_mem.sites[g_mem.live[i].site];
    ++s.free_count;
    s.free_bytes += g_mem.live[i].bytes;
    erase_live(i);
    slot.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
}

bool map_tables(std::string& error) {
  if (g_mem.sites != nullptr) {
    // Private anonymous pages read as zero again after MADV_DONTNEED.
    madvise(g_mem.sites, kSites * sizeof(Site), MADV_DONTNEED);
    madvise(g_mem.live, kLive * sizeof(LiveBlock), MADV_DONTNEED);
    return true;
  }
  void* sites = mmap(nullptr, kSites * sizeof(Site), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* live = mmap(nullptr, kLive * sizeof(LiveBlock), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (sites == MAP_FAILED || live == MAP_FAILED) {
    error = std::string("cannot map the profile tables: ") + std::strerror(errno);
    if (sites != MAP_FAILED) munmap(sites, kSites * sizeof(Site));
    if (live != MAP_FAILED) munmap(live, kLive * sizeof(LiveBlock));
    return false;
  }
  g_mem.sites = static_cast<Site*>(sites);
  g_mem.live = static_cast<LiveBlock*>(live);
  return true;
}

std::string count_pair(std::uint64_t count, std::uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%6" PRIu64 ": %8" PRIu64, count, bytes);
  return text;
}

// gperftools' heap profile text: raw sampled counts, the rate in the header.
std::string legacy_profile(const std::vector<Site>& sites, std::uint64_t rate) {
  std::uint64_t totals[4] = {0, 0, 0, 0};
  std::string body;
  for (const Site& s : sites) {
    const std::uint64_t in_use_count = s.alloc_count - s.free_count;
    const std::uint64_t in_use_bytes = s.alloc_bytes - s.free_bytes;
    totals[0] += in_use_count;
    totals[1] += in_use_bytes;
    totals[2] += s.alloc_count;
    totals[3] += s.alloc_bytes;
    body += count_pair(in_use_count, in_use_bytes) + " [" +
            count_pair(s.alloc_count, s.alloc_bytes) + "] @";
    for (std::uint32_t f = 0; f < s.depth; ++f) {
      // pprof subtracts 1 from every address but the first; do it for the
      // first (a return address too) so it maps to the call, not past it.
      const std::uintptr_t address = f == 0 && s.frames[0] != 0 ? s.frames[0] - 1 : s.frames[f];
      char text[24];
      std::snprintf(text, sizeof text, " 0x%" PRIxPTR, address);
      body += text;
    }
    body += '\n';
  }
  // With rate 1 every allocation is in: "heapprofile" tells pprof not to scale.
  const std::string kind = rate == 1 ? "heapprofile" : "heap_v2/" + std::to_string(rate);
  return "heap profile: " + count_pair(totals[0], totals[1]) + " [" +
         count_pair(totals[2], totals[3]) + "] @ " + kind + "\n" + body + "\nMAPPED_LIBRARIES:\n" +
         read_memory_map();
}

// What `count` sampled blocks of `bytes` in all stand for at `rate`: Go's
// scaling (runtime/pprof's scaleHeapSample), none at rate 1.
std::vector<std::int64_t> unsampled(std::uint64_t count, std::uint64_t bytes, std::uint64_t rate) {
  if (count == 0 || bytes == 0) return {0, 0};
  if (rate <= 1) return {static_cast<std::int64_t>(count), static_cast<std::int64_t>(bytes)};
  const double average = static_cast<double>(bytes) / static_cast<double>(count);
  const double scale = 1 / (1 - std::exp(-average / static_cast<double>(rate)));
  return {static_cast<std::int64_t>(static_cast<double>(count) * scale),
          static_cast<std::int64_t>(static_cast<double>(bytes) * scale)};
}

// Go's allocation profile: allocated and in-use objects and bytes per stack.
std::string pprof_profile(const std::vector<Site>& sites, std::uint64_t rate) {
  PprofBuilder b({{"alloc_objects", "count"},
                  {"alloc_space", "bytes"},
                  {"inuse_objects", "count"},
                  {"inuse_space", "bytes"}});
  b.set_default_sample_type("alloc_space");  // as go test -memprofile's "allocs" profile
  b.set_period("space", "bytes", static_cast<std::int64_t>(rate));
  std::vector<RecordedStack> recorded;
  for (const Site& s : sites) {
    std::vector<std::int64_t> values = unsampled(s.alloc_count, s.alloc_bytes, rate);
    const std::vector<std::int64_t> in_use =
        unsampled(s.alloc_count - s.free_count, s.alloc_bytes - s.free_bytes, rate);
    values.insert(values.end(), in_use.begin(), in_use.end());
    recorded.push_back({{s.frames, s.frames + s.depth}, std::move(values)});
  }
  add_process_stacks(b, recorded, PcKind::kReturnAddress);
  return gzip_stored(b.serialize());
}

}  // namespace

MemProfiler::~MemProfiler() {
  discard();
}

void MemProfiler::discard() noexcept {
  if (running_) detach();
  file_.abandon();
}

std::string MemProfiler::unsupported_reason() {
  if (!alloc_stats::available()) {
    return "needs zerolab::alloc_hooks linked in (zerolab::bench_main brings it)";
  }
  const std::string mode = alloc_stats::mode();
  if (mode != "interpose") {
    return "not supported in sanitizer builds (the allocation hooks run in " + mode + " mode)";
  }
  return "";
}

bool MemProfiler::start(const std::string& path, std::uint64_t rate, std::string& error,
                        ProfileFormat format) {
  if (const std::string why = unsupported_reason(); !why.empty()) {
    error = why;
    return false;
  }
  if (rate < 1) {
    error = "rate must be at least 1 byte";
    return false;
  }
  if (g_mem.active.load()) {
    error = "a memory profile is already running";
    return false;
  }
  alloc_stats::ScopedPause pause;
  if (!file_.open(path, error)) return false;
  {
    Locked locked;
    if (!map_tables(error)) {
      file_.abandon();
      return false;
    }
    for (auto& slot : g_mem.filter) slot.store(0, std::memory_order_relaxed);
    g_mem.live_count = 0;
    g_mem.dropped.store(0);
    g_mem.active.store(true);
  }
  warm_up_unwinder();
  if (!alloc_stats::set_sampler(&on_alloc, &on_free, rate)) {
    g_mem.active.store(false);
    file_.abandon();
    error = "the allocation hooks cannot sample in this build";
    return false;
  }
  rate_ = rate;
  format_ = format;
  running_ = true;
  return true;
}

void MemProfiler::detach() noexcept {
  alloc_stats::set_sampler(nullptr, nullptr, 0);
  g_mem.active.store(false);
  running_ = false;
}

bool MemProfiler::stop(std::string& error) {
  if (!running_) {
    error = "no memory profile is running";
    return false;
  }
  detach();
  alloc_stats::ScopedPause pause;
  std::vector<Site> sites;
  {
    Locked locked;  // waits for callbacks that were already running
    for (std::size_t i = 0; i < kSites; ++i) {
      if (g_mem.sites[i].depth != 0) sites.push_back(g_mem.sites[i]);
    }
  }
  std::stable_sort(sites.begin(), sites.end(),
                   [](const Site& a, const Site& b) { return a.alloc_bytes > b.alloc_bytes; });
  file_.append(format_ == ProfileFormat::kLegacy ? legacy_profile(sites, rate_)
                                                 : pprof_profile(sites, rate_));
  return file_.commit(error);
}

std::uint64_t MemProfiler::dropped() noexcept {
  return g_mem.dropped.load();
}

void MemProfiler::set_sampling(bool on) noexcept {
  if (!g_mem.active.load(std::memory_order_relaxed)) return;
  alloc_stats::sampling(on);
}

}  // namespace zerolab::internal::profile
