// The benchmark binary's side of a counting run (-benchmeasure=instructions):
// callgrind's client requests around each benchmark's timed code.
//
// The parent (counting_run.hpp) starts the binary again under
// `valgrind --tool=callgrind --collect-atstart=no` with kChildMarker in its
// environment. In that child, B turns collection on where its timer starts
// and off where it stops (so b.stop_timer()/start_timer() stop and start
// counting), zeroes the counts where the timer is reset, and dumps them once
// per measured pass. callgrind's collection state belongs to the thread
// that switches it, so the benchmark thread is counted; run_parallel's
// workers switch their own around the body. In any other process these
// functions are never called (B checks RunState::counting first), and when
// the build had no valgrind/callgrind.h they compile to nothing and
// built_with_callgrind() is false.
//
// Thread-safety: each call affects the calling thread's collection state
// (zero_counts and dump_counts: the whole process's counts).
//
// Example:
//   if (counting::is_child()) { ... counting::collect_on(); ... counting::dump_counts("x"); }
#ifndef ZEROLAB_SRC_BENCH_COUNTING_HPP_
#define ZEROLAB_SRC_BENCH_COUNTING_HPP_

#include <string>

#include "bench/callgrind_dump.hpp"

namespace zerolab::internal::counting {

// The environment variable (set to "1") that tells a binary it is the child
// of a counting run.
inline constexpr const char* kChildMarker = "ZEROLAB_BENCH_COUNTING_CHILD";
// The environment variable with the child's callgrind output prefix (its
// --callgrind-out-file): dump k is written to "<prefix>.k".
inline constexpr const char* kDumpPrefixVariable = "ZEROLAB_BENCH_COUNTING_DUMPS";

// Whether valgrind/callgrind.h was found when the harness was built.
bool built_with_callgrind();
// Whether this process runs on valgrind (RUNNING_ON_VALGRIND).
bool running_on_valgrind();
// Whether this process is a counting run's child: the marker is set and it
// runs on valgrind.
bool is_child();

// Switch the calling thread's collection on or off; a second call in the
// same direction does nothing.
void collect_on();
void collect_off();
void zero_counts();
// Writes the counts since the last zero or dump to the next dump file,
// with `trigger` as its "desc: Trigger: Client Request:" text, and zeroes them.
void dump_counts(const std::string& trigger);
// How many dumps this process has written (the last one is "<prefix>.k").
int dumps_written();
// Reads this process's dump `index` (1 is the first) from the prefix in
// kDumpPrefixVariable. False with `error` when there is no prefix or the
// file cannot be read or parsed.
bool read_own_dump(int index, CallgrindDump& dump, std::string& error);

}  // namespace zerolab::internal::counting

#endif  // ZEROLAB_SRC_BENCH_COUNTING_HPP_
