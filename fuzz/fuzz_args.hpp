// Turns a fuzzer's input into command-line arguments: the bytes split at
// NUL, so one input is a whole argv; and checks a number parsed from one.
//
// Example:
//   std::vector<std::string> args = zerolab_fuzz::split_at_nul(data, size);
//   std::vector<char*> argv = zerolab_fuzz::argv_of(args);
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

// main()'s argv for args: a pointer to each one's characters (args must
// outlive it and keep its size).
inline std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (auto& a : args) argv.push_back(a.data());
  return argv;
}

// Whether n, parsed from the plain number `digits` (digits only), prints
// back to the same digits, leading zeros aside ("007" -> 7, "000" -> 0).
inline bool same_digits(const std::string& digits, std::uint64_t n) {
  const auto first = digits.find_first_not_of('0');
  return std::to_string(n) == (first == std::string::npos ? "0" : digits.substr(first));
}

}  // namespace zerolab_fuzz

#endif  // ZEROLAB_FUZZ_FUZZ_ARGS_HPP_
