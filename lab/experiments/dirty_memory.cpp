// Experiment `dirty-memory` (seed 004, "Как бывает без zero value" and
// "То же самое в куче", the C stack and heap demos): without a zero-value
// guarantee, memory shows whatever was there before. A reused stack frame
// shows the previous call's bytes (checked in this process), while in a
// fresh process the first unwritten frame reads zero because the kernel
// gave the stack page clean (the seed's dirty_stack.c run as
// lab/probes/dirty_stack); and, from the
// seed's heap_dirty.c run as a fresh process (lab/probes/heap_dirty), a
// small freed heap block comes back with its old bytes (past glibc's
// 16-byte tcache header), a fresh 10 MiB malloc reads as zero because glibc
// maps it from the kernel, and the second 10 MiB malloc after a free, which
// glibc serves from the heap (brk) because the free raised its mmap
// threshold, is zero too — in a fresh process, whose heap top is unused.
//
// Reading memory nobody initialized is undefined behaviour in C++. These
// checks never let the compiler see such a read: an empty asm statement
// declares that it wrote the bytes ("=m" or a "memory" clobber), so the
// language-level value is defined and the machine's bytes are what we read.
//
// Example:
//   zerolab lab dirty-memory
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "lab/experiments/catalog.hpp"
#include "lab/experiments/facts004.hpp"
#include "lab/framework/child_process.hpp"
#include "lab/framework/experiment.hpp"

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
  // The frame's address as a number, to compare frames: never dereferenced.
  // Not const: clang follows a const local's initializer to the stack array.
  auto address = reinterpret_cast<std::uintptr_t>(&buf[0]);
  return address;
}

FactResult stack_frame_shows_old_bytes() {
  unsigned char seen[kFrameBytes];
  const std::uintptr_t first = stack_frame(true, nullptr);
  const std::uintptr_t second = stack_frame(false, seen);
  return facts004::stack_frame_shows_old_bytes(first == second, seen, sizeof seen);
}

#ifndef ZEROLAB_PROBE_DIR
#define ZEROLAB_PROBE_DIR "lab/probes"
#endif

// The seed's heap_dirty.c, run once as a fresh process (lab/probes/), as
// the seed ran it: in this process the heap top has long been used.
const facts004::HeapDirty& heap_dirty() {
  static const facts004::HeapDirty blocks = [] {
    const std::string probe = std::string(ZEROLAB_PROBE_DIR) + "/heap_dirty";
    const ChildRun run = run_child({probe});
    if (run.exit_status != 0) {
      throw std::runtime_error(probe + " exited with " + std::to_string(run.exit_status) + ": " +
                               run.output);
    }
    facts004::HeapDirty out;
    std::string error;
    if (!facts004::parse_heap_dirty(run.output, out, error)) throw std::runtime_error(error);
    return out;
  }();
  return blocks;
}

// The seed's dirty_stack.c, run once as a fresh process (lab/probes/): its
// first read is of stack no code of the process has reached yet, which in
// this long-running process is not so.
FactResult unwritten_stack_reads_zero() {
  const std::string probe = std::string(ZEROLAB_PROBE_DIR) + "/dirty_stack";
  const ChildRun run = run_child({probe});
  if (run.exit_status != 0) {
    throw std::runtime_error(probe + " exited with " + std::to_string(run.exit_status) + ": " +
                             run.output);
  }
  facts004::DirtyStack out;
  std::string error;
  if (!facts004::parse_dirty_stack(run.output, out, error)) throw std::runtime_error(error);
  return facts004::unwritten_stack_is_zero(out);
}

FactResult freed_block_keeps_old_bytes() {
  const facts004::HeapDirty& h = heap_dirty();
  return facts004::freed_block_keeps_old_bytes(h.small_first.address == h.small_after_free.address,
                                               h.small_after_free.bytes_16_63.data(),
                                               h.small_after_free.bytes_16_63.size());
}

FactResult fresh_large_malloc_is_zero() {
  return facts004::large_block_is_zero(heap_dirty().large_first.block, "malloc(10 MiB)");
}

FactResult second_large_malloc_is_zero() {
  return facts004::large_block_is_zero(heap_dirty().large_after_free.block,
                                       "malloc(10 MiB) after free");
}

}  // namespace

Experiment make_dirty_memory_experiment() {
  Experiment e = Experiment::from_seed(
      "dirty-memory", "without a zero value, memory shows what was there before",
      {"004_9bd089f53a065852.txt",
       "Как бывает без zero value / То же самое в куче (dirty_stack.c, heap_dirty.c)"},
      {"The seed's C programs (dirty_stack.c, heap_dirty.c) as C++ checks, with the same "
       "sizes and byte patterns.",
       "Reads of unwritten memory go through an asm barrier (no undefined behaviour), where "
       "the seed compiles with -O0."},
      {.differences = {
           "No Go side: the seed's point is that Go has no such memory (its programs are C)."}});
  const std::string stack = "Как бывает без zero value";
  const std::string heap = "То же самое в куче";
  e.claims = {
      Claim::fact_check(
          {"после fill тот же самый неинициализированный массив содержит чужие данные. Оба "
           "вызова получили один и тот же участок стека, и второй увидел то, что "
           "оставил первый.",
           stack, "после вызова fill(): AA AA AA …"},
          &stack_frame_shows_old_bytes)
          .go_not_comparable("the seed's C program; Go zeroes every frame"),
      Claim::fact_check({"Первое: при первом вызове массив полон нулей. Не потому, что C так "
                         "гарантирует. Просто эта страница стека ещё ни разу не использовалась, "
                         "и ядро отдало её процессу чистой.",
                         stack, "до вызова fill(): 00 00 00 … (16 bytes shown)"},
                        &unwritten_stack_reads_zero)
          .go_not_comparable("the seed's C program; Go zeroes every frame"),
      Claim::fact_check({"Маленький блок после free вернулся с моими байтами 0xBB внутри.", heap,
                         "malloc(64) после free: BB BB BB …"},
                        &freed_block_keeps_old_bytes)
          .go_not_comparable("the seed's C program; Go's mallocgc zeroes reused memory"),
      Claim::fact_check({"А вот блок на 10 МБ в обоих случаях пришёл чистым.", heap,
                         "malloc(10 МБ): 00 00 00 … (mmap)"},
                        &fresh_large_malloc_is_zero)
          .go_not_comparable("the seed's C program"),
      Claim::fact_check({"А вот блок на 10 МБ в обоих случаях пришёл чистым. … Второй запрос под "
                         "новый порог уже попал, и его обслужили расширением кучи.",
                         heap, "malloc(10 МБ) после free: 00 00 00 … (brk)"},
                        &second_large_malloc_is_zero)
          .go_not_comparable("the seed's C program"),
  };
  return e;
}

}  // namespace zerolab::lab
