// src/io/path_learning.hpp — copy_fd's choice of path for a pair kind,
// learned in each process from its first large copies and reviewed as it
// goes on (copy.hpp).
//
// For a pair of kinds whose plan allows more than one of sendfile, splice
// and read/write (every pair with a pipe or socket end; file → file keeps
// copy_file_range), a copy expected to move at least kLearnFrom bytes
// takes the candidates in turn, the rule's first, until each has
// kSamples timed copies of at least kSampleFrom bytes. From then on such
// copies take the candidate with the smallest median time per byte, unless
// it beats the rule's path by less than kBar (then the rule's stays): on
// one machine splice from a pipe into a file was 1.3-1.8x slower than
// read/write, on another the rule's choice. A kind whose copies stay too
// small to time keeps the rule after kMaxAttempts tries. A decision is
// reviewed after kFirstReview copies taken on it, then kReviewGrowth times
// as many copies later each time: the kind learns again from no samples
// (the machine's state may have moved: a peer thread's placement). Smaller copies
// always take the rule. ZEROLAB_COPY_LEARN=0 in the environment (read
// once) keeps the rule everywhere, so two runs take the same paths.
//
// Small copies between two regular files (a known count of at most
// kSmallFileCopy bytes) learn the same way between copy_file_range, one
// call that on most filesystems is the kernel's splice through a pipe, and
// read and write through the thread's buffer, from copies of at least
// kSmallSampleFrom bytes: on the Zen 5 guest copy_file_range of 16 KiB took
// 1.2x the time of read + write, on the Firecracker guest read + write
// 1.2x that of copy_file_range. Without learning copy_file_range stays;
// ZEROLAB_COPY_SMALL_FILE=copy_file_range or =read_write (read once; any
// other value is ignored) decides instead of learning.
//
// Thread-safety: any number of threads; a mutex per pair kind while it
// learns, one atomic load once it has decided. Allocates nothing.
//
// Example:
//   PathTrial trial = choose_path(plan, expected_bytes);
//   ... copy along trial.path ...
//   record_trial(trial, path_taken, bytes, succeeded);
#ifndef ZEROLAB_SRC_IO_PATH_LEARNING_HPP_
#define ZEROLAB_SRC_IO_PATH_LEARNING_HPP_

#include <cstdint>

#include "zerolab/copy.hpp"

namespace zerolab::io {

constexpr std::uint64_t kLearnFrom = std::uint64_t{256} << 10;
constexpr std::uint64_t kSampleFrom = std::uint64_t{256} << 10;
constexpr int kSamples = 5;
constexpr int kMaxAttempts = 64;
constexpr double kBar = 0.95;  // a challenger's median over the rule's
constexpr int kMaxCandidates = 3;
// A decision is reviewed (learned again) after kFirstReview copies taken
// on it, then after kReviewGrowth times as many each time.
constexpr std::uint32_t kFirstReview = 64;
constexpr std::uint32_t kReviewGrowth = 4;
constexpr std::uint64_t kSmallFileCopy = std::uint64_t{128} << 10;
constexpr std::uint64_t kSmallSampleFrom = std::uint64_t{4} << 10;

// One copy's path, and what to time when it is a learning copy.
struct PathTrial {
  CopyPath path = CopyPath::kNone;
  int kind = -1;       // the pair kind learning from this copy; -1: none
  int candidate = -1;  // which of its candidates
  std::int64_t start_ns = 0;
};

// The path for a copy between ends of plan.src and plan.dst expected to
// move `expected` bytes (CopyOptions::kNoLimit when not known).
PathTrial choose_path(const CopyPlan& plan, std::uint64_t expected) noexcept;

// The path for a copy of `bytes` (at most kSmallFileCopy) between two
// regular files: copy_file_range or read_write.
PathTrial choose_small_file_path(std::uint64_t bytes) noexcept;

// The decided path of small file → file copies, or kNone while they learn
// (or learning is off).
CopyPath learned_small_file_path() noexcept;

// Counts a learning copy that moved `bytes` along `taken` (a sample only
// when it succeeded on the trial's path and moved at least kSampleFrom).
void record_trial(const PathTrial& trial, CopyPath taken, std::uint64_t bytes, bool ok) noexcept;

// The decided path of the pair kind, or kNone while it learns (or learning
// is off, or the plan has one candidate).
CopyPath learned_path(const CopyPlan& plan) noexcept;

// The decision: index of the candidate to keep given each candidate's
// median time per byte (medians[0] the rule's).
int pick_candidate(const double* medians, int count, double bar) noexcept;

// Whether learning is on (ZEROLAB_COPY_LEARN is not "0").
bool learning_enabled() noexcept;

}  // namespace zerolab::io

#endif  // ZEROLAB_SRC_IO_PATH_LEARNING_HPP_
