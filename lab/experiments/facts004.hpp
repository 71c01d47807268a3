// lab/experiments/facts004.hpp — how seed 004's facts decide, apart from
// what they look at: each function takes what was observed and says whether
// the seed's statement holds, so a test can hand it observations that make
// the statement false (tests/lab_facts004_test.cpp). The experiments
// (dirty_memory.cpp, zero_cost.cpp, stack_zero.cpp, needzero.cpp) gather the
// observations on this machine and call these.
//
// Thread-safety: pure functions.
//
// Example:
//   unsigned char seen[64];  // what an unwritten frame held
//   FactResult r = facts004::stack_frame_shows_old_bytes(true, seen, sizeof seen);
#ifndef ZEROLAB_LAB_EXPERIMENTS_FACTS004_HPP_
#define ZEROLAB_LAB_EXPERIMENTS_FACTS004_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/framework/experiment.hpp"

namespace zerolab::lab::facts004 {

// dirty-memory: the second call's unwritten frame is the first call's
// (same_frame) and holds its 0xAA bytes.
FactResult stack_frame_shows_old_bytes(bool same_frame, const unsigned char* seen, std::size_t n);

// dirty-memory: the same 64-byte block came back with its 0xBB bytes.
FactResult freed_block_keeps_old_bytes(bool same_block, const unsigned char* seen, std::size_t n);

// What one malloc(10 MiB) gave.
struct LargeBlock {
  bool ok = false;       // malloc returned memory
  bool mmapped = false;  // glibc took it from mmap (else the heap)
  std::size_t nonzero = 0;
  std::size_t first_nonzero = 0;
  std::string describe() const;
};

// dirty-memory: the block read as zero. `label` starts the observation.
FactResult large_block_is_zero(const LargeBlock& block, const std::string& label);

// One block of lab/probes/heap_dirty's output.
struct HeapBlock {
  std::string address;
  LargeBlock block;  // mmapped, nonzero, first_nonzero (ok: the line was there)
  std::vector<unsigned char> bytes_16_63;  // bytes 16..63
};

// heap_dirty's four blocks: small-first, small-after-free, large-first,
// large-after-free.
struct HeapDirty {
  HeapBlock small_first, small_after_free, large_first, large_after_free;
};

// Parses heap_dirty's output; false with `error` naming the line or field
// that is wrong.
bool parse_heap_dirty(const std::string& output, HeapDirty& out, std::string& error);

// lab/probes/dirty_stack's two reads of one unwritten 64-byte local array
// in a fresh process: before anything wrote that stack ("first") and after
// a call wrote 0xAA over it ("after-fill").
struct DirtyStack {
  std::string first_address, after_address;
  std::vector<unsigned char> first, after;  // 64 bytes each
};

// Parses dirty_stack's output; false with `error` naming the line or field
// that is wrong.
bool parse_dirty_stack(const std::string& output, DirtyStack& out, std::string& error);

// dirty-memory: the first call's unwritten array, on a stack page the
// process had not used yet, reads as zero.
FactResult unwritten_stack_is_zero(const DirtyStack& run);

// needzero: strace's lines (`strace -e trace=mmap`) show an anonymous,
// private, read-write mmap of at least `bytes` at an address the kernel
// picked: "mmap(NULL, N, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1,
// 0) = 0x...", what glibc does for malloc(10 << 20) in the seed.
FactResult anonymous_mmap_seen(const std::string& strace_output, std::uint64_t bytes);

// zero-cost: the three probe programs' file sizes, and the writable LOAD
// segment of the zeroed one (seed 004's bin_empty, bin_zeroed, bin_static).
struct BssProbes {
  std::uint64_t empty = 0;
  std::uint64_t zeroed = 0;
  std::uint64_t with_static = 0;
  std::uint64_t zeroed_rw_filesz = 0;
  std::uint64_t zeroed_rw_memsz = 0;
};

// "64 MB of zeros cost 121 bytes": under 4 KiB of file, and the segment
// asks for at least 64 MiB more in memory than it holds in the file.
FactResult zeros_cost_no_file(const BssProbes& p);

// "4 MB of non-zero data cost 4 MB in the file": at least 4 MiB more.
FactResult nonzero_static_costs_file(const BssProbes& p);

// stack-zero: how one function's disassembly (objdump -d, AT&T) zeroes
// its frame: "memset call", "rep stos", "N vector stores",
// "N movq $0 stores" or "no zeroing seen".
std::string classify_zeroing(const std::string& disassembly);

// stack-zero: small frames by straight-line stores, the 8 KiB one by a
// string instruction or a call (the seed's pattern: MOVUPS .. REP STOSQ).
FactResult frame_zeroing_pattern(const std::string& z64, const std::string& z1k,
                                 const std::string& z8k);

// needzero: the seed's program's seven allocation times (ns): the first
// two (fresh memory) each at least 28 times cheaper than the cheapest of
// steps 4..7 (the seed's smallest such ratio: 45.6 vs 1.6 ms). `zeroed_mib`
// and `skipped_mib` are what the allocator reports it zeroed and skipped.
FactResult fresh_allocations_are_free(const std::vector<double>& ns, std::uint64_t zeroed_mib,
                                      std::uint64_t skipped_mib);

// zero-cost: the calls of a program's disassembly (objdump -d) to malloc,
// calloc and memset through the PLT, as the seed counts them (grep -oE
// "<(malloc|calloc|memset)@plt>").
struct PltCalls {
  int malloc = 0;
  int calloc = 0;
  int memset = 0;
  std::string describe() const;  // "0 malloc, 1 calloc, 0 memset"
};
PltCalls count_plt_calls(const std::string& disassembly);

// "GCC at -O2 replaces malloc + memset(0) with calloc": the program that
// writes the pair calls calloc and neither malloc nor memset.
FactResult malloc_memset_became_calloc(const PltCalls& pair);

// "The barrier works more precisely": with the seed's OPAQUE between them,
// the pair stays malloc and memset, and no calloc.
FactResult barrier_keeps_malloc_memset(const PltCalls& with_barrier);

}  // namespace zerolab::lab::facts004

#endif  // ZEROLAB_LAB_EXPERIMENTS_FACTS004_HPP_
