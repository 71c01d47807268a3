// zero_fill's calibration (zero_calibrate.hpp).
//
// Below 1 MiB (the ladder): 512 B to 512 KiB by factors of four, each
// method timed on a 512 KiB scratch buffer in samples of about 128 KiB of
// repeated calls (a reused buffer, as in real code) after one untimed pass
// that faults the pages in; the best of three samples per method counts.
// From 1 MiB (the large buckets): each power-of-two bucket is raced once,
// on the buffer of the first zero_fill that lands in it — every method
// writes zeros, so the caller's buffer is a free test bench and no scratch
// memory has to be faulted in: an untimed pass, one pass per method, a
// second for the two best; the range ends zeroed as asked.
#include "mem/zero_calibrate.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "mem/zero_kernels.hpp"

namespace zerolab::internal {
namespace {

constexpr std::size_t kLadderTop = std::size_t{512} << 10;
constexpr std::size_t kBytesPerSample = std::size_t{128} << 10;
constexpr int kSamples = 3;
constexpr double kIncumbentMargin = 0.97;  // another method must be 3% faster

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void nt_fill(void* p, std::size_t n) noexcept { zero_fill_nt(p, n); }
void memset_fill(void* p, std::size_t n) noexcept { std::memset(p, 0, n); }
void stosb_fill(void* p, std::size_t n) noexcept { zero_rep_stosb(p, n); }

struct Candidate {
  ZeroMethod method;
  ZeroKernel fill;
  double best_ns_per_byte = 0;
};

double time_once(const Candidate& c, unsigned char* buf, std::size_t size, std::size_t reps) {
  const double t0 = now_ns();
  for (std::size_t r = 0; r < reps; ++r) {
    c.fill(buf, size);
    asm volatile("" : : "r"(buf) : "memory");
  }
  return (now_ns() - t0) / static_cast<double>(reps * size);
}

void keep_best(Candidate& c, double per_byte) {
  if (c.best_ns_per_byte == 0 || per_byte < c.best_ns_per_byte) c.best_ns_per_byte = per_byte;
}

// The index of the winner: the incumbent unless another is 3% faster.
std::size_t pick(const std::vector<Candidate>& cands, ZeroMethod incumbent) {
  std::size_t best = 0;
  std::size_t inc = cands.size();
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].best_ns_per_byte < cands[best].best_ns_per_byte) best = i;
    if (cands[i].method == incumbent) inc = i;
  }
  if (inc == cands.size()) return best;
  return cands[best].best_ns_per_byte < cands[inc].best_ns_per_byte * kIncumbentMargin ? best : inc;
}

// "4MiB nt 2.31x": the winner and its speed over the runner-up.
std::string verdict(std::size_t size, const std::vector<Candidate>& cands, std::size_t winner) {
  double runner_up = 0;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (i == winner) continue;
    if (runner_up == 0 || cands[i].best_ns_per_byte < runner_up) runner_up = cands[i].best_ns_per_byte;
  }
  char ratio[32] = "";
  if (runner_up > 0 && cands[winner].best_ns_per_byte > 0) {
    std::snprintf(ratio, sizeof ratio, " %.2fx", runner_up / cands[winner].best_ns_per_byte);
  }
  return size_name(size) + " " + to_string(cands[winner].method) + ratio;
}

std::vector<Candidate> candidates(ZeroKernel vector, bool erms, bool nt) {
  std::vector<Candidate> cands;
  cands.push_back({ZeroMethod::kVector, vector});
  if (erms) cands.push_back({ZeroMethod::kRepStosb, &stosb_fill});
  cands.push_back({ZeroMethod::kMemset, &memset_fill});
  if (nt) cands.push_back({ZeroMethod::kNonTemporal, &nt_fill});
  return cands;
}

}  // namespace

ZeroMethod rule_method(const ZeroConfig& rule, std::size_t n) noexcept {
  ZeroMethod m = ZeroMethod::kVector;
  for (const ZeroBand& b : rule.bands) {
    if (b.from > n) break;
    m = b.method;
  }
  return m;
}

Calibration calibrate_ladder(ZeroIsa isa, const ZeroConfig& rule) {
  const double t0 = now_ns();
  Calibration out;
  void* map = mmap(nullptr, kLadderTop, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    for (const ZeroBand& b : rule.bands) {
      if (b.from < kLargeFrom) out.bands.push_back(b);
    }
    out.reason = "scratch mapping failed: the CPUID rule";
    return out;
  }
  auto* buf = static_cast<unsigned char*>(map);
  const ZeroKernel vector = vector_kernel(isa);
  std::string report;
  ZeroMethod current = ZeroMethod::kVector;
  for (std::size_t size = 512; size <= kLadderTop; size *= 4) {
    std::vector<Candidate> cands =
        candidates(vector, rule.has_erms, size >= (std::size_t{128} << 10));
    vector(buf, size);  // faults the pages in, the lines into the caches
    const std::size_t reps = std::max<std::size_t>(1, kBytesPerSample / size);
    for (int s = 0; s < kSamples; ++s) {
      for (Candidate& c : cands) keep_best(c, time_once(c, buf, size, reps));
    }
    const std::size_t w = pick(cands, rule_method(rule, size));
    report += (report.empty() ? "" : ", ") + verdict(size, cands, w);
    if (cands[w].method != current) {
      out.bands.push_back({size, cands[w].method});
      current = cands[w].method;
    }
  }
  munmap(map, kLadderTop);
  out.ms = (now_ns() - t0) / 1e6;
  char head[64];
  std::snprintf(head, sizeof head, "cpu %d, %.2f ms: ", sched_getcpu(), out.ms);
  out.reason = head + report;
  return out;
}

LargeVerdict race_large(void* p, std::size_t n, ZeroIsa isa, bool erms) noexcept {
  auto* buf = static_cast<unsigned char*>(p);
  Candidate all[4] = {{ZeroMethod::kVector, vector_kernel(isa)},
                      {ZeroMethod::kRepStosb, &stosb_fill},
                      {ZeroMethod::kMemset, &memset_fill},
                      {ZeroMethod::kNonTemporal, &nt_fill}};
  // An untimed pass brings the range into whatever cache holds it, as for
  // a reused buffer; then one pass each, and a second for the two best.
  all[0].fill(buf, n);
  for (Candidate& c : all) {
    if (c.method == ZeroMethod::kRepStosb && !erms) continue;
    keep_best(c, time_once(c, buf, n, 1));
  }
  Candidate* first = nullptr;
  Candidate* second = nullptr;
  for (Candidate& c : all) {
    if (c.best_ns_per_byte == 0) continue;
    if (first == nullptr || c.best_ns_per_byte < first->best_ns_per_byte) {
      second = first;
      first = &c;
    } else if (second == nullptr || c.best_ns_per_byte < second->best_ns_per_byte) {
      second = &c;
    }
  }
  keep_best(*second, time_once(*second, buf, n, 1));
  keep_best(*first, time_once(*first, buf, n, 1));
  Candidate* winner = second->best_ns_per_byte < first->best_ns_per_byte ? second : first;
  Candidate* loser = winner == first ? second : first;
  if (winner->method == ZeroMethod::kNonTemporal) zero_store_fence();
  LargeVerdict v;
  v.method = winner->method;
  v.margin = winner->best_ns_per_byte > 0 ? loser->best_ns_per_byte / winner->best_ns_per_byte : 1;
  return v;
}

std::string size_name(std::size_t bytes) {
  if (bytes != 0 && bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes != 0 && bytes % (std::size_t{1} << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace zerolab::internal
