// zero_sweep: zeroing throughput by method and size, to see where
// zerolab::zero_fill's thresholds should sit on this machine.
//
//   BenchmarkZero/method=M/size=S   one method alone per benchmark (M: nt,
//                                   memset, rep-stosb, vector, zero_fill)
//   BenchmarkRace/cpu=C/size=S/vs=V zero_fill against the others in paired
//                                   rounds (below): V=control is zero_fill
//                                   against itself, V=best against the
//                                   fastest other method at S. The unit
//                                   "x" is the other's time over
//                                   zero_fill's (0.95: zero_fill is 5%
//                                   slower); ns/op is zero_fill's time;
//                                   vs=best rows add x-vs-M per method M.
//
// A Race round runs zero_fill, zero_fill again (the identical-code
// control), memset, rep stosb, vector stores and non-temporal stores one
// after another, each timed over a block of calls (1 MiB of zeroing, at
// least one call) after one untimed call, in the order of one row of a
// Williams square (over six rounds every method runs once in each place
// and once right after each other method: non-temporal stores slow down
// whatever follows them for a while). Each line is one round per b.n()
// (-benchtime 1x: one round) and reports the median of the rounds' ratios,
// so the pooled lines give the median paired ratio with its confidence
// interval, and the control row says how far apart the measurement puts
// two identical methods. The best method at each size is chosen from
// separate pilot rounds (so its lucky rounds do not count against
// zero_fill). At the end the benchmark prints its own summary to stderr:
// each size's ratios with 95% intervals over this process's rounds, and
// the worst.
//
// Example:
//   ./build/release/bench/rigs/zero_sweep -bench 'Zero/method=(memset|zero_fill)/size=4KiB' -count
//   6 ZEROLAB_ZERO_ISA=avx512 ./build/release/bench/rigs/zero_sweep -bench 'Zero/.*zero_fill' for c
//   in 0 1; do for r in 1 2 3; do
//     taskset -c $c ./build/release/bench/rigs/zero_sweep -bench Race -benchtime 1x -count 10 >>
//     race.txt
//   done; done
//   zerolab compare -table /cpu -row /size -col /vs -filter .unit:x race.txt
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "zerolab/bench.hpp"
#include "zerolab/stat.hpp"
#include "zerolab/zero.hpp"

namespace {

constexpr std::size_t kMax = std::size_t{1} << 30;

// The 1 GiB every benchmark zeroes (mapped and touched once), or a fatal
// error naming why it could not be mapped.
unsigned char* buffer(zerolab::B& b) {
  static int error = 0;
  static unsigned char* const p = [] {
    void* m = mmap(nullptr, kMax, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      error = errno;
      return static_cast<unsigned char*>(nullptr);
    }
    std::memset(m, 1, kMax);
    return static_cast<unsigned char*>(m);
  }();
  if (p == nullptr) b.fatal(std::string("mmap of the 1 GiB buffer: ") + std::strerror(error));
  return p;
}

std::string size_name(std::size_t n) {
  if (n >= (std::size_t{1} << 20)) return std::to_string(n >> 20) + "MiB";
  if (n >= (std::size_t{1} << 10)) return std::to_string(n >> 10) + "KiB";
  return std::to_string(n) + "B";
}

// 16 B .. 1 GiB by twos, and the sizes around the non-temporal switch.
std::vector<std::size_t> sweep_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 16; n <= kMax; n *= 2) {
    sizes.push_back(n);
    if (n == (std::size_t{16} << 20)) {
      sizes.push_back(std::size_t{24} << 20);
      sizes.push_back(std::size_t{31} << 20);
      sizes.push_back(std::size_t{33} << 20);
      sizes.push_back(std::size_t{48} << 20);
    }
  }
  return sizes;
}

using Method = void (*)(void*, std::size_t) noexcept;

// ---- Race ----------------------------------------------------------------------------

struct Racer {
  const char* name;
  Method fn;
};

// zero_fill first, its identical-code control second, then the methods it
// chooses between. Six: an even count, as williams_order needs.
constexpr Racer kRacers[] = {
    {"zero_fill", &zerolab::zero_fill},
    {"control", &zerolab::zero_fill},
    {"memset", &zerolab::zero_methods::glibc_memset},
    {"rep-stosb", &zerolab::zero_methods::rep_stosb},
    {"vector", &zerolab::zero_methods::vector_stores},
    {"nt", &zerolab::zero_methods::nt_stores},
};
constexpr std::size_t kRacerCount = std::size(kRacers);
constexpr std::size_t kControl = 1;
constexpr std::size_t kFirstOther = 2;
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr int kPilotRounds = 7;

using RoundTimes = std::array<double, kRacerCount>;  // ns per call, by racer

// Row `round` mod 6 of a Williams square: the first row is 0, 1, 5, 2, 4, 3
// and each next row adds one (mod 6), so over six rounds every racer runs
// once in each place and once right after each other racer.
std::array<std::size_t, kRacerCount> williams_order(std::size_t round) {
  static_assert(kRacerCount % 2 == 0);
  std::array<std::size_t, kRacerCount> order{};
  for (std::size_t k = 0; k < kRacerCount; ++k) {
    const std::size_t step = k % 2 == 1 ? (k + 1) / 2 : kRacerCount - k / 2;
    order[k] = (round + step) % kRacerCount;
  }
  return order;
}

RoundTimes race_round(unsigned char* p, std::size_t n, std::size_t round) {
  using Clock = std::chrono::steady_clock;
  const std::size_t calls = std::max<std::size_t>(1, kBlockBytes / n);
  RoundTimes ns{};
  for (const std::size_t r : williams_order(round)) {
    const Method fn = kRacers[r].fn;
    fn(p, n);  // untimed: what the previous racer left in the caches is not this one's cost
    zerolab::clobber_memory();
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
      fn(p, n);
      zerolab::clobber_memory();
    }
    const auto t1 = Clock::now();
    ns[r] = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls);
  }
  return ns;
}

double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

// One size's race in this process: the pilot's pick and every round's ratios.
struct RaceSize {
  std::size_t best = 0;  // the racer with the lowest pilot median; 0 until chosen
  std::size_t rounds = 0;
  std::vector<double> vs_best;
  std::vector<double> vs_control;
};

std::map<std::size_t, RaceSize>& races() {
  static std::map<std::size_t, RaceSize> by_size;
  return by_size;
}

void pick_best(unsigned char* p, std::size_t n, RaceSize& race) {
  std::vector<std::vector<double>> ns(kRacerCount);
  for (int i = 0; i < kPilotRounds; ++i) {
    const RoundTimes t = race_round(p, n, race.rounds++);
    for (std::size_t r = 0; r < kRacerCount; ++r) ns[r].push_back(t[r]);
  }
  race.best = kFirstOther;
  for (std::size_t r = kFirstOther + 1; r < kRacerCount; ++r) {
    if (median(ns[r]) < median(ns[race.best])) race.best = r;
  }
}

void race(zerolab::B& b, std::size_t n, bool against_best) {
  unsigned char* p = buffer(b);
  RaceSize& race = races()[n];
  if (race.best == 0) pick_best(p, n, race);
  const std::size_t other = against_best ? race.best : kControl;
  std::vector<double> ratios;
  std::vector<double> zero_fill_ns;
  std::vector<std::vector<double>> by_method(kRacerCount);
  for (std::int64_t i = 0; i < b.n(); ++i) {
    const RoundTimes t = race_round(p, n, race.rounds++);
    ratios.push_back(t[other] / t[0]);
    zero_fill_ns.push_back(t[0]);
    for (std::size_t r = kFirstOther; r < kRacerCount; ++r) by_method[r].push_back(t[r] / t[0]);
  }
  auto& all = against_best ? race.vs_best : race.vs_control;
  all.insert(all.end(), ratios.begin(), ratios.end());
  b.report_metric(median(ratios), "x");
  b.report_metric(median(zero_fill_ns), "ns/op");
  if (!against_best) return;
  // Each method's own ratio too ("x-vs-vector"...): which one leads moves
  // with the vCPU's state, and these show by how much.
  for (std::size_t r = kFirstOther; r < kRacerCount; ++r) {
    b.report_metric(median(by_method[r]), std::string("x-vs-") + kRacers[r].name);
  }
}

// "cpu=1" when this process may run on one CPU only (taskset -c 1), else "cpu=any".
std::string cpu_key() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) return "cpu=" + std::to_string(c);
    }
  }
  return "cpu=any";
}

// "0.97 [0.95, 0.99]": the median of the ratios with its 95% interval.
std::string median_and_interval(const std::vector<double>& ratios) {
  using namespace zerolab::stat;
  const Summary s = summarize(make_sample(ratios), Assumption::kNothing, 0.95);
  char text[96];
  std::snprintf(text, sizeof text, "%.3f [%.3f, %.3f]", s.center, s.lo, s.hi);
  return text;
}

// Each size's ratios over this process's rounds, and the lowest medians.
void print_race_summary(const std::string& cpu) {
  const RaceSize* worst_best = nullptr;
  const RaceSize* worst_control = nullptr;
  std::size_t worst_best_at = 0;
  std::size_t worst_control_at = 0;
  for (const auto& [n, race] : races()) {
    if (race.vs_best.empty() || race.vs_control.empty()) continue;
    std::fprintf(
        stderr, "zero_sweep: race %s size=%s best=%s x-vs-best %s x-vs-control %s n=%zu+%zu\n",
        cpu.c_str(), size_name(n).c_str(), kRacers[race.best].name,
        median_and_interval(race.vs_best).c_str(), median_and_interval(race.vs_control).c_str(),
        race.vs_best.size(), race.vs_control.size());
    if (worst_best == nullptr || median(race.vs_best) < median(worst_best->vs_best)) {
      worst_best = &race;
      worst_best_at = n;
    }
    if (worst_control == nullptr || median(race.vs_control) < median(worst_control->vs_control)) {
      worst_control = &race;
      worst_control_at = n;
    }
  }
  if (worst_best == nullptr) return;
  std::fprintf(
      stderr, "zero_sweep: race %s worst x-vs-best %s at %s; worst x-vs-control %s at %s\n",
      cpu.c_str(), median_and_interval(worst_best->vs_best).c_str(),
      size_name(worst_best_at).c_str(), median_and_interval(worst_control->vs_control).c_str(),
      size_name(worst_control_at).c_str());
}

}  // namespace

ZEROLAB_BENCHMARK(Zero) {
  // Non-temporal stores first at each size: whatever runs right after them
  // is slow for a while (up to 2x at 4 KiB-8 MiB here, even after the
  // untimed call below), so they must not sit right before zero_fill. The
  // method after them is glibc's memset, which from 2 KiB runs the same
  // rep stosb as the "rep-stosb" row, so the best other method per size
  // is still measured fairly.
  const std::pair<const char*, Method> methods[] = {
      {"nt", &zerolab::zero_methods::nt_stores},
      {"memset", &zerolab::zero_methods::glibc_memset},
      {"rep-stosb", &zerolab::zero_methods::rep_stosb},
      {"vector", &zerolab::zero_methods::vector_stores},
      {"zero_fill", &zerolab::zero_fill},
  };
  for (const std::size_t n : sweep_sizes()) {
    for (const auto& [name, fn] : methods) {
      b.run(std::string("method=") + name + "/size=" + size_name(n), [fn = fn, n](zerolab::B& sb) {
        unsigned char* p = buffer(sb);
        sb.set_bytes(static_cast<std::int64_t>(n));
        // One untimed call, the same for every method: the code and the
        // buffer's lines in place (zero_fill's first call also resolves its
        // bands, without timing anything: zero.hpp).
        fn(p, n);
        for (auto _ : sb.loop()) {
          fn(p, n);
          zerolab::clobber_memory();
        }
      });
    }
  }
  // What zero_fill chose in this process, and why (to stderr, so the
  // benchmark lines stay what benchstat and zerolab compare read).
  std::fprintf(stderr, "zero_sweep: cpu-config %s\n", zerolab::zero_config().to_string().c_str());
}

ZEROLAB_BENCHMARK(Race) {
  const std::string cpu = cpu_key();
  for (const std::size_t n : sweep_sizes()) {
    const std::string prefix = cpu + "/size=" + size_name(n) + "/vs=";
    b.run(prefix + "control", [n](zerolab::B& sb) { race(sb, n, false); });
    b.run(prefix + "best", [n](zerolab::B& sb) { race(sb, n, true); });
  }
  print_race_summary(cpu);
  std::fprintf(stderr, "zero_sweep: cpu-config %s\n", zerolab::zero_config().to_string().c_str());
}
