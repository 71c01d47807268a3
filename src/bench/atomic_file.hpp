// Writing a whole file so that a failure never leaves half of it: the text
// goes to "<path>.tmp.<pid>", which is renamed over path only once written
// and closed. Used for -o and by the lab's raw results and report.md.
//
// Thread-safety: safe from any thread for distinct paths.
//
// Example:
//   std::string error;
//   if (!zerolab::internal::write_file_atomically("out.txt", text, error)) { ... }
#ifndef ZEROLAB_SRC_BENCH_ATOMIC_FILE_HPP_
#define ZEROLAB_SRC_BENCH_ATOMIC_FILE_HPP_

#include <string>

namespace zerolab::internal {

// Returns false with `error` set ("cannot create x.tmp.7: ..." or "cannot
// write x: ...") and no temporary left behind.
bool write_file_atomically(const std::string& path, const std::string& text, std::string& error);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_BENCH_ATOMIC_FILE_HPP_
