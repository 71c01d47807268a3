// copy_fd's per-process choice of path per pair kind (path_learning.hpp).
#include "io/path_learning.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>

#include "io/monotonic.hpp"

namespace zerolab::io {
namespace {

constexpr int kEnds = static_cast<int>(CopyEnd::kOther) + 1;

// What one pair kind has learned. `decided` is written after `candidates`
// (filled once, never changed), set back to -1 when a review starts, and
// read without the mutex.
struct Learner {
  std::atomic<int> decided{-1};
  // Copies taken on the decision since it was made, and at how many it is
  // reviewed (learned again); 0: never.
  std::atomic<std::uint32_t> since_decided{0};
  std::atomic<std::uint32_t> review_at;
  const std::uint64_t sample_from;  // the fewest bytes a sample may move
  std::mutex mu;
  int count = 0;  // candidates; 0 until the first learning copy
  CopyPath candidates[kMaxCandidates] = {};
  int attempts = 0;
  int samples[kMaxCandidates] = {};
  double ns_per_byte[kMaxCandidates][kSamples] = {};

  explicit Learner(std::uint64_t from = kSampleFrom,
                   std::uint32_t first_review = kFirstReview) noexcept
      : review_at(first_review), sample_from(from) {}
};

Learner g_learners[kEnds][kEnds];
// Small file → file copies (choose_small_file_path), PathTrial::kind kSmallFileKind.
// Never reviewed: what decides between its two paths is the cost of a
// system call, not a peer's pace.
Learner g_small_file{kSmallSampleFrom, 0};
constexpr int kSmallFileKind = kEnds * kEnds;

Learner& learner_of(const CopyPlan& plan) noexcept {
  return g_learners[static_cast<int>(plan.src)][static_cast<int>(plan.dst)];
}

Learner& learner_of(int kind) noexcept {
  return kind == kSmallFileKind ? g_small_file : g_learners[kind / kEnds][kind % kEnds];
}

// The rule's path first, then the other paths of the plan that learning
// may choose. REQUIRES: l.mu held.
void initialize(Learner& l, const CopyPlan& plan) noexcept {
  if (l.count > 0) return;
  l.candidates[l.count++] = plan.path;
  for (const CopyPath p : {CopyPath::kSendfile, CopyPath::kSplice, CopyPath::kReadWrite}) {
    if (p != plan.path && plan.allows(p) && l.count < kMaxCandidates) l.candidates[l.count++] = p;
  }
}

double median(double* v, int n) noexcept {
  std::sort(v, v + n);
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Decides from the samples so far: a candidate without a full set of
// samples cannot win. REQUIRES: l.mu held.
void decide(Learner& l) noexcept {
  double medians[kMaxCandidates];
  int complete = 0;
  for (int i = 0; i < l.count; ++i) {
    if (l.samples[i] < kSamples) {
      medians[i] = -1;
      continue;
    }
    double v[kSamples];
    std::copy(l.ns_per_byte[i], l.ns_per_byte[i] + kSamples, v);
    medians[i] = median(v, kSamples);
    ++complete;
  }
  int chosen = 0;
  if (medians[0] > 0 && complete > 1) chosen = pick_candidate(medians, l.count, kBar);
  l.since_decided.store(0, std::memory_order_relaxed);
  l.decided.store(chosen, std::memory_order_release);
}

// Counts a copy taken on l's decision; the one that reaches review_at
// starts learning again, from no samples, and the next review comes
// kReviewGrowth times as many copies later.
void count_decided_copy(Learner& l) noexcept {
  const std::uint32_t at = l.review_at.load(std::memory_order_relaxed);
  if (at == 0 || l.since_decided.fetch_add(1, std::memory_order_relaxed) + 1 != at) return;
  std::lock_guard lock(l.mu);
  if (l.decided.load(std::memory_order_relaxed) < 0) return;
  std::fill(std::begin(l.samples), std::end(l.samples), 0);
  l.attempts = 0;
  l.review_at.store(at > UINT32_MAX / kReviewGrowth ? 0 : at * kReviewGrowth,
                    std::memory_order_relaxed);
  l.decided.store(-1, std::memory_order_release);
}

// The environment's settings, read by the copies once per process and by
// copy_environment_errors() at each call. A value other than those named
// is ignored.
constexpr const char* kLearnVariable = "ZEROLAB_COPY_LEARN";  // 0 or 1
constexpr const char* kSmallFileVariable =
    "ZEROLAB_COPY_SMALL_FILE";  // copy_file_range or read_write

bool learning_off(const char* value) noexcept {
  return value != nullptr && std::strcmp(value, "0") == 0;
}
bool known_learning(const char* value) noexcept {
  return value == nullptr || std::strcmp(value, "0") == 0 || std::strcmp(value, "1") == 0;
}

// The path a ZEROLAB_COPY_SMALL_FILE value names, kNone for none or another value.
CopyPath small_file_path_named(const char* value) noexcept {
  if (value == nullptr) return CopyPath::kNone;
  if (std::strcmp(value, "copy_file_range") == 0) return CopyPath::kCopyFileRange;
  if (std::strcmp(value, "read_write") == 0) return CopyPath::kReadWrite;
  return CopyPath::kNone;
}

}  // namespace

}  // namespace zerolab::io

namespace zerolab {

std::string copy_environment_errors() {
  std::string errors;
  const auto add = [&errors](const char* name, const char* value, const char* why) {
    if (!errors.empty()) errors += "; ";
    errors += std::string(name) + "=" + value + ": " + why;
  };
  if (const char* v = std::getenv(io::kLearnVariable); !io::known_learning(v)) {
    add(io::kLearnVariable, v, "not 0 or 1");
  }
  if (const char* v = std::getenv(io::kSmallFileVariable);
      v != nullptr && io::small_file_path_named(v) == CopyPath::kNone) {
    add(io::kSmallFileVariable, v, "not copy_file_range or read_write");
  }
  return errors;
}

}  // namespace zerolab

namespace zerolab::io {

bool learning_enabled() noexcept {
  static const bool enabled = !learning_off(std::getenv(kLearnVariable));
  return enabled;
}

int pick_candidate(const double* medians, int count, double bar) noexcept {
  int best = 0;
  for (int i = 1; i < count; ++i) {
    if (medians[i] > 0 && medians[i] < medians[best]) best = i;
  }
  return best != 0 && medians[best] <= bar * medians[0] ? best : 0;
}

namespace {

// The path for the next copy of the kind `kind` learned in `l`: the decided
// candidate, or the one with the fewest samples (timed from now). `init`
// fills in the candidates, the rule's first. REQUIRES: learning enabled.
template <class Init>
PathTrial choose(Learner& l, int kind, Init init) noexcept {
  PathTrial t;
  if (const int d = l.decided.load(std::memory_order_acquire); d >= 0) {
    t.path = l.candidates[d];
    count_decided_copy(l);
    return t;
  }
  std::lock_guard lock(l.mu);
  if (l.count == 0) init(l);
  if (const int d = l.decided.load(std::memory_order_relaxed); d >= 0) {
    t.path = l.candidates[d];
    return t;
  }
  if (l.count < 2 || ++l.attempts > kMaxAttempts) {
    decide(l);
    t.path = l.candidates[l.decided.load(std::memory_order_relaxed)];
    return t;
  }
  int fewest = 0;
  for (int i = 1; i < l.count; ++i) {
    if (l.samples[i] < l.samples[fewest]) fewest = i;
  }
  t.path = l.candidates[fewest];
  t.kind = kind;
  t.candidate = fewest;
  t.start_ns = monotonic_ns();
  return t;
}

// ZEROLAB_COPY_SMALL_FILE: the path small file → file copies take without
// learning, or kNone.
CopyPath small_file_override() noexcept {
  static const CopyPath path = small_file_path_named(std::getenv(kSmallFileVariable));
  return path;
}

}  // namespace

PathTrial choose_path(const CopyPlan& plan, std::uint64_t expected) noexcept {
  if (expected < kLearnFrom || !learning_enabled()) {
    PathTrial t;
    t.path = plan.path;
    return t;
  }
  return choose(learner_of(plan), static_cast<int>(plan.src) * kEnds + static_cast<int>(plan.dst),
                [&plan](Learner& l) { initialize(l, plan); });
}

PathTrial choose_small_file_path(std::uint64_t bytes) noexcept {
  if (small_file_override() != CopyPath::kNone || !learning_enabled() || bytes < kSmallSampleFrom) {
    // Set, not learning, or too small to time: the decision if there is
    // one, else copy_file_range.
    const CopyPath decided = learned_small_file_path();
    PathTrial t;
    t.path = decided != CopyPath::kNone ? decided : CopyPath::kCopyFileRange;
    return t;
  }
  return choose(g_small_file, kSmallFileKind, [](Learner& l) {
    l.candidates[l.count++] = CopyPath::kCopyFileRange;
    l.candidates[l.count++] = CopyPath::kReadWrite;
  });
}

CopyPath learned_small_file_path() noexcept {
  if (const CopyPath forced = small_file_override(); forced != CopyPath::kNone) return forced;
  if (!learning_enabled()) return CopyPath::kNone;
  const int d = g_small_file.decided.load(std::memory_order_acquire);
  return d >= 0 ? g_small_file.candidates[d] : CopyPath::kNone;
}

void record_trial(const PathTrial& trial, CopyPath taken, std::uint64_t bytes, bool ok) noexcept {
  if (trial.kind < 0 || !ok || taken != trial.path) return;
  Learner& l = learner_of(trial.kind);
  if (bytes < l.sample_from) return;
  const double ns = static_cast<double>(monotonic_ns() - trial.start_ns);
  std::lock_guard lock(l.mu);
  if (l.decided.load(std::memory_order_relaxed) >= 0) return;
  int& n = l.samples[trial.candidate];
  if (n >= kSamples) return;
  l.ns_per_byte[trial.candidate][n++] = ns / static_cast<double>(bytes);
  for (int i = 0; i < l.count; ++i) {
    if (l.samples[i] < kSamples) return;
  }
  decide(l);
}

CopyPath learned_path(const CopyPlan& plan) noexcept {
  if (!learning_enabled()) return CopyPath::kNone;
  Learner& l = learner_of(plan);
  const int d = l.decided.load(std::memory_order_acquire);
  return d >= 0 ? l.candidates[d] : CopyPath::kNone;
}

}  // namespace zerolab::io
