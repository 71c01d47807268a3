// Turns a fuzzer's input into command-line arguments: the bytes split at
// NUL, so one input is a whole argv.
//
// Example:
//   std::vector<std::string> args = zerolab_fuzz::split_at_nul(data, size);
#ifndef ZEROLAB_FUZZ_FUZZ_ARGS_HPP_
#define ZEROLAB_FUZZ_FUZZ_ARGS_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace zerolab_fuzz {

// The pieces of data between NUL bytes (n NULs give n+1 pieces).
inline std::vector<std::string> split_at_nul(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.emplace_back();
    } else {
      args.back().push_back(static_cast<char>(data[i]));
    }
  }
  return args;
}

}  // namespace zerolab_fuzz

#endif  // ZEROLAB_FUZZ_FUZZ_ARGS_HPP_
