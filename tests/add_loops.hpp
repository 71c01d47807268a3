// Loop bodies whose instruction counts are known by construction, for the
// counting-mode fixtures: hand-written additions the compiler can neither
// remove, fold nor reorder into fewer instructions.
//
// Example:
//   std::uint64_t x = 0;
//   for (auto _ : b.loop()) zerolab::test::three_adds(x);  // 3 adds per iteration
//   zerolab::do_not_optimize(x);
#ifndef ZEROLAB_TESTS_ADD_LOOPS_HPP_
#define ZEROLAB_TESTS_ADD_LOOPS_HPP_

#include <cstdint>

namespace zerolab::test {

// Three additions.
inline void three_adds(std::uint64_t& x) {
  asm volatile("add $1, %0\n\tadd $2, %0\n\tadd $3, %0" : "+r"(x));
}

// Ten additions: seven more than three_adds.
inline void ten_adds(std::uint64_t& x) {
  asm volatile(
      "add $1, %0\n\tadd $2, %0\n\tadd $3, %0\n\tadd $4, %0\n\tadd $5, %0\n\t"
      "add $6, %0\n\tadd $7, %0\n\tadd $8, %0\n\tadd $9, %0\n\tadd $10, %0"
      : "+r"(x));
}

// `count` additions, one loop iteration each: work outside a measured loop.
inline std::uint64_t busy_work(int count) {
  std::uint64_t x = 0;
  for (int i = 0; i < count; ++i) asm volatile("add $1, %0" : "+r"(x));
  return x;
}

}  // namespace zerolab::test

#endif  // ZEROLAB_TESTS_ADD_LOOPS_HPP_
