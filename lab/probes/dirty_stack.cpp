// lab/probes/dirty_stack.cpp — seed 004's dirty_stack.c ("Как бывает без
// zero value") in C++, built beside the lab and run as a fresh process by
// the dirty-memory experiment, as the seed ran its program: the first call
// reads a 64-byte local array nothing has written, a second call writes
// 0xAA over the same array, and a third reads it unwritten again. Each read
// prints one line:
//   <label> <address of the array> <hex of its 64 bytes>
// with label "first" (before the write) and "after-fill".
//
// One function does all three calls (write or read), so each gets the same
// frame at the same depth, as the seed's fill and leak got theirs. Reading
// memory nobody initialized is undefined behaviour in C++: an empty asm
// statement claims to have written the array ("=m"), so what is read is
// defined at the language level and is the machine's bytes.
//
// Example:
//   build/release/lab/probes/dirty_stack
//   first 0x7ffc4b1e2a40 00 00 00 ...
//   after-fill 0x7ffc4b1e2a40 AA AA AA ...
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

constexpr std::size_t kFrameBytes = 64;

// write: fills the local array with 0xAA; else copies what it holds to out.
// Stores the array's address as a number in *address (never dereferenced).
__attribute__((noinline)) void frame(bool write, unsigned char* out, std::uintptr_t* address) {
  unsigned char buf[kFrameBytes];
  if (write) {
    std::memset(buf, 0xAA, sizeof buf);
    asm volatile("" : : "r"(buf) : "memory");  // the stores must happen
  } else {
    asm volatile("" : "=m"(buf));  // "the asm wrote buf": what is there is read
    std::memcpy(out, buf, sizeof buf);
  }
  *address = reinterpret_cast<std::uintptr_t>(&buf[0]);
}

void print(const char* label, std::uintptr_t address, const unsigned char* bytes) {
  std::printf("%s 0x%llx", label, static_cast<unsigned long long>(address));
  for (std::size_t i = 0; i < kFrameBytes; ++i) std::printf(" %02X", bytes[i]);
  std::printf("\n");
}

}  // namespace

int main() {
  unsigned char first[kFrameBytes];
  unsigned char after[kFrameBytes];
  // Both reads before any output: printf's own frames would write below main.
  std::uintptr_t first_address = 0;
  std::uintptr_t fill_address = 0;
  std::uintptr_t after_address = 0;
  frame(false, first, &first_address);
  frame(true, nullptr, &fill_address);
  frame(false, after, &after_address);
  print("first", first_address, first);
  print("after-fill", after_address, after);
  return 0;
}
