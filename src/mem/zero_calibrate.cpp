// zero_fill's calibration (zero_calibrate.hpp).
//
// Below 4 KiB: vector stores, not measured (every x86 glibc uses them there
// too; a rep stosb start-up alone costs more than the stores: at 2 KiB it
// was 15-60% slower in every sweep here, yet a millisecond's timing under
// load picked it in some processes).
// The ladder, 4 KiB to 512 KiB by factors of two: each method is timed on
// a 512 KiB scratch buffer in samples of about 64 KiB of repeated calls (a
// reused buffer, as in real code), after about 50 µs of untimed vector
// stores (the CPU powers its upper vector lanes up on first use, running
// wide stores slowly until then) and one untimed call of each method; five
// samples per method, interleaved, the best one counts. A size keeps the
// smaller size's winner unless another method is 3% faster, so noise does
// not make the bands flap.
// From 1 MiB (the large buckets): each power-of-two bucket is raced once,
// on the buffer of the first zero_fill that lands in it — every method
// writes zeros, so the caller's buffer is a free test bench and no scratch
// memory has to be faulted in: each method timed on the second of two
// passes (so it finds the range where its own last pass left it: in the
// caches, or for non-temporal stores not), then a second round for the
// methods within 20% of the best; the best pass of each counts and the
// range ends zeroed as asked (about 14 passes).
#include "mem/zero_calibrate.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "format/byte_size.hpp"
#include "mem/zero_kernels.hpp"

namespace zerolab::internal {
namespace {

constexpr std::size_t kLadderFrom = std::size_t{4} << 10;
constexpr std::size_t kLadderTop = std::size_t{512} << 10;
constexpr std::size_t kNtFrom = std::size_t{128} << 10;  // NT stores in cache lose below this
constexpr std::size_t kBytesPerSample = std::size_t{64} << 10;
constexpr int kSamples = 5;
constexpr double kIncumbentMargin = 0.97;  // another method must be 3% faster
constexpr double kWarmupNs = 50e3;
constexpr int kRaceRounds = 2;
constexpr double kRaceKeep = 1.2;  // later race rounds time only methods within 20% of the best

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void nt_fill(void* p, std::size_t n) noexcept {
  zero_fill_nt(p, n);
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
    if (runner_up == 0 || cands[i].best_ns_per_byte < runner_up)
      runner_up = cands[i].best_ns_per_byte;
  }
  char ratio[32] = "";
  if (runner_up > 0 && cands[winner].best_ns_per_byte > 0) {
    std::snprintf(ratio, sizeof ratio, " %.2fx", runner_up / cands[winner].best_ns_per_byte);
  }
  return format_byte_size(size) + " " + to_string(cands[winner].method) + ratio;
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
  vector(buf, kLadderTop);  // faults the pages in
  // Wakes the wide vector units before anything is timed.
  const double warm_from = now_ns();
  while (now_ns() - warm_from < kWarmupNs)
    time_once({ZeroMethod::kVector, vector}, buf, kBytesPerSample, 1);
  std::string report;
  ZeroMethod current = ZeroMethod::kVector;  // below the ladder
  for (std::size_t size = kLadderFrom; size <= kLadderTop; size *= 2) {
    std::vector<Candidate> cands = candidates(vector, rule.has_erms, size >= kNtFrom);
    for (const Candidate& c : cands) c.fill(buf, size);  // untimed: code and lines in place
    const std::size_t reps = std::max<std::size_t>(1, kBytesPerSample / size);
    for (int s = 0; s < kSamples; ++s) {
      // A different method goes first in each round, so none is always
      // timed right after the same neighbour.
      for (std::size_t k = 0; k < cands.size(); ++k) {
        Candidate& c = cands[(k + static_cast<std::size_t>(s)) % cands.size()];
        keep_best(c, time_once(c, buf, size, reps));
      }
    }
    const std::size_t w = pick(cands, current);
    report += (report.empty() ? "" : ", ") + verdict(size, cands, w);
    if (cands[w].method != current) {
      out.bands.push_back({size, cands[w].method});
      current = cands[w].method;
    }
  }
  munmap(map, kLadderTop);
  out.ms = (now_ns() - t0) / 1e6;
  char head[96];
  std::snprintf(head, sizeof head, "cpu %d, %.2f ms: below %s vector (not measured), ",
                sched_getcpu(), out.ms, format_byte_size(kLadderFrom).c_str());
  out.reason = head + report;
  return out;
}

LargeVerdict race_large(void* p, std::size_t n, ZeroIsa isa, bool erms) noexcept {
  const double t0 = now_ns();
  auto* buf = static_cast<unsigned char*>(p);
  Candidate all[4] = {{ZeroMethod::kVector, vector_kernel(isa)},
                      {ZeroMethod::kRepStosb, &stosb_fill},
                      {ZeroMethod::kMemset, &memset_fill},
                      {ZeroMethod::kNonTemporal, &nt_fill}};
  // Each method is timed on its own second pass: the first leaves the range
  // where that method keeps it when it is called again (non-temporal
  // stores: out of the caches; the others: in them as far as it fits), so
  // none is timed in the state another left behind.
  Candidate* best = nullptr;
  for (int round = 0; round < kRaceRounds; ++round) {
    const double keep = best == nullptr ? 0 : best->best_ns_per_byte * kRaceKeep;
    for (Candidate& c : all) {
      if (c.method == ZeroMethod::kRepStosb && !erms) continue;
      if (round > 0 && c.best_ns_per_byte > keep) continue;
      c.fill(buf, n);
      keep_best(c, time_once(c, buf, n, 1));
    }
    for (Candidate& c : all) {
      if (c.best_ns_per_byte > 0 &&
          (best == nullptr || c.best_ns_per_byte < best->best_ns_per_byte))
        best = &c;
    }
  }
  double runner_up = 0;
  for (const Candidate& c : all) {
    if (&c == best || c.best_ns_per_byte == 0) continue;
    if (runner_up == 0 || c.best_ns_per_byte < runner_up) runner_up = c.best_ns_per_byte;
  }
  zero_store_fence();
  LargeVerdict v;
  v.method = best->method;
  v.margin = best->best_ns_per_byte > 0 && runner_up > 0 ? runner_up / best->best_ns_per_byte : 1;
  v.ms = (now_ns() - t0) / 1e6;
  return v;
}

}  // namespace zerolab::internal
