// main() of zerolab::bench_main: link it to get a benchmark binary with every
// flag. Naming the hooks' anchor makes the allocation hooks link in too.
//
// Example:
//   target_link_libraries(my_bench PRIVATE zerolab::bench_main)
//   ./my_bench -bench Merge -count 10 > new.txt
#include "alloc_hooks/hooks_abi.h"
#include "zerolab/bench.hpp"

int main(int argc, char** argv) {
  zerolab_alloc_hooks_anchor();
  return zerolab::bench_main(argc, argv);
}
