// Reads a byte count as the ZEROLAB_ZERO_* environment variables write it:
// decimal digits with an optional binary suffix K, M or G (either case),
// nothing else ("4096", "64K", "32M", "1g").
//
// Thread-safety: pure function.
//
// Example:
//   std::size_t n = 0;
//   bool ok = zerolab::internal::parse_size_text("32M", n);  // ok, n == 33554432
#ifndef ZEROLAB_SRC_MEM_SIZE_TEXT_HPP_
#define ZEROLAB_SRC_MEM_SIZE_TEXT_HPP_

#include <cstddef>

namespace zerolab::internal {

// False on an empty string, junk, or a value that overflows size_t.
bool parse_size_text(const char* text, std::size_t& out);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_MEM_SIZE_TEXT_HPP_
