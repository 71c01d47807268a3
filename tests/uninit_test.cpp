// Tests of zerolab/uninit.hpp: trivial elements are left as the allocator
// handed them out (checked through an allocator that pre-fills its blocks
// with a pattern, and read only after an asm statement that claims to have
// written them, see uninit.hpp), non-trivial elements are constructed
// exactly once each, and values passed to construct are kept.
//
// Example:
//   ./uninit_test
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "zerolab/uninit.hpp"

namespace zerolab {
namespace {

constexpr unsigned char kPattern = 0xCD;

// std::allocator, but every block starts filled with kPattern.
template <class T>
struct PatternAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = PatternAllocator<U>;
  };
  PatternAllocator() = default;
  template <class U>
  PatternAllocator(const PatternAllocator<U>&) noexcept {}  // NOLINT
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>::allocate(n);
    std::memset(static_cast<void*>(p), kPattern, n * sizeof(T));
    return p;
  }
};

template <class T>
std::vector<unsigned char> bytes_of(const T* p, std::size_t n) {
  asm volatile("" : : "r"(p) : "memory");  // the bytes count as written
  std::vector<unsigned char> out(n * sizeof(T));
  std::memcpy(out.data(), static_cast<const void*>(p), out.size());
  return out;
}

TEST(DefaultInitAllocator, ResizeLeavesTrivialElementsUntouched) {
  std::vector<int, default_init_allocator<int, PatternAllocator<int>>> v;
  v.resize(1000);
  EXPECT_EQ(bytes_of(v.data(), v.size()), std::vector<unsigned char>(4000, kPattern));
}

TEST(DefaultInitAllocator, PlainVectorZeroesForComparison) {
  std::vector<int, PatternAllocator<int>> v;
  v.resize(1000);
  EXPECT_EQ(bytes_of(v.data(), v.size()), std::vector<unsigned char>(4000, 0));
}

TEST(DefaultInitAllocator, ValuesPassedAreKept) {
  uninit_vector<int> v(5, 7);
  EXPECT_EQ(v, (uninit_vector<int>{7, 7, 7, 7, 7}));
  v.push_back(9);
  v.emplace_back(11);
  EXPECT_EQ(v.back(), 11);
  EXPECT_EQ(v[5], 9);
}

struct Counted {
  static inline int constructed = 0;
  int value;
  Counted() : value(42) { ++constructed; }
};

TEST(DefaultInitAllocator, NonTrivialElementsAreConstructed) {
  Counted::constructed = 0;
  uninit_vector<Counted> v(10);
  v.resize(25);
  EXPECT_EQ(Counted::constructed, 25);
  for (const Counted& c : v) EXPECT_EQ(c.value, 42);
  uninit_vector<std::string> s(3);
  EXPECT_EQ(s, (uninit_vector<std::string>{"", "", ""}));
}

TEST(MakeUninit, NonTrivialArrayIsConstructed) {
  Counted::constructed = 0;
  auto p = make_uninit<Counted[]>(7);
  EXPECT_EQ(Counted::constructed, 7);
  EXPECT_EQ(p[6].value, 42);
  auto bytes = make_uninit<unsigned char[]>(4096);
  std::memset(bytes.get(), 1, 4096);  // write before read
  EXPECT_EQ(bytes[4095], 1);
}

}  // namespace
}  // namespace zerolab
