// Copies of the MemoryManager's results that outlive Google Benchmark's own.
//
// Google Benchmark 1.7.1 keeps each pass's MemoryManager::Result in a
// std::vector that grows by one per repetition and gives each run report a
// pointer into it, so with --benchmark_repetitions > 1 the earlier reports
// point into freed memory by the time they are reported (its JSON then has
// garbage figures). zerolab::gbench::MemoryManager::Stop keeps a copy of
// every result it fills, under the address it filled; MemoryReporter points
// each report at its copy before anything reads it.
//
// Thread-safety: both functions may be called from any thread.
//
// Example:
//   // in Stop(result):  keep_result(&result, result);
//   // in a reporter:    if (auto* k = kept_result(run)) copy.memory_result = k;
#ifndef ZEROLAB_SRC_GBENCH_KEPT_RESULTS_HPP_
#define ZEROLAB_SRC_GBENCH_KEPT_RESULTS_HPP_

#include <benchmark/benchmark.h>

namespace zerolab::gbench::internal {

// Records `result` as the result written at `slot` (the Result Google
// Benchmark passed to Stop).
void keep_result(const benchmark::MemoryManager::Result* slot,
                 const benchmark::MemoryManager::Result& result);

// The kept copy for `run` (whose memory_result is the slot address), or
// nullptr when the result was not filled by a zerolab MemoryManager. The
// first call for a run (family, instance, repetition) claims the oldest
// unclaimed copy written at that address; later calls return the same one.
const benchmark::MemoryManager::Result* kept_result(const benchmark::BenchmarkReporter::Run& run);

}  // namespace zerolab::gbench::internal

#endif  // ZEROLAB_SRC_GBENCH_KEPT_RESULTS_HPP_
