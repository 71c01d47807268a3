// Names the benchmark that was running when the process dies of a signal.
//
// install() hooks SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT. On such a
// signal the handler writes "zerolab: BenchmarkX died of signal SIGSEGV
// (Segmentation fault)" to stderr with async-signal-safe calls, restores the
// previous handler (a sanitizer's, say) and lets the signal proceed.
//
// Thread-safety: set_current_benchmark is called by the runner thread only.
//
// Example:
//   zerolab::internal::signals::install();
//   zerolab::internal::signals::set_current_benchmark("BenchmarkCrash");
#ifndef ZEROLAB_SRC_BENCH_SIGNALS_HPP_
#define ZEROLAB_SRC_BENCH_SIGNALS_HPP_

#include <string_view>

namespace zerolab::internal::signals {

void install();
// Records the name to report; "" means no benchmark is running.
void set_current_benchmark(std::string_view name);

}  // namespace zerolab::internal::signals

#endif  // ZEROLAB_SRC_BENCH_SIGNALS_HPP_
