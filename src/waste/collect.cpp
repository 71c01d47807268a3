// `zerolab waste`'s record reader (cmd_waste_collect.hpp).
#include "waste/collect.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "waste/record_format.hpp"

namespace zerolab::waste {
namespace {

namespace rec = zerolab::waste;

std::string real_path(const char* path) {
  char buf[PATH_MAX];
  return realpath(path, buf) != nullptr ? std::string(buf) : std::string(path);
}

std::uint64_t get(const std::atomic<std::uint64_t>& a) {
  return a.load(std::memory_order_relaxed);
}

// The path of the mapping that holds `pc`, or null.
const std::string* module_at(const std::vector<MapEntry>& maps, std::uint64_t pc) {
  for (const MapEntry& m : maps) {
    if (pc >= m.begin && pc < m.end) return &m.path;
  }
  return nullptr;
}

// The pages of a record file that hold data. The preload writes only the
// sites it adds, so most of the 1.5 MiB site table is a hole: reading a hole
// through the mapping would make the file system allocate a zeroed page for
// it (tmpfs does), and reading every hole cost ~0.5 ms per record.
class WrittenPages {
 public:
  explicit WrittenPages(int fd) : pages_((sizeof(rec::Record) + kPage - 1) / kPage, false) {
    off_t at = 0;
    for (;;) {
      const off_t data = lseek(fd, at, SEEK_DATA);
      if (data < 0) break;  // ENXIO: no data past `at` (other errors: treat all as data below)
      off_t hole = lseek(fd, data, SEEK_HOLE);
      if (hole < 0) hole = static_cast<off_t>(sizeof(rec::Record));
      for (off_t p = data / kPage; p * kPage < hole && static_cast<std::size_t>(p) < pages_.size();
           ++p) {
        pages_[static_cast<std::size_t>(p)] = true;
      }
      at = hole;
    }
    if (at == 0 && errno != ENXIO) pages_.assign(pages_.size(), true);  // no SEEK_DATA here
  }

  // True if any byte of [offset, offset + n) may have been written.
  bool any(std::size_t offset, std::size_t n) const {
    for (std::size_t p = offset / kPage; p <= (offset + n - 1) / kPage; ++p) {
      if (pages_[p]) return true;
    }
    return false;
  }

 private:
  static constexpr off_t kPage = 4096;
  std::vector<bool> pages_;
};

// What every reading of one record shares: its process's mappings and the
// preload's own path (read once, not per thread slot).
struct RecordMaps {
  explicit RecordMaps(const rec::Record& r) {
    const std::uint32_t current = r.maps_current.load(std::memory_order_acquire) & 1;
    const std::uint32_t length = std::min(r.maps_length[current], rec::kMapsBytes);
    maps = parse_maps(std::string_view(r.maps[current], length));
    preload = real_path(std::string(r.preload, strnlen(r.preload, sizeof r.preload)).c_str());
  }
  std::vector<MapEntry> maps;
  std::string preload;
};

// One image's record into `out`; with `only_slot` >= 0, that thread slot's
// counts alone (and its in-frame sites; the children it lists stay with the
// image).
void add_record(const rec::Record& r, const RecordMaps& mapped, const std::string& name,
                const WrittenPages& written, Symbolizer& symbols, Collected& out,
                int only_slot = -1) {
  ProcessImage image{static_cast<long>(r.pid),
                     static_cast<long>(r.ppid),
                     std::string(r.exe, strnlen(r.exe, sizeof r.exe)),
                     {},
                     name};
  const std::size_t command_bytes = std::min<std::size_t>(r.cmdline_length, sizeof r.cmdline);
  for (std::size_t at = 0; at < command_bytes;) {
    const std::size_t n = strnlen(r.cmdline + at, command_bytes - at);
    image.command.emplace_back(r.cmdline + at, n);
    at += n + 1;
  }
  out.images.push_back(std::move(image));
  const std::vector<MapEntry>& maps = mapped.maps;
  const std::string& preload = mapped.preload;

  // The thread slots: every one, or `only_slot` alone (a per-thread collection).
  std::uint64_t zero_bytes = 0;
  std::uint64_t samples = 0;
  std::uint64_t zero_hits = 0;
  std::uint64_t zero_hit_weight_1024 = 0;
  auto unwritten = [&](const void* p, std::size_t n) {
    return !written.any(
        static_cast<std::size_t>(static_cast<const char*>(p) - reinterpret_cast<const char*>(&r)),
        n);
  };
  for (std::size_t i = 0; i < std::size(r.slots); ++i) {
    if (only_slot >= 0 && i != static_cast<std::size_t>(only_slot)) continue;
    const rec::ThreadSlot& s = r.slots[i];
    if (unwritten(&s, sizeof s)) continue;  // a slot no thread used: all zero
    out.totals[static_cast<int>(WasteKind::kTemporaryAllocations)].calls +=
        static_cast<double>(get(s.temp_calls));
    out.totals[static_cast<int>(WasteKind::kTemporaryAllocations)].bytes +=
        static_cast<double>(get(s.temp_bytes));
    zero_bytes += get(s.zero_bytes);
    const rec::Totals& t = s.totals;
    KindTotals& fresh = out.totals[static_cast<int>(WasteKind::kZeroedFreshPages)];
    fresh.calls += static_cast<double>(get(t.fresh_calls));
    fresh.bytes += static_cast<double>(get(t.fresh_bytes));
    fresh.extra += static_cast<double>(get(t.fresh_pages));
    samples += get(t.zero_samples);
    zero_hits += get(t.zero_hits);
    zero_hit_weight_1024 += get(t.zero_hit_weight_1024);
    KindTotals& over = out.totals[static_cast<int>(WasteKind::kOversizedBuffers)];
    over.calls += static_cast<double>(get(t.over_calls));
    over.bytes += static_cast<double>(get(t.over_bytes));
    over.extra += static_cast<double>(get(t.over_touched));
    KindTotals& copies = out.totals[static_cast<int>(WasteKind::kUserSpaceCopies)];
    for (int src = 0; src < kFdTypes; ++src) {
      for (int dst = 0; dst < kFdTypes; ++dst) {
        out.copy_calls[src][dst] += get(t.copy_calls[src][dst]);
        out.copy_bytes[src][dst] += get(t.copy_bytes[src][dst]);
        copies.calls += static_cast<double>(get(t.copy_calls[src][dst]));
        copies.bytes += static_cast<double>(get(t.copy_bytes[src][dst]));
      }
    }
    out.frame_untracked += get(t.frame_untracked);
    out.large_blocks += get(t.large_blocks);
    out.large_untracked += get(t.large_untracked);
    out.sites_dropped += get(t.sites_dropped);
  }
  // Zeroed zeros: hit bytes scaled by population / samples (1 when every
  // byte is sampled); calls are the preload's weighted count.
  const double byte_scale =
      samples == 0 ? 0 : static_cast<double>(zero_bytes) / static_cast<double>(samples);
  KindTotals& zeros = out.totals[static_cast<int>(WasteKind::kZeroedZeros)];
  zeros.bytes += static_cast<double>(zero_hits) * byte_scale;
  zeros.calls += static_cast<double>(zero_hit_weight_1024) / 1024.0;
  out.zero_population += zero_bytes;
  out.zero_samples += samples;
  out.zero_hits += zero_hits;
  const auto lost_at = static_cast<std::size_t>(reinterpret_cast<const char*>(&r.lost_count) -
                                                reinterpret_cast<const char*>(&r));
  const std::uint32_t lost = only_slot < 0 && written.any(lost_at, sizeof r.lost_count)
                                 ? r.lost_count.load(std::memory_order_relaxed)
                                 : 0;
  for (std::uint32_t i = 0; i < std::min(lost, rec::kMaxLostChildren); ++i) {
    const rec::LostChild& c = r.lost[i];
    if (c.pid == 0) continue;  // an exec that failed
    out.unrecorded_children.push_back(
        {static_cast<long>(c.pid), std::string(c.command, strnlen(c.command, sizeof c.command))});
  }
  if (lost > rec::kMaxLostChildren) out.unrecorded_children_dropped += lost - rec::kMaxLostChildren;

  // The memset calls some call of which ran over memory no allocator had
  // handed out zeroed: their sites are never safe to drop.
  std::unordered_set<std::uint64_t> unsafe_callers;
  const bool unsafe_full = r.zero_unsafe_full.load(std::memory_order_relaxed) != 0;
  for (const auto& caller : r.zero_unsafe_callers) {
    if (unwritten(&caller, sizeof caller)) continue;
    if (const std::uint64_t pc = caller.load(std::memory_order_relaxed); pc != 0) {
      unsafe_callers.insert(pc);
    }
  }
  for (const rec::Site& s : r.sites) {
    const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&s) -
                                                 reinterpret_cast<const char*>(&r));
    if (!written.any(offset, sizeof s)) continue;
    if (get(s.key) == 0 || s.ready.load(std::memory_order_acquire) == 0) continue;
    if (s.kind >= static_cast<std::uint32_t>(kWasteKinds) ||
        s.depth > static_cast<std::uint32_t>(rec::kMaxFrames))
      continue;
    // A thread's share: its in-frame sites (the kind whose total is its
    // sites'); the other kinds' totals are the slot's counters.
    if (only_slot >= 0 && (s.kind != static_cast<std::uint32_t>(WasteKind::kTemporaryInFrame) ||
                           s.thread != only_slot))
      continue;
    SiteRecord site;
    site.kind = static_cast<WasteKind>(s.kind);
    site.src = s.src < kFdTypes ? s.src : static_cast<int>(rec::FdType::kOther);
    site.dst = s.dst < kFdTypes ? s.dst : static_cast<int>(rec::FdType::kOther);
    site.calls = static_cast<double>(get(s.calls));
    site.bytes = static_cast<double>(get(s.bytes));
    site.extra = static_cast<double>(get(s.extra));
    if (site.kind == WasteKind::kZeroedZeros) {
      site.calls = site.extra / 1024.0;
      site.extra = 0;
      site.samples = site.bytes;  // zero samples (one byte each)
      site.bytes *= byte_scale;
    }
    if (site.kind == WasteKind::kTemporaryAllocations ||
        site.kind == WasteKind::kTemporaryInFrame) {
      site.samples = site.extra;
      site.extra = 0;
    }
    if (site.calls == 0 && site.bytes == 0) continue;  // e.g. a large block that was not oversized
    // The preload's (and the unwinder's) own frames are cut before they reach
    // the symbolizer: resolving them would cost an addr2line run per report.
    std::uint32_t first = 0;
    while (first < s.depth) {
      const std::string* module = module_at(maps, s.pcs[first]);
      if (module == nullptr ||
          (*module != preload && module->find("/libgcc_s.so") == std::string::npos))
        break;
      ++first;
    }
    if ((site.kind == WasteKind::kZeroedZeros || site.kind == WasteKind::kZeroedFreshPages) &&
        site.dst != 0 &&
        (unsafe_full || first >= s.depth || unsafe_callers.count(s.pcs[first]) != 0)) {
      site.dst = 0;
    }
    site.truncated = s.depth == static_cast<std::uint32_t>(rec::kMaxFrames);
    for (std::uint32_t i = first; i < s.depth; ++i)
      site.stack.push_back(symbols.add(maps, s.pcs[i]));
    if (site.kind == WasteKind::kTemporaryInFrame) {  // src: innermost live frame, as a stack index
      site.src = s.src > first ? static_cast<int>(s.src - first) : 0;
      site.dst = 0;
      out.totals[static_cast<int>(site.kind)].calls +=
          site.calls;  // any frame live; the report narrows
      out.totals[static_cast<int>(site.kind)].bytes += site.bytes;
      out.totals[static_cast<int>(site.kind)].samples += site.samples;
    }
    if (!site.stack.empty()) out.sites.push_back(std::move(site));
  }
}

}  // namespace

const char* fd_type_name(int type) {
  static const char* const kNames[kFdTypes] = {"file", "pipe", "tcp",   "udp",
                                               "unix", "tty",  "other", "tcp-loopback"};
  return type >= 0 && type < kFdTypes ? kNames[type] : "other";
}

bool collect_records(const std::string& dir, Symbolizer& symbols, Collected& out,
                     std::string& error, std::vector<Collected>* per_image) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    error = "reading " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".rec") == 0) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    const long pa = std::atol(a.c_str());
    const long pb = std::atol(b.c_str());
    return pa != pb ? pa < pb : a < b;
  });
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != sizeof(rec::Record)) {
      close(fd);
      continue;
    }
    const WrittenPages written(fd);
    void* m = mmap(nullptr, sizeof(rec::Record), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) continue;
    const auto* r = static_cast<const rec::Record*>(m);
    if (r->magic == rec::kRecordMagic && r->version == rec::kRecordVersion &&
        r->record_bytes == sizeof(rec::Record)) {
      const RecordMaps mapped(*r);
      add_record(*r, mapped, name, written, symbols, out);
      if (per_image != nullptr) {
        per_image->emplace_back();
        Collected& image = per_image->back();
        add_record(*r, mapped, name, written, symbols, image);
        for (std::size_t i = 0; i < std::size(r->slots); ++i) {
          const rec::ThreadSlot& slot = r->slots[i];
          const auto at = static_cast<std::size_t>(reinterpret_cast<const char*>(&slot) -
                                                   reinterpret_cast<const char*>(r));
          if (i != 0 && !written.any(at, sizeof slot)) continue;  // never used
          const auto threads = slot.threads.load(std::memory_order_relaxed);
          if (i != 0 && threads == 0) continue;  // never used
          Collected thread;
          thread.thread.slot = static_cast<int>(i);
          thread.thread.tid = static_cast<long>(slot.tid.load(std::memory_order_relaxed));
          thread.thread.name = std::string(slot.name, strnlen(slot.name, sizeof slot.name));
          thread.thread.threads = threads;
          add_record(*r, mapped, name, written, symbols, thread, static_cast<int>(i));
          image.per_thread.push_back(std::move(thread));
        }
      }
    }
    munmap(m, sizeof(rec::Record));
  }
  return true;
}

}  // namespace zerolab::waste
