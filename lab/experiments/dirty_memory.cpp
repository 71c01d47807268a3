// Experiment `dirty-memory` (seed 004, "Как бывает без zero value" and
// "То же самое в куче", the C stack and heap demos): without a zero-value
// guarantee, memory shows whatever was there before. Three facts checked
// directly: a reused stack frame shows the previous call's bytes; a small
// freed heap block comes back with its old bytes (past glibc's 16-byte
// tcache header); a fresh 10 MiB malloc reads as zero, because glibc maps
// it from the kernel; and the seed's second 10 MiB malloc after a free,
// which glibc serves from the heap (brk) because the free raised its mmap
// threshold — zero in the seed's tiny program, but only as long as nothing
// else in the process used that part of the heap before.
//
// Reading memory nobody initialized is undefined behaviour in C++. These
// checks never let the compiler see such a read: an empty asm statement
// declares that it wrote the bytes ("=m" or a "memory" clobber), so the
// language-level value is defined and the machine's bytes are what we read.
//
// Example:
//   zerolab lab dirty-memory
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "lab/experiment.hpp"

namespace zerolab::lab {
namespace {

constexpr std::size_t kFrameBytes = 64;

// One function for both calls so both get the same frame at the same depth:
// write=true fills its local array with 0xAA; write=false copies out what
// its (unwritten) local array holds.
__attribute__((noinline)) std::uintptr_t stack_frame(bool write, unsigned char* out) {
  unsigned char buf[kFrameBytes];
  if (write) {
    std::memset(buf, 0xAA, sizeof buf);
    asm volatile("" : : "r"(buf) : "memory");  // the stores must happen
  } else {
    asm volatile("" : "=m"(buf));  // "the asm wrote buf": what is there is read
    std::memcpy(out, buf, sizeof buf);
  }
  return reinterpret_cast<std::uintptr_t>(&buf[0]);
}

std::string hex_bytes(const unsigned char* p, std::size_t n) {
  std::string out;
  char byte[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(byte, sizeof byte, i == 0 ? "%02X" : " %02X", p[i]);
    out += byte;
  }
  return out;
}

bool all_equal(const unsigned char* p, std::size_t n, unsigned char value) {
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != value) return false;
  }
  return true;
}

FactResult stack_frame_shows_old_bytes() {
  unsigned char seen[kFrameBytes];
  const std::uintptr_t first = stack_frame(true, nullptr);
  const std::uintptr_t second = stack_frame(false, seen);
  FactResult r;
  r.holds = first == second && all_equal(seen, sizeof seen, 0xAA);
  r.observed = std::string(first == second ? "same frame" : "a different frame") +
               "; the unwritten array holds " + hex_bytes(seen, 8) + " ...";
  return r;
}

template <class T>
inline T* opaque(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

FactResult freed_block_keeps_old_bytes() {
  auto* a = opaque(static_cast<unsigned char*>(std::malloc(64)));
  std::memset(a, 0xBB, 64);
  std::free(opaque(a));
  auto* b = opaque(static_cast<unsigned char*>(std::malloc(64)));
  // Bytes 16..63: glibc's tcache writes its next pointer and key into 0..15.
  unsigned char seen[48];
  std::memcpy(seen, b + 16, sizeof seen);
  const bool same = a == b;
  std::free(b);
  FactResult r;
  r.holds = same && all_equal(seen, sizeof seen, 0xBB);
  r.observed = std::string(same ? "the same block came back" : "a different block came back") +
               "; bytes 16..27: " + hex_bytes(seen, 12);
  return r;
}

constexpr std::size_t kLarge = std::size_t{10} << 20;

// What one malloc(10 MiB) gave: zero or not, from mmap or the heap, and
// where the first non-zero byte was.
struct LargeBlock {
  bool ok = false;
  bool mmapped = false;
  std::size_t nonzero = 0;
  std::size_t first_nonzero = 0;
  std::string describe() const {
    std::string s = nonzero == 0 ? "zero" : std::to_string(nonzero) + " non-zero bytes (first at offset " +
                                                std::to_string(first_nonzero) + ")";
    return s + (mmapped ? ", from mmap" : ", from the heap (brk)");
  }
};

// malloc(10 MiB), look at every byte, fill it with 0xCC, free it.
LargeBlock malloc_large_and_dirty_it() {
  LargeBlock r;
  const std::size_t mmapped_before = mallinfo2().hblkhd;
  auto* p = opaque(static_cast<unsigned char*>(std::malloc(kLarge)));
  if (p == nullptr) return r;
  r.ok = true;
  r.mmapped = mallinfo2().hblkhd > mmapped_before;
  for (std::size_t i = 0; i < kLarge; ++i) {
    if (p[i] != 0 && r.nonzero++ == 0) r.first_nonzero = i;
  }
  std::memset(p, 0xCC, kLarge);
  std::free(opaque(p));
  return r;
}

// The first and second 10 MiB blocks of the seed's heap_dirty.c, taken once
// and shared by the two facts below.
const std::pair<LargeBlock, LargeBlock>& large_blocks() {
  static const std::pair<LargeBlock, LargeBlock> blocks = [] {
    LargeBlock first = malloc_large_and_dirty_it();
    LargeBlock second = malloc_large_and_dirty_it();
    return std::make_pair(first, second);
  }();
  return blocks;
}

FactResult fresh_large_malloc_is_zero() {
  const LargeBlock& b = large_blocks().first;
  FactResult r;
  r.holds = b.ok && b.nonzero == 0;
  r.observed = b.ok ? "malloc(10 MiB): " + b.describe() : "malloc of 10 MiB failed";
  return r;
}

FactResult second_large_malloc_is_zero() {
  const LargeBlock& b = large_blocks().second;
  FactResult r;
  r.holds = b.ok && b.nonzero == 0;
  r.observed = b.ok ? "malloc(10 MiB) after free: " + b.describe() : "malloc of 10 MiB failed";
  if (b.ok && b.nonzero != 0 && !b.mmapped) {
    r.observed += ": the heap top had been used by this process's earlier small allocations";
  }
  return r;
}

}  // namespace

Experiment make_dirty_memory_experiment() {
  Experiment e;
  e.id = "dirty-memory";
  e.title = "without a zero value, memory shows what was there before";
  e.seed_file = "004_9bd089f53a065852.txt";
  e.seed_section = "Как бывает без zero value / То же самое в куче (dirty_stack.c, heap_dirty.c)";
  e.note =
      "C++ inherits C's rules: nothing zeroes a stack frame or a reused heap block; Go's "
      "compiler zeroes frames and its runtime zeroes heap memory.";
  e.claims = {
      Claim::fact("a reused stack frame shows the previous call's bytes",
                  "AA AA AA ... after fill()", &stack_frame_shows_old_bytes),
      Claim::fact("a freed 64-byte block comes back with its old bytes (past the tcache header)",
                  "BB BB BB ... after free", &freed_block_keeps_old_bytes),
      Claim::fact("a fresh 10 MiB malloc is zero (glibc takes it from the kernel)",
                  "00 00 00 ... (mmap)", &fresh_large_malloc_is_zero),
      Claim::fact("after it is freed, a second 10 MiB malloc is zero too",
                  "00 00 00 ... (brk)", &second_large_malloc_is_zero),
  };
  return e;
}

}  // namespace zerolab::lab
