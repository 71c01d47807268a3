// The program that allocates little, of zerolab waste's cost budget:
// a few buffers, then arithmetic and memory passes over them.
// Run by bench/waste/cost.sh beside heaptrack and valgrind's DHAT.
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::vector<double> v(1 << 16);
  double sum = 0;
  for (int round = 0; round < 600; ++round) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sqrt(static_cast<double>(i + round));
    for (double x : v) sum += x;
  }
  std::printf("%.0f\n", sum);
  return 0;
}
