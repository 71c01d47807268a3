// State shared by every benchmark of one bench_main invocation: the options,
// the name matcher, the output sink and the parallel worker pool.
//
// Thread-safety: used from the benchmark thread only (the pool has its own).
//
// Example:
//   RunState state(options, "my_bench");
//   state.emit("PASS\n");
#ifndef ZEROLAB_SRC_BENCH_RUN_STATE_HPP_
#define ZEROLAB_SRC_BENCH_RUN_STATE_HPP_

#include <cstdio>
#include <string>
#include <vector>

#include "bench/name_matcher.hpp"
#include "bench/options.hpp"
#include "bench/worker_pool.hpp"
#include "zerolab/benchfmt.hpp"

namespace zerolab::internal {

struct RunState {
  RunState(Options opts, std::string package);

  // Writes `text` to stdout (flushed) and, with -o, to the output buffer;
  // when silent, only to the output buffer.
  void emit(const std::string& text);
  // Records a benchmark's FAIL/SKIP/BENCH block (for run_benchmark's
  // report) and emits it as Go prints it.
  void report_block(benchfmt::BlockKind kind, const std::string& name,
                    const std::vector<std::string>& lines);
  // Prints goos/goarch/pkg/cpu once, before the first result.
  void print_labels_once();

  Options options;
  NameMatcher matcher;
  std::string package;
  std::string file_output;  // what -o will write
  std::size_t max_name_len = 0;
  int procs = 1;  // the -cpu value in force
  bool labels_printed = false;
  bool any_failed = false;
  bool count_allocs = true;  // hooks linked
  bool silent = false;       // run_benchmark: print nothing
  bool counting = false;     // the child of a counting run (counting.hpp)
  // run_benchmark in a counting child: the benchmark reads its own dumps
  // and its result carries the counts (last_counts, set by each launch).
  bool reads_own_dumps = false;
  std::vector<benchfmt::Metric> last_counts;
  std::vector<benchfmt::Result> results;       // every result line, as records
  std::vector<benchfmt::MessageBlock> blocks;  // every FAIL/SKIP/BENCH block, in order
  WorkerPool pool;
};

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_RUN_STATE_HPP_
