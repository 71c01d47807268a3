// The allocation-heavy program of zerolab waste's cost budget:
// two million short-lived 60-byte strings, each a temporary allocation.
// Run by bench/waste/cost.sh beside heaptrack and valgrind's DHAT.
#include <cstdio>
#include <string>

int main() {
  unsigned long sink = 0;
  for (int i = 0; i < 2000000; ++i) {
    const std::string s(60, static_cast<char>('a' + i % 26));
    sink += static_cast<unsigned char>(s[static_cast<std::size_t>(i % 60)]);
  }
  std::printf("%lu\n", sink);
  return 0;
}
