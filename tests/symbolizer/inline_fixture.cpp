// The symbolizer tests' program (tests/symbolizer_test.cpp): built with
// -O2 -g, so that inner() is inlined into middle() and middle() into
// outer(); the markers name the lines the frames must carry.
#include <cstdio>

namespace demo {

inline __attribute__((always_inline)) long inner(volatile long* p, long x) {
  return *p + x * 3;  // marker: inner body
}

inline __attribute__((always_inline)) long middle(volatile long* p, long x) {
  return inner(p, x) + 1;  // marker: middle calls inner
}

}  // namespace demo

// No linkage name in the DWARF (internal linkage), inlined into main after
// main's first instructions.
static inline __attribute__((always_inline)) long twice(long x) {
  return x * 2 + 1;
}

__attribute__((noinline)) long outer(volatile long* p, long x) {
  return demo::middle(p, x) * 2;  // marker: outer calls middle
}

int main(int argc, char**) {
  volatile long v = argc;
  std::printf("%ld\n", outer(&v, twice(v)));
  return 0;
}
