// zero_fill's calibration (zero_calibrate.hpp).
//
// The CPUID rule (zero.cpp) is the starting point, and measuring only
// overrules it where another method is clearly faster: in the sweeps here
// the methods that can win a size are often within 5% of each other, and a
// millisecond's timing then picked a different one in every process (rep
// stosb in one, memset in the next, vector stores in a third), some of them
// 10-15% slower than the rule's choice in a longer run. So:
//   - below 4 KiB: vector stores, not measured (rep stosb's start-up alone
//     costs more than the stores there: 30-37% slower at 2 KiB);
//   - 4 KiB to 512 KiB by twos, on a 512 KiB scratch buffer: the rule's
//     method against vector stores, rep stosb (with ERMS) and glibc's
//     memset, nine rounds; in each round every method is timed once (about
//     64 KiB of repeated calls on the same bytes, as in real reuse; the
//     order rotates), and a challenger's time is divided by the rule's of
//     the same round, so a slow moment (another process, a frequency step)
//     cancels. A challenger replaces the rule's method only when the median
//     of its nine ratios is at most 0.90. The bar was 0.80 on an Ice Lake
//     vCPU where vector stores and rep stosb traded places by up to 20%
//     from one moment to the next at 4-32 KiB (vector stores at 4 KiB
//     measured 1.20x faster in one calibration and 0.78x in the next
//     process's sweep); on an AMD EPYC vCPU vector stores won 64-256 KiB
//     by 1.13-1.32x in each of ten calibrations and by 1.5x in
//     zero_sweep's Race, which 0.80 gave away. Non-temporal stores are not
//     candidates below 1 MiB (2-30x slower than the others there in every
//     sweep);
//   - past 3 ms of wall time (a preempted process), the sizes not yet
//     measured keep the rule;
//   - from 1 MiB: the rule, not measured (timing there needs buffers of
//     megabytes: faulting them in alone costs milliseconds).
// Before anything is timed, about 50 µs of untimed vector stores wake the
// upper vector lanes (the CPU runs wide stores slowly until then), and every
// method runs once untimed at each size.
#include "mem/zero_calibrate.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mem/zero_kernels.hpp"
#include "text/byte_size.hpp"

namespace zerolab::internal {
namespace {

constexpr std::size_t kLadderFrom = std::size_t{4} << 10;
constexpr std::size_t kLadderTop = std::size_t{512} << 10;
constexpr std::size_t kBytesPerSample = std::size_t{64} << 10;
constexpr int kRounds = 9;
constexpr double kSwitchAt = 0.90;  // a challenger's median time over the rule's
constexpr double kWarmupNs = 50e3;

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void memset_fill(void* p, std::size_t n) noexcept {
  std::memset(p, 0, n);
}
void stosb_fill(void* p, std::size_t n) noexcept {
  zero_rep_stosb(p, n);
}

struct Candidate {
  ZeroMethod method;
  ZeroKernel fill;
  double ns[kRounds] = {};
};

double time_once(ZeroKernel fill, unsigned char* buf, std::size_t size, std::size_t reps) {
  const double t0 = now_ns();
  for (std::size_t r = 0; r < reps; ++r) {
    fill(buf, size);
    asm volatile("" : : "r"(buf) : "memory");
  }
  return now_ns() - t0;
}

// The median over the rounds of c's time over the rule's (`rule`).
double median_ratio(const Candidate& c, const Candidate& rule) {
  double r[kRounds];
  for (int i = 0; i < kRounds; ++i) r[i] = rule.ns[i] > 0 ? c.ns[i] / rule.ns[i] : 1;
  std::nth_element(r, r + kRounds / 2, r + kRounds);
  return r[kRounds / 2];
}

// The rule's method first, then the others this CPU has.
std::vector<Candidate> candidates(ZeroMethod ruled, ZeroKernel vector, bool erms) {
  const Candidate all[] = {{ZeroMethod::kVector, vector},
                           {ZeroMethod::kRepStosb, &stosb_fill},
                           {ZeroMethod::kMemset, &memset_fill},
                           {ZeroMethod::kNonTemporal, &zero_fill_nt}};
  std::vector<Candidate> cands;
  for (const Candidate& c : all) {
    if (c.method == ruled) cands.insert(cands.begin(), c);
  }
  for (const Candidate& c : all) {
    if (c.method == ruled || c.method == ZeroMethod::kNonTemporal) continue;
    if (c.method == ZeroMethod::kRepStosb && !erms) continue;
    cands.push_back(c);
  }
  return cands;
}

// Times cands at `size`; returns the index of the winner (0, the rule's
// method, unless a challenger's median ratio is at most kSwitchAt) and
// appends the verdict ("16KiB rep-stosb kept (memset 1.02x)", "32KiB
// memset 1.11x over rep-stosb") to `report`.
std::size_t judge(std::vector<Candidate>& cands, unsigned char* buf, std::size_t size,
                  std::string& report) {
  for (const Candidate& c : cands) c.fill(buf, size);  // untimed: code and lines in place
  const std::size_t reps = std::max<std::size_t>(1, kBytesPerSample / size);
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t k = 0; k < cands.size(); ++k) {
      Candidate& c = cands[(k + static_cast<std::size_t>(round)) % cands.size()];
      c.ns[round] = time_once(c.fill, buf, size, reps);
    }
  }
  std::size_t best = 1;
  double best_ratio = 2;
  for (std::size_t i = 1; i < cands.size(); ++i) {
    const double r = median_ratio(cands[i], cands[0]);
    if (r < best_ratio) {
      best = i;
      best_ratio = r;
    }
  }
  char text[160];
  if (best < cands.size() && best_ratio <= kSwitchAt) {
    std::snprintf(text, sizeof text, "%s %s %.2fx over %s", format_byte_size(size).c_str(),
                  to_string(cands[best].method), 1 / best_ratio, to_string(cands[0].method));
  } else if (best < cands.size()) {
    std::snprintf(text, sizeof text, "%s %s kept (%s %.2fx)", format_byte_size(size).c_str(),
                  to_string(cands[0].method), to_string(cands[best].method), 1 / best_ratio);
    best = 0;
  } else {
    std::snprintf(text, sizeof text, "%s %s (alone)", format_byte_size(size).c_str(),
                  to_string(cands[0].method));
    best = 0;
  }
  report += (report.empty() ? "" : ", ") + std::string(text);
  return best;
}

// `chosen` (one method per ladder size, each holding up to the next) laid
// over the rule's bands.
std::vector<ZeroBand> merge(const std::vector<ZeroBand>& rule,
                            const std::vector<ZeroMethod>& chosen) {
  std::vector<ZeroBand> bands;
  const auto add = [&bands](std::size_t from, ZeroMethod m) {
    const ZeroMethod current = bands.empty() ? ZeroMethod::kVector : bands.back().method;
    if (m != current) bands.push_back({from, m});
  };
  for (const ZeroBand& b : rule) {
    if (b.from < kLadderFrom) add(b.from, b.method);
  }
  std::size_t size = kLadderFrom;
  for (const ZeroMethod m : chosen) {
    add(size, m);
    size *= 2;
  }
  add(size, method_at(rule, size));
  for (const ZeroBand& b : rule) {
    if (b.from > size) add(b.from, b.method);
  }
  return bands;
}

}  // namespace

ZeroMethod method_at(const std::vector<ZeroBand>& bands, std::size_t n) noexcept {
  ZeroMethod m = ZeroMethod::kVector;
  for (const ZeroBand& b : bands) {
    if (b.from <= n) m = b.method;
  }
  return m;
}

namespace {
constinit std::atomic<int> g_calibration_runs{0};
}  // namespace

int calibration_runs() noexcept {
  return g_calibration_runs.load(std::memory_order_relaxed);
}

Calibration calibrate_bands(ZeroIsa isa, const ZeroConfig& rule, double budget_ms) {
  g_calibration_runs.fetch_add(1, std::memory_order_relaxed);
  const double t0 = now_ns();
  Calibration out;
  // MAP_POPULATE: one call maps every page, where 128 first-touch faults
  // cost ~1.3 ms on a VM (and more in a process that counts its faults).
  void* map = mmap(nullptr, kLadderTop, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (map == MAP_FAILED) {
    out.bands = rule.bands;
    out.reason =
        std::string("not checked: the scratch mapping failed (") + std::strerror(errno) + ")";
    return out;
  }
  auto* buf = static_cast<unsigned char*>(map);
  const ZeroKernel vector = vector_kernel(isa);
  vector(buf, kLadderTop);  // the lines and the code in place
  // Wakes the wide vector units before anything is timed.
  const double warm_from = now_ns();
  while (now_ns() - warm_from < kWarmupNs) time_once(vector, buf, kBytesPerSample, 1);
  std::string report;
  std::vector<ZeroMethod> chosen;
  for (std::size_t size = kLadderFrom; size <= kLadderTop; size *= 2) {
    if (now_ns() - t0 >= budget_ms * 1e6) {
      char past[48];
      std::snprintf(past, sizeof past, "past the %g ms budget", budget_ms);
      report += (report.empty() ? "" : ", ") + std::string(past) + ": the rule unmeasured from " +
                format_byte_size(size);
      break;
    }
    std::vector<Candidate> cands = candidates(method_at(rule.bands, size), vector, rule.has_erms);
    chosen.push_back(cands[judge(cands, buf, size, report)].method);
  }
  // Timed up to here: the first release of pages in a process that has
  // just faulted in a lot of memory pays the kernel's deferred work for
  // those faults, whoever releases (8.4-8.7 ms after 1 GiB of fresh 4 KiB
  // pages on the AMD EPYC VM, for munmap, MADV_DONTNEED or MADV_FREE alike;
  // 30-60 us otherwise). That is the earlier faults' cost, not this one's.
  out.ms = (now_ns() - t0) / 1e6;
  munmap(map, kLadderTop);
  out.bands = merge(rule.bands, chosen);
  char head[160];
  std::snprintf(
      head, sizeof head,
      "checked at cpu %d, %.2f ms, %d paired rounds (another method replaces the rule's at "
      "%.2fx or better): ",
      sched_getcpu(), out.ms, kRounds, 1 / kSwitchAt);
  out.reason = head + report;
  return out;
}

}  // namespace zerolab::internal
