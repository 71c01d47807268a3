// zero_first_call: what a process's first zero_fill costs beside its
// second, one process per sample (the first call is the process's first
// use of zero_fill, so each sample needs a fresh process). Prints, per
// size, the first and second call's nanoseconds and the settings' source.
// A speed claim is the ratio of the two (first over second), taken from
// interleaved runs of two builds (bench/zero_first_call.sh).
//
// Example:
//   $ bench/rigs/zero_first_call 4096
//   size=4096 first_ns=1830 second_ns=160 source=cpuid
#include <sys/mman.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "zerolab/zero.hpp"

namespace {

long long now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: zero_first_call SIZE_BYTES\n");
    return 2;
  }
  char* end = nullptr;
  const unsigned long long size = std::strtoull(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || size == 0 || size > (1ULL << 30)) {
    std::fprintf(stderr, "zero_first_call: SIZE_BYTES %s: not a size of 1 .. 1073741824\n",
                 argv[1]);
    return 2;
  }
  // The buffer is faulted in first, so neither call pays for its pages.
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (map == MAP_FAILED) {
    std::perror("zero_first_call: mmap");
    return 1;
  }
  const long long t0 = now_ns();
  zerolab::zero_fill(map, size);
  const long long t1 = now_ns();
  zerolab::zero_fill(map, size);
  const long long t2 = now_ns();
  std::printf("size=%llu first_ns=%lld second_ns=%lld source=%s\n", size, t1 - t0, t2 - t1,
              zerolab::zero_config().source.c_str());
  return 0;
}
