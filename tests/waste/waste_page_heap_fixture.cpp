// zerolab::PageHeap under `zerolab waste` (tests/waste_test.cpp): a memset
// over a span PageHeap handed out zeroed is safe to drop, and the report
// says so. Built at -O0; `SITE:<name>` marks the lines the report must name.
//
//   waste_page_heap_fixture  a 256 KiB span allocated zeroed (fresh pages)
//                            and zeroed again (SITE:heap_fresh); freed, taken
//                            back zeroed (PageHeap zeroes the dirty span) and
//                            zeroed again (SITE:heap_reused); a span allocated
//                            without zeroing, written, zeroed: keep
//                            (SITE:heap_dirty)
//   waste_page_heap_fixture zerofill  zerolab::zero_fill of 1000 bytes already
//                            zero, 10 times (zeroed zeros seen through zero_fill:
//                            SITE:zero_fill), and of 40 bytes (inline: not seen)
#include <cstdlib>
#include <cstring>
#include <string>

#include "zerolab/page_heap.hpp"
#include "zerolab/zero.hpp"

static int zero_fills() {
  auto* p = static_cast<char*>(std::malloc(1000));
  if (p == nullptr) return 1;
  std::memset(p, 'x', 1000);
  for (int i = 0; i < 11; ++i) zerolab::zero_fill(p, 1000);  // SITE:zero_fill
  for (int i = 0; i < 10; ++i) zerolab::zero_fill(p, 40);
  const int sum = p[0] + p[999];
  std::free(p);
  return sum;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "zerofill") return zero_fills();
  constexpr std::size_t kBytes = 256 << 10;
  zerolab::PageHeap heap;
  void* a = heap.allocate(kBytes, zerolab::Zero::kYes);
  std::memset(a, 0, kBytes);  // SITE:heap_fresh
  heap.deallocate(a);
  void* b = heap.allocate(kBytes, zerolab::Zero::kYes);
  std::memset(b, 0, kBytes);  // SITE:heap_reused
  heap.deallocate(b);
  void* c = heap.allocate(kBytes, zerolab::Zero::kNo);
  std::memset(c, 'x', kBytes);
  std::memset(c, 0, kBytes);
  std::memset(c, 0, kBytes);  // SITE:heap_dirty
  heap.deallocate(c);
  return a == b && b == c ? 0 : 4;  // 4: the span was not reused as the test expects
}
