// The standard streams at a program's start and end, for the zerolab CLI
// and every benchmark binary.
//
// reserve_standard_fds(): a program started with fd 0, 1 or 2 closed would
// hand that number to the next file it opens (a profile's temporary, say),
// and its output would land inside that file. Each closed one is opened on
// /dev/null the wrong way round (0 write-only, 1 and 2 read-only), so the
// number is taken and using the stream still fails as a closed one would.
//
// finish_stdout(program, exit_code): flushes stdout and checks it; a failed
// write (a full disk, a closed pipe, `>&-`) is reported on stderr as
// "<program>: cannot write standard output: <cause>" and turns exit code 0
// into 1.
//
// Thread-safety: call each once, from main's thread.
//
// Example:
//   int main(int argc, char** argv) {
//     zerolab::internal::reserve_standard_fds();
//     return zerolab::internal::finish_stdout("zerolab", run(argc, argv));
//   }
#ifndef ZEROLAB_SRC_BENCH_STD_STREAMS_HPP_
#define ZEROLAB_SRC_BENCH_STD_STREAMS_HPP_

#include <string>
#include <string_view>

namespace zerolab::internal {

void reserve_standard_fds();
// Writes and flushes text to stdout, remembering the cause of the first
// failure for finish_stdout (by the time a program exits, errno is gone).
void write_stdout(std::string_view text);
int finish_stdout(const std::string& program, int exit_code);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_STD_STREAMS_HPP_
